#!/usr/bin/env bash
# Device call: where the tracer's overhead on the 1 us-kernel storm goes.
# 25 s runs, 2 interleaved rounds; the program pinned to one core as in
# bench/tracer ("3") and to two ("2,3": CUPTI's worker thread and the record
# conversion can leave the training thread's core), plain, sampled and full;
# on two cores also sampled windows without kernel records, full without API
# records and full with CUPTI's serial KERNEL kind. For sampled runs,
# windows.py adds the median step before the first window and after it.
# Each line is appended to OUT/storm.txt as it comes.
# usage: scripts/h200/call_tracer_next.sh OUT [SECONDS]
set -u
out=$1 secs=${2:-25}
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_tn
rm -rf "$w" && mkdir -p "$w"
export PYTHONUNBUFFERED=1
run() { # round pin label env... -- mode
  local round=$1 pin=$2 label=$3 mode=$4
  shift 4
  local c=$w/chunks.txt
  local py=(taskset -c "$pin" python3 bench/tracer/storm.py --workload storm --seconds "$secs" --chunks-out "$c")
  local line
  if [ "$mode" = plain ]; then
    line=$(env "$@" "${py[@]}" | tail -1)
  else
    line=$(env "$@" "$bin" record -q --trace="$mode" -o "$w/v.db" -- "${py[@]}" | tail -1)
    line="$line $(python3 bench/tracer/windows.py "$c" "$w/v.db" 2>&1 | tail -1)"
  fi
  echo "round $round pin $pin $label $line" | tee -a "$out/storm.txt"
  rm -rf "$w/v.db" "$w/v.db-wal" "$w/v.db-shm" "$w/v.db.trace"
}
for round in 1 2; do
  for pin in 3 2,3; do
    run $round $pin plain plain X=1
    run $round $pin sampled sampled X=1
    run $round $pin full full X=1
  done
  run $round 2,3 sampled-nokernel sampled GPUWHY_TRACE_SAMPLED_KIND=nokernel
  run $round 2,3 full-noapi full GPUWHY_TRACE_API=none
  run $round 2,3 full-serial full GPUWHY_TRACE_KERNEL_KIND=serial
done
