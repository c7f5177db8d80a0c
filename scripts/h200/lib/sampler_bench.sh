#!/usr/bin/env bash
# bench/sampler over 60 s, then the recorder's own accounting of each run
# (recorder_* in meta) appended to RESDIR/sampler_bench.txt.
# usage: scripts/h200/lib/sampler_bench.sh GPUWHY_BIN WORKDIR RESDIR
set -u
bin=$1 w=$2 r=$3
timeout 100 bash bench/sampler/run.sh "$bin" "$w" 60 > "$r/sampler.log" 2>&1
cp "$w/sampler_bench.txt" "$r/" 2>/dev/null
for f in bench_10hz bench_1hz; do
  echo "$f: $(python3 scripts/dbq.py "$w/$f.db" "select group_concat(key || '=' || value, ' ') from meta where key like 'recorder_%'")" >> "$r/sampler_bench.txt"
done
