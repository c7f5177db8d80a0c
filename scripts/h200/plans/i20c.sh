#!/usr/bin/env bash
# Issue 20, third call on ONE H200 (at most 9 minutes): the rest of the re-records, fixed-batch on the input scenarios.
#  1. re-records with the hook the 12 single-GPU scenarios i20b had no time for (schedule_eval again, with the
#     batch size now taken from a forward pass that records gradients), 6 s of steady state each, in this order
#     while a 260 s budget lasts; scripts/h200/plans/i20b_check.py then sets each step table against its truth
#     (steps inside the truth window, batch size)
#  2. gpuwhy experiment fixed-batch on input_slow_read and input_cpu_transforms (input-bound: 2x or more expected),
#     each run measuring steady steps after its warm-up
# usage: scripts/h200/run.sh i20c OUTDIR   (from the repo root; build-dev prebuilt; no set -e)
# Output under OUTDIR: i20c.log (from run.sh), batch.txt, fixed_batch.txt, recordings.tar.gz
set -u
out=${1:?usage: i20c.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_i20c
rm -rf "$w" && mkdir -p "$w/rec"
rec=$w/rec
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }
say() { echo "[$(date -u +%H:%M:%S) +$(elapsed)s] $*"; }
export PYTHONUNBUFFERED=1 GPUWHY_BIN=$bin
say "host $(hostname) gpuwhy $bin; $(python3 -c 'import torch; print("torch", torch.__version__)' 2>&1)"

budget1=${I20C_RERECORD_BUDGET_S:-260}
names="schedule_eval schedule_checkpoint schedule_logging launch_tiny_ops_syncs input_pageable_copies sweep_bs32
  sweep_bs64 sweep_bs128 sweep_bs512 sweep_bs1024 sweep_bs2048 hardware_xid"
n_done=0
for n in $names; do
  if [ "$(elapsed)" -gt "$budget1" ]; then
    say "--- $n: skipped (re-record budget of ${budget1}s spent)"
    continue
  fi
  SCN_DURATION=6 SCN_TIMEOUT_EXTRA=45 timeout -k 5 60 bash scenarios/run_suite.sh "$bin" "$rec" "$n" > "$w/suite_$n.log" 2>&1
  say "--- $n: rc=$? $(grep -E "^(OK|FAIL) +$n " "$rec/suite.log" 2>/dev/null | tail -1)"
  n_done=$((n_done + 1))
done
python3 scripts/h200/plans/i20b_check.py batch "$rec"/*.db > "$out/batch.txt" 2>&1
say "section 1 done: $n_done recorded; $(tail -1 "$out/batch.txt")"

: > "$out/fixed_batch.txt"
for s in "input_slow_read input_slow_read.py" "input_cpu_transforms input_cpu_transforms.py"; do
  set -- $s
  if [ "$(elapsed)" -gt 430 ]; then
    echo "===== fixed-batch $1: skipped, out of time" >> "$out/fixed_batch.txt"
    continue
  fi
  say "--- fixed-batch $1"
  echo "===== fixed-batch $1" >> "$out/fixed_batch.txt"
  timeout -k 10 90 "$bin" experiment fixed-batch --seconds 20 -- python3 -u "scenarios/$2" \
    --out "$w/fb_$1.truth.json" --duration 120 >> "$out/fixed_batch.txt" 2>&1
  echo "rc=$?" >> "$out/fixed_batch.txt"
done
say "section 2 done"

for db in "$rec"/*.db; do
  "$bin" report "$db" > "${db%.db}.report.txt" 2>&1
done
tar -C "$w" -czf "$out/recordings.tar.gz" rec >/dev/null 2>&1
cat "$out/batch.txt" "$out/fixed_batch.txt"
say "all done in $(elapsed)s"
