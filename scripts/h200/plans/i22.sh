#!/usr/bin/env bash
# Issue 22 on one H200 (at most 9 minutes): SM activity substitutes against GPM.
#  A. every single-GPU scenario recorded once with --trace=full and GPM on, so
#     one recording holds GPM's SM activity and the kernels' launch
#     configurations (with the DEVICE records) for the same seconds;
#  B. four of them again with --no-gpm --trace (sampled, the default): the
#     verdict without GPM, to set beside A's with GPM;
#  P. three scenarios with --trace --pm-sampling and GPM on: CUPTI PM
#     sampling against GPM (and what CUDA 13 returns: the trace_note rows);
#  K. the cost of PM sampling on bench/tracer's transformer step, interleaved
#     rounds of --trace against --trace --pm-sampling (and plain);
#  C. scripts/h200/sm_compare.py over all of them: per scenario the median
#     absolute difference per GPM window between each substitute (launch-config
#     estimate, PM sampling) and GPM, the bias, and each report's verdict and
#     sm_activity_source.
# usage: scripts/h200/plans/i22.sh OUTDIR   (from the repo root; no set -e)
set -u
out=${1:?usage: i22.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=${GW_BIN:-build-dev/gpuwhy}
tracer=${GW_TRACER:-build-dev/tracer/libgpuwhy-tracer.so}
log=$out/i22.log
recs=$out/recordings
mkdir -p "$recs" /tmp/gpuwhy_scn
: > "$log"
# The H200 image has no sqlite3 shell: the same queries through Python.
command -v sqlite3 > /dev/null || sqlite3() { python3 scripts/dbq.py "$@"; }
say() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$log"; }
export GPUWHY_TRACER_LIB=$PWD/$tracer
say "gpuwhy $($bin --version 2>&1 | head -1); tracer $GPUWHY_TRACER_LIB"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv >> "$log" 2>&1

# name|scenario script and its arguments (scenarios/run_suite.sh), 15 s of steady state each
scenarios=(
  "healthy|healthy.py"
  "small_batch|small_batch.py --batch-size 4"
  "input_cpu_transforms|input_cpu_transforms.py"
  "launch_tiny_ops|launch_overhead.py"
  "power_cap|power_cap.py"
  "schedule_eval|schedule_eval.py"
  "dynamic_shapes|dynamic_shapes.py"
  "sweep_bs64|small_batch.py --sweep --batch-size 64"
  "sweep_bs1024|small_batch.py --sweep --batch-size 1024"
)
if [ -n "${I22_SCENARIOS:-}" ]; then # a subset by name, for a shorter call
  kept=()
  for line in "${scenarios[@]}"; do case " $I22_SCENARIOS " in *" ${line%%|*} "*) kept+=("$line") ;; esac; done
  scenarios=("${kept[@]}")
fi
nogpm="small_batch input_cpu_transforms launch_tiny_ops"
pmsampled="healthy small_batch launch_tiny_ops"

start_s=$(date +%s)
budget_s=${I22_BUDGET_S:-400} # runs start only before this; the comparison and the tar need the rest of the 9 minutes

run_one() { # run_one NAME TAG SCRIPT ARGS... -- RECORD_OPTIONS...
  local name=$1 tag=$2 script=$3
  if [ $(( $(date +%s) - start_s )) -gt $budget_s ]; then
    say "--- $name $tag: skipped, out of time"
    return
  fi
  shift 3
  local args=() ropts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  ropts=("$@")
  local db=$recs/$name.$tag.db
  rm -f "$db"*
  say "--- $name $tag: record ${ropts[*]} -- $script ${args[*]}"
  local t0=$(date +%s)
  # 15 s of steady state, 8-10 s of start-up and warm-up measured in the suite logs
  timeout -k 5 55 "$bin" record -q -o "$db" "${ropts[@]}" -- python3 -u "scenarios/$script" \
    --out "$recs/$name.$tag.truth.json" --duration 15 --scenario-name "$name" --expected-class none "${args[@]}" \
    >> "$log" 2>&1
  say "    exit $? after $(( $(date +%s) - t0 )) s; kernels $(sqlite3 "$db" 'select count(*) from kernel' 2>&1)," \
    "devices $(sqlite3 "$db" 'select count(*) from trace_device' 2>&1)," \
    "GPM windows $(sqlite3 "$db" 'select count(sm_active_pct) from gpu_sample' 2>&1)"
}

