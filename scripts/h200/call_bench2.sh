#!/usr/bin/env bash
# Device call: NVML call costs (all calls of the once-a-second tick, GPM
# metrics one by one), bench/sampler over 60 s, then bench/tracer (storm and
# training step; plain, sampled, full, torch.profiler; 3 interleaved rounds).
# usage: scripts/h200/call_bench2.sh OUT [ROUNDS] [SECONDS]
set -u
out=$1 rounds=${2:-3} secs=${3:-8}
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_b2
rm -rf "$w" && mkdir -p "$w/res"
r=$w/res
export PYTHONUNBUFFERED=1
timeout 60 build-dev/bench/nvml_cost 200 > "$r/nvml_cost.txt" 2>&1
bash scripts/h200/sampler_bench.sh "$bin" "$w/s" "$r"
timeout 420 bash bench/tracer/run.sh "$bin" "$w/tb" "$rounds" "$secs" > "$r/tracer_bench.log" 2>&1
cp "$w/tb/tracer_bench.txt" "$r/" 2>/dev/null
tar -C "$w" -czf "$out/results.tgz" res
cat "$r/sampler_bench.txt"; tail -14 "$r/tracer_bench.log"
