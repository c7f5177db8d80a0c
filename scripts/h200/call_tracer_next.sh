#!/usr/bin/env bash
# Device call for the tracer's overhead, ready for the next period: longer
# runs (30 s) to get above the VM's two-speed noise, the program pinned to
# one core as in bench/tracer and unpinned (two cores: CUPTI's worker thread
# and the record conversion off the training thread's core), plain, sampled
# and full, 2 interleaved rounds; per run the median step before the first
# window and after the last (sampled).
# usage: scripts/h200/call_tracer_next.sh OUT
set -u
out=$1
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_tn
rm -rf "$w" && mkdir -p "$w/res"
r=$w/res
export PYTHONUNBUFFERED=1
for round in 1 2; do
  for pin in "taskset -c 3" "taskset -c 2,3"; do
    for cfg in plain sampled full; do
      c=$w/chunks.txt
      py=($pin python3 bench/tracer/storm.py --workload storm --seconds 30 --chunks-out "$c")
      case $cfg in
        plain) line=$("${py[@]}" | tail -1) ;;
        *) line=$("$bin" record -q --trace=$cfg -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
      esac
      [ "$cfg" = sampled ] && line="$line $(python3 bench/tracer/windows.py "$c" "$w/v.db" 2>&1)"
      echo "round $round pin '${pin#taskset -c }' $cfg $line" | tee -a "$r/storm.txt"
      rm -rf "$w/v.db" "$w/v.db-wal" "$w/v.db-shm" "$w/v.db.trace"
    done
  done
done
tar -C "$w" -czf "$out/results.tgz" res