for line in "${scenarios[@]}"; do
  name=${line%%|*}
  cmd=${line#*|}
  # shellcheck disable=SC2086
  run_one "$name" full_gpm $cmd -- --trace=full
done

for line in "${scenarios[@]}"; do
  name=${line%%|*}
  cmd=${line#*|}
  case " $pmsampled " in *" $name "*) ;; *) continue ;; esac
  # shellcheck disable=SC2086
  run_one "$name" pm_gpm $cmd -- --trace --pm-sampling
done

say "=== PM sampling cost: bench/tracer/storm.py --workload train, 5 s each, interleaved"
for r in 1 2 3; do
  [ $(( $(date +%s) - start_s )) -gt $(( budget_s + 40 )) ] && { say "cost rounds stopped: out of time"; break; }
  for cfg in plain trace trace_pm; do
    py=(python3 bench/tracer/storm.py --workload train --seconds 5)
    case $cfg in
      plain) line=$(timeout 40 "${py[@]}" 2>> "$log" | tail -1) ;;
      trace) line=$(timeout 40 "$bin" record -q --trace -o "$out/cost.db" -- "${py[@]}" 2>> "$log" | tail -1) ;;
      trace_pm) line=$(timeout 40 "$bin" record -q --trace --pm-sampling -o "$out/cost.db" -- "${py[@]}" 2>> "$log" | tail -1)
        echo "round $r notes: $(sqlite3 "$out/cost.db" 'select level, text from trace_note' 2>&1 | tr '\n' ' ')" >> "$out/pm_cost.txt"
        echo "round $r pm_sample rows: $(sqlite3 "$out/cost.db" 'select count(*), avg(sm_cycles_active_avg / sm_cycles_elapsed_avg) from pm_sample' 2>&1)" >> "$out/pm_cost.txt" ;;
    esac
    echo "round $r $cfg $line" | tee -a "$out/pm_cost.txt" >> "$log"
    rm -rf "$out/cost.db"*
  done
done

for line in "${scenarios[@]}"; do
  name=${line%%|*}
  cmd=${line#*|}
  case " $nogpm " in *" $name "*) ;; *) continue ;; esac
  # shellcheck disable=SC2086
  run_one "$name" nogpm_sampled $cmd -- --no-gpm --trace
done

say "=== comparison"
python3 scripts/h200/sm_compare.py --gpuwhy "$bin" --json "$out/sm_compare.json" "$recs"/*.db \
  > "$out/sm_compare.txt" 2>&1
cat "$out/sm_compare.txt" >> "$log"
say "=== trace_device rows and tracer notes (what CUPTI 13 gave)"
for db in "$recs"/*.full_gpm.db; do
  echo "$(basename "$db"): $(sqlite3 "$db" 'select * from trace_device limit 2' 2>&1)" >> "$out/trace_device.txt"
done
for db in "$recs"/*.pm_gpm.db; do
  echo "$(basename "$db"): $(sqlite3 "$db" "select count(*) from pm_sample; select level || ': ' || text from trace_note" 2>&1 | tr '\n' ' ')" >> "$out/trace_device.txt"
done
for db in "$recs"/*.db; do
  "$bin" report --format json "$db" > "${db%.db}.report.json" 2>> "$log"
done
# full traces of launch-bound runs hold millions of kernels: only recordings under 40 MB travel back
(cd "$out" && find recordings -type f \( -name '*.json' -o \( -name '*.db' -size -40M \) \) -print0 |
  tar --null -czf "$out/recordings.tar.gz" -T -) >> "$log" 2>&1 && rm -rf "$recs"
say "done; files: $(ls "$out" | tr '\n' ' ')"
