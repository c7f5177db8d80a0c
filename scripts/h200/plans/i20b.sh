#!/usr/bin/env bash
# Issue 20, second call on ONE H200 (at most 9 minutes): batch sizes, compile time per step, fixed-batch control, hook cost.
#  1. re-records the 18 single-GPU scenarios without a DataLoader with the hook (batch size and input shape
#     from the first module call), in priority order while a 120 s budget lasts: the first 5 (healthy,
#     small_batch, launch_tiny_ops, dynamic_shapes, sweep_bs256) always, the rest only if time allows
#  2. compile_dynamic with 4 lengths over 40 s (3 recompilations, then revisits): compile_ns, shapes,
#     compile/recompile events with dynamo's reasons, schedule_shape's evidence
#  3. gpuwhy experiment fixed-batch on healthy_dataloader (control: no significant change expected) and on
#     input_cpu_transforms (input-bound, 2x or more expected), side by side
#  4. the hook's cost: bench/tracer/hook_ab.py (paired A/B/A' blocks, pinned, median with bootstrap interval,
#     best-of-N, plain-vs-plain control) on train and storm_opt, and --micro
# usage: scripts/h200/run.sh i20b OUTDIR   (from the repo root; build-dev/gpuwhy prebuilt)
# Output under OUTDIR: i20b.log (everything), batch.txt, compile.txt, fixed_batch.txt, hook_cost.txt,
# recordings.tar.gz (the .db, .truth.json and reports of sections 1 and 2)
set -u
out=${1:?usage: i20b.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_i20b
rm -rf "$w" && mkdir -p "$w/rec"
rec=$w/rec
log=$out/i20b.log
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }
say() { echo "[$(date -u +%H:%M:%S) +$(elapsed)s] $*" | tee -a "$log"; }
export PYTHONUNBUFFERED=1 GPUWHY_BIN=$bin
say "host $(hostname) gpuwhy $bin; hook folder: $(ls -d build-dev/python/gpuwhy_hook 2>&1)"
python3 -c 'import torch; print("torch", torch.__version__)' >> "$log" 2>&1
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader >> "$log" 2>&1

# 1. The scenarios without a DataLoader (NULL batch sizes in tests/fixtures/hook_suite), plain record
# (no --trace: only the hook's steps are wanted), 6 s of steady state each.
budget1=${I20B_RERECORD_BUDGET_S:-120}
names="healthy small_batch launch_tiny_ops dynamic_shapes sweep_bs256 power_cap schedule_eval schedule_checkpoint
  schedule_logging launch_tiny_ops_syncs input_pageable_copies sweep_bs32 sweep_bs64 sweep_bs128 sweep_bs512
  sweep_bs1024 sweep_bs2048 hardware_xid"
n_done=0
for n in $names; do
  # the first 5 always, unless they alone ran past 170 s (then the rest of the plan comes first)
  if { [ "$n_done" -ge 5 ] && [ "$(elapsed)" -gt "$budget1" ]; } || [ "$(elapsed)" -gt 170 ]; then
    say "--- $n: skipped (re-record budget of ${budget1}s spent)"
    continue
  fi
  SCN_DURATION=6 SCN_TIMEOUT_EXTRA=45 timeout -k 5 60 bash scenarios/run_suite.sh "$bin" "$rec" "$n" >> "$log" 2>&1
  say "--- $n: rc=$? $(grep -E "^(OK|FAIL) +$n " "$rec/suite.log" 2>/dev/null | tail -1)"
  n_done=$((n_done + 1))
done
python3 scripts/h200/plans/i20b_check.py batch "$rec"/*.db > "$out/batch.txt" 2>&1
say "section 1 done: $n_done recorded; $(tail -1 "$out/batch.txt")"

# 2. compile_dynamic: 4 lengths (the warm-up compiles the first), so 3 recompilations of ~7 s each and then
# revisits; its own truth holds the first-visit steps.
say "--- compile_dynamic"
timeout -k 10 110 "$bin" record -q -o "$rec/compile_dynamic.db" --interval 100 -- python3 -u scenarios/compile_dynamic.py \
  --out "$rec/compile_dynamic.truth.json" --duration 40 --distinct 4 >> "$log" 2>&1
say "    rc=$?"
python3 scripts/h200/plans/i20b_check.py compile "$rec/compile_dynamic.db" > "$out/compile.txt" 2>&1
"$bin" report "$rec/compile_dynamic.db" >> "$out/compile.txt" 2>&1
say "section 2 done"

# 3. fixed-batch, the control beside the input-bound scenario; each run stopped after 25 s.
: > "$out/fixed_batch.txt"
for s in "healthy_dataloader healthy_dataloader.py" "input_cpu_transforms input_cpu_transforms.py"; do
  set -- $s
  if [ "$(elapsed)" -gt 400 ]; then
    echo "===== fixed-batch $1: skipped, out of time" >> "$out/fixed_batch.txt"
    continue
  fi
  say "--- fixed-batch $1"
  echo "===== fixed-batch $1" >> "$out/fixed_batch.txt"
  timeout -k 10 75 "$bin" experiment fixed-batch --seconds 25 -- python3 -u "scenarios/$2" \
    --out "$w/fb_$1.truth.json" --duration 120 >> "$out/fixed_batch.txt" 2>> "$log"
  echo "rc=$?" >> "$out/fixed_batch.txt"
done
say "section 3 done"

# 4. the hook's cost in one process (pinned by hook_ab.py itself to the last two CPUs).
hook_dir=$PWD/build-dev/python/gpuwhy_hook
[ -d "$hook_dir" ] || hook_dir=$PWD/tracer/python/gpuwhy_hook
: > "$out/hook_cost.txt"
left=$((520 - $(elapsed)))
train_s=60 opt_s=30
if [ "$left" -lt 120 ]; then train_s=$((left / 2 - 10)) opt_s=$((left / 4 - 10)); fi
say "--- hook cost: train ${train_s}s, storm_opt ${opt_s}s"
for wl in "train $train_s 10" "storm_opt $opt_s 20"; do
  set -- $wl
  [ "$2" -ge 10 ] || { echo "workload $1: no time left" >> "$out/hook_cost.txt"; continue; }
  echo "===== $1" >> "$out/hook_cost.txt"
  GPUWHY_PYTHON_HOOK_DIR=$hook_dir timeout -k 10 $(($2 + 60)) python3 bench/tracer/hook_ab.py --workload "$1" \
    --seconds "$2" --block "$3" >> "$out/hook_cost.txt" 2>> "$log"
  echo "rc=$?" >> "$out/hook_cost.txt"
done
echo "===== micro" >> "$out/hook_cost.txt"
GPUWHY_PYTHON_HOOK_DIR=$hook_dir timeout 60 python3 bench/tracer/hook_ab.py --micro >> "$out/hook_cost.txt" 2>> "$log"
say "section 4 done"

for db in "$rec"/*.db; do
  "$bin" report "$db" > "${db%.db}.report.txt" 2>&1
done
tar -C "$w" -czf "$out/recordings.tar.gz" rec >> "$log" 2>&1
say "all done in $(elapsed)s"
cat "$out/batch.txt" "$out/fixed_batch.txt" >> "$log"
