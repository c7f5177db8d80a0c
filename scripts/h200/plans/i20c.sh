#!/usr/bin/env bash
# Issue 20, third call on ONE H200 (at most 9 minutes): the two defects of the second call, fixed on branch s9a.
#  1. batch size from the training forward (and, while 150 s last, the other scenarios i20b had no time for):
#     schedule_eval (an evaluation pass under torch.no_grad inside a
#     step recorded one step as 2048x1024 against the truth's 8192), power_cap (no nn.Module, no DataLoader:
#     its batch size must stay unknown, and the report must say so) and healthy (control), 6 s each
#  2. gpuwhy experiment fixed-batch measures steady steps: input_cpu_transforms (its DataLoader workers took
#     13.5 s to start; the ratio was 9.40x with the interval 1.42x..17.65x), input_slow_read (input-bound, 2x or
#     more expected) and healthy_dataloader (control: no significant change), --seconds 20 of steady steps per
#     run, --max-seconds 70
# usage: scripts/h200/run.sh i20c OUTDIR   (from the repo root; build-dev/gpuwhy prebuilt)
# Output under OUTDIR: log.txt (everything), i20c.log (run.sh's copy of stdout), batch.txt, reports.txt, fixed_batch.txt, recordings.tar.gz
# What it should show: batch.txt: schedule_eval "batch 8192..8192 ... truth 8192: ok" and one shape
# (8192x1024); power_cap "batch None..None" (its truth's 8192 is the scenario's own figure, which the hook
# cannot see: MISMATCH there is the honest answer); reports.txt: power_cap's step table with "batch size
# unknown" and batch_size null in its JSON. fixed_batch.txt: each run's line "(N steady steps in S s after W
# warm-up steps ...)" with S >= 20; input_cpu_transforms and input_slow_read "Input-bound" with an interval
# whose low end is above 2x and far narrower than 1.42x..17.65x; healthy_dataloader "Not input-bound".
set -u
. scripts/h200/lib/plan_start.sh
plan_start i20c "${1:?usage: i20c.sh OUTDIR}"
rec=$w/rec
mkdir -p "$rec"

# 1. batch sizes: plain record through the suite runner (its truth file beside each recording), 6 s each;
# after the first three, the scenarios i20b had no time for, while a 150 s budget lasts (copy them into
# tests/fixtures/hook_suite).
plan_record_scenarios "$rec" "${I20C_RERECORD_BUDGET_S:-150}" schedule_eval power_cap healthy schedule_checkpoint \
  schedule_logging launch_tiny_ops_syncs input_pageable_copies sweep_bs512 sweep_bs128 sweep_bs32 sweep_bs64 \
  sweep_bs1024 sweep_bs2048 hardware_xid
python3 scripts/h200/plans/i20b_check.py batch "$rec"/*.db > "$out/batch.txt" 2>&1
: > "$out/reports.txt"
for n in schedule_eval power_cap; do
  [ -f "$rec/$n.db" ] || continue
  { echo "===== $n"; "$bin" report "$rec/$n.db" 2>&1 | sed -n '/^Steps/,/^$/p'
    "$bin" report --format json "$rec/$n.db" 2>&1 |
      python3 -c 'import json,sys; print("steps_by_process", json.load(sys.stdin)["steps_by_process"])' 2>&1
  } >> "$out/reports.txt"
done
say "section 1 done: $(tail -1 "$out/batch.txt")"

# 2. fixed-batch, the control beside the two input-bound scenarios; each run ends after 20 s of steady steps
# (70 s at most); the scenarios' own --duration is longer, so the experiment is what stops them.
: > "$out/fixed_batch.txt"
for s in input_cpu_transforms input_slow_read healthy_dataloader; do
  extra=""
  [ "$s" = input_slow_read ] && extra="--write-seconds 8"  # its data file is written at each run's start
  if [ "$(elapsed)" -gt 380 ]; then
    echo "===== fixed-batch $s: skipped, out of time" >> "$out/fixed_batch.txt"
    continue
  fi
  say "--- fixed-batch $s"
  echo "===== fixed-batch $s" >> "$out/fixed_batch.txt"
  t0=$(date +%s)
  timeout -k 10 150 "$bin" experiment fixed-batch --seconds 20 --max-seconds 70 -- python3 -u "scenarios/$s.py" \
    --out "$w/fb_$s.truth.json" --duration 300 $extra >> "$out/fixed_batch.txt" 2>> "$log"
  echo "rc=$? wall=$(($(date +%s) - t0))s" >> "$out/fixed_batch.txt"
done
say "section 2 done"

plan_pack_recordings rec
say "all done in $(elapsed)s"
cat "$out/batch.txt" "$out/reports.txt" "$out/fixed_batch.txt" >> "$log"
