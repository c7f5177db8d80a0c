#!/usr/bin/env bash
# Device call: sampled mode against plain only, more rounds (6 x 8 s, two
# cores), for the 2% target that run-to-run spread decides.
# usage: scripts/h200/call_bench8.sh OUT
set -u
out=$1
export NCCL_NVLS_ENABLE=0
GW_BENCH_CONFIGS="plain sampled" bash bench/tracer/run.sh "$PWD/build-dev/gpuwhy" "$out/bench" 6 8 2>&1 | tail -16
rm -rf "$out"/bench/*.trace "$out"/bench/*.db*
