#!/usr/bin/env bash
# Device call: scripts/h200/diag_api.sh, then bench/tracer (3 rounds x 10 s,
# two cores) on the final sampled mode (whole API kinds in windows, CUPTI
# detached between them).
# usage: scripts/h200/call_bench6.sh OUT
set -u
out=$1
bash scripts/h200/diag_api.sh "$out"
bash bench/tracer/run.sh "$PWD/build-dev/gpuwhy" "$out/bench" 3 10 2>&1 | tail -14
rm -rf "$out"/bench/*.trace
