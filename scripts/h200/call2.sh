#!/usr/bin/env bash
# Device call 2: NVML call costs, the tracer benchmark and tracer checks.
set -u
out=$1
bin=$PWD/build-dev/gpuwhy
export PYTHONUNBUFFERED=1
mkdir -p "$out/rec"
build-dev/bench/nvml_cost 200 2>&1 | tee "$out/nvml_cost.txt"
timeout 300 bash bench/tracer/run.sh "$bin" "$out/rec" 3 2>&1 | tail -8 | tee "$out/tracer_bench.txt"
timeout 150 bash scripts/h200/tracer_checks.sh "$bin" "$out/rec" 2>&1 | tee "$out/tracer_checks.txt"
tar -C "$out/rec" -czf "$out/recordings2.tgz" . && rm -rf "$out/rec"
