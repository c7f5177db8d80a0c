#!/usr/bin/env bash
# Device call: bench/tracer on the final tracer, with --trace=full without
# launch API records as a fifth configuration (3 rounds x 8 s, two cores).
# usage: scripts/h200/call_bench7.sh OUT
set -u
out=$1
export NCCL_NVLS_ENABLE=0
GW_BENCH_CONFIGS="plain sampled full full_nolaunch profiler" \
  bash bench/tracer/run.sh "$PWD/build-dev/gpuwhy" "$out/bench" 3 8 2>&1 | tail -16
rm -rf "$out"/bench/*.trace "$out"/bench/*.db*
