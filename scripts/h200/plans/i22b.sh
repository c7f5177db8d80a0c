#!/usr/bin/env bash
# Issue 22 on ONE H200 (at most 9 minutes): both SM-activity substitutes against GPM on every single-GPU scenario.
# Each scenario once under `record --trace=full --pm-sampling` with GPM on (scenarios/run_suite.sh with
# SCN_RECORD_OPTS, 8 s of steady state), so that one recording holds, for the same seconds, GPM's SM activity, the
# kernels' launch configurations (the launch_config estimate) and CUPTI PM sampling; then scripts/h200/sm_compare.py
# per GPM window: median absolute difference and bias of each substitute against GPM (target: at most 10 points),
# with each report's verdict. Scenarios in the order of the issue's weak spots while a 450 s budget lasts.
# usage: scripts/h200/run.sh i22b OUTDIR   (from the repo root; build-dev prebuilt; no set -e)
# Output under OUTDIR: i22b.log (from run.sh), sm_compare.txt (each recording's line, then its busy-window and
# GPM-lag figures), sm_compare.json, runs.txt, recordings.tar.gz (reports and the recordings under I22B_PACK_MB,
# 14 MB by default).
set -u
. scripts/h200/lib/plan_start.sh
plan_start i22b "${1:?usage: i22b.sh OUTDIR}"
export GPUWHY_TRACER_LIB=$PWD/build-dev/tracer/libgpuwhy-tracer.so
rec=$w/rec
mkdir -p "$rec"
budget=${I22B_BUDGET_S:-450}
names="${I22B_NAMES:-small_batch sweep_bs512 sweep_bs128 healthy input_slow_read launch_tiny_ops sweep_bs2048 input_cpu_transforms
  worked_case_s1 attention_lowocc healthy_midpower dynamic_shapes schedule_eval power_cap sweep_bs32 sweep_bs256
  sweep_bs1024 input_pageable_copies launch_tiny_ops_syncs schedule_checkpoint schedule_logging worked_case_s0
  worked_case_s2 worked_case_s3 sweep_bs64}"
: > "$out/runs.txt"
for n in $names; do
  if [ "$(elapsed)" -gt "$budget" ]; then
    echo "$n skipped: budget of ${budget}s spent" >> "$out/runs.txt"
    continue
  fi
  SCN_DURATION=8 SCN_TIMEOUT_EXTRA=40 SCN_RECORD_OPTS="${I22B_RECORD_OPTS:---trace=full --pm-sampling}" timeout -k 5 60 \
    bash scenarios/run_suite.sh "$bin" "$rec" "$n" > "$w/suite_$n.log" 2>&1
  rc=$?
  echo "$n rc=$rc at $(elapsed)s $(grep -E "^(OK|FAIL) +$n " "$rec/suite.log" 2>/dev/null | tail -1)" >> "$out/runs.txt"
  say "--- $n: rc=$rc"
done
python3 scripts/h200/sm_compare.py --gpuwhy "$bin" --json "$out/sm_compare.json" "$rec"/*.db > "$out/sm_compare.txt" 2>&1
plan_pack_recordings rec "${I22B_PACK_MB:-14}"
cat "$out/runs.txt" "$out/sm_compare.txt"
say "all done"
