#!/usr/bin/env bash
# Device call: bench/tracer (storm and a transformer training step; plain,
# --trace=sampled, --trace=full, torch.profiler; interleaved rounds).
# usage: scripts/h200/run.sh bench_tracer OUT [ROUNDS] [SECONDS]
set -u
out=$1 rounds=${2:-3} secs=${3:-10}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > "$out/gpu.txt" 2>&1
python3 -c "import torch; print(torch.__version__, torch.version.cuda)" >> "$out/gpu.txt" 2>&1
bash bench/tracer/run.sh "$PWD/build-dev/gpuwhy" "$out/tb" "$rounds" "$secs" > "$out/tracer_bench.log" 2>&1
cp "$out/tb/tracer_bench.txt" "$out/" 2>/dev/null
rm -rf "$out/tb"
tail -12 "$out/tracer_bench.log"
