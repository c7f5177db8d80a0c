#!/usr/bin/env bash
# bench/sampler over 60 s (gpuwhy record at 10 Hz and 1 Hz beside nvidia-smi
# dmon on a steady load), with the recorder's own accounting (recorder_* in
# meta) of each run appended to OUT/sampler_bench.txt.
# usage: scripts/h200/run.sh bench_sampler OUT
set -u
out=$1
w=/tmp/gw_bench_sampler
rm -rf "$w" && mkdir -p "$w"
bash scripts/h200/lib/sampler_bench.sh "$PWD/build-dev/gpuwhy" "$w" "$out"
cat "$out/sampler_bench.txt" 2>/dev/null
rm -rf "$w"
