#!/usr/bin/env bash
# Device call: the sampler benchmark (60 s, after the once-a-second split),
# and where the sampled tracer's cost goes on a training step: plain, the
# recorder alone, sampled windows from the start, sampled windows only after
# the first period (modules loaded with kernel tracing off), 2 rounds.
# usage: scripts/h200/call_sampler_tracer.sh OUT
set -u
out=$1
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_st
rm -rf "$w" && mkdir -p "$w/res"
r=$w/res
export PYTHONUNBUFFERED=1
bash scripts/h200/sampler_bench.sh "$bin" "$w/s" "$r"
for round in 1 2; do
  for cfg in plain record sampled delayed; do
    py=(taskset -c 3 python3 bench/tracer/storm.py --workload train --seconds 12 --chunks-out "$w/chunks.txt")
    case $cfg in
      plain) line=$("${py[@]}" | tail -1) ;;
      record) line=$("$bin" record -q -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
      sampled) line=$("$bin" record -q --trace -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
      delayed) line=$(GPUWHY_TRACE_FIRST_DELAY_MS=5000 "$bin" record -q --trace -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
    esac
    if [ "$cfg" = sampled ] || [ "$cfg" = delayed ]; then
      line="$line $(python3 bench/tracer/windows.py "$w/chunks.txt" "$w/v.db" 2>&1) kernels $(python3 scripts/dbq.py "$w/v.db" 'select count(*) from kernel')"
    fi
    echo "round $round $cfg $line" >> "$r/variants.txt"
    rm -rf "$w/v.db" "$w/v.db-wal" "$w/v.db-shm" "$w/v.db.trace"
  done
done
tar -C "$w" -czf "$out/results.tgz" res
cat "$r/sampler_bench.txt" "$r/variants.txt"
