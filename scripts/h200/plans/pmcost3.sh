#!/usr/bin/env bash
# Issue 22 on one H200 (at most 8 minutes): what PM sampling itself costs, apart from CUPTI staying attached.
# On 2026-12-01 (session 9) `record --trace --pm-sampling` cost the transformer step +25% (95% interval +9..+41%)
# against `--trace`, but with PM sampling on the tracer keeps CUPTI attached between windows, and `keep` alone cost
# the same step +30% between windows that night. Five arms in rotated interleaved rounds, the transformer step of
# bench/tracer/storm.py (--workload train, 5 s a run), pinned to two cores, the tracer injected without the
# recorder (CUDA_INJECTION64_PATH, as pmcost2's part B):
#   plain        no tracer
#   trace        sampled windows, the default window end (detach_own)
#   trace_keep   sampled windows, CUPTI kept attached (GPUWHY_TRACE_WINDOW_END=keep)
#   trace_pm     sampled windows and PM sampling every 10 ms (the tracer keeps CUPTI attached)
#   pm_only      PM sampling every 10 ms, no activity windows (GPUWHY_TRACE_SAMPLED_KIND=none)
# bench/tracer/rounds.py then gives best-of-N and mean per arm against plain, and each arm's points above
# trace_keep: trace_pm's is PM sampling's own cost, the figure the 3% target is about.
# Files under OUT: rounds.txt (one line per run), summary.txt (rounds.py), log.txt.
# usage: scripts/h200/run.sh pmcost3 OUT   (from the repo root; build-dev prebuilt; no set -e)
set -u
. scripts/h200/lib/plan_start.sh
plan_start pmcost3 "${1:?usage: pmcost3.sh OUT}"
tracer=$PWD/${GW_TRACER:-build-dev/tracer/libgpuwhy-tracer.so}
res=$out/rounds.txt
: > "$res"
budget_s=${PMCOST3_BUDGET_S:-420}
pin="taskset -c ${GW_BENCH_CPUS:-2,3}"
command -v taskset > /dev/null || pin=""
say "tracer $tracer"
[ -f "$tracer" ] || say "warning: no tracer at $tracer (scripts/h200/build_dev.sh makes it)"

arms=(${PMCOST3_ARMS:-plain trace trace_keep trace_pm pm_only})
narms=${#arms[@]}
run_arm() { # round arm
  local tdir=/tmp/pmcost3_trace_$2_$1
  rm -rf "$tdir" && mkdir -p "$tdir"
  local py=(python3 bench/tracer/storm.py --workload train --seconds 5)
  # The sampler starts 1 s after CUDA (every PM arm alike), before the steady state storm.py measures.
  local inject=(env CUDA_INJECTION64_PATH="$tracer" GPUWHY_TRACE_DIR="$tdir" GPUWHY_TRACE_MODE=sampled
    GPUWHY_TRACE_PM_DELAY_MS=1000)
  case $2 in
    plain) $pin "${py[@]}" ;;
    trace) "${inject[@]}" $pin "${py[@]}" ;;
    trace_keep) "${inject[@]}" GPUWHY_TRACE_WINDOW_END=keep $pin "${py[@]}" ;;
    trace_pm) "${inject[@]}" GPUWHY_TRACE_PM_SAMPLING=1 $pin "${py[@]}" ;;
    pm_only) "${inject[@]}" GPUWHY_TRACE_PM_SAMPLING=1 GPUWHY_TRACE_SAMPLED_KIND=none $pin "${py[@]}" ;;
    pm_only_100ms) "${inject[@]}" GPUWHY_TRACE_PM_SAMPLING=1 GPUWHY_TRACE_PM_INTERVAL_MS=100 GPUWHY_TRACE_SAMPLED_KIND=none \
      $pin "${py[@]}" ;;
  esac 2>> "$log" | grep '^mean_ms_per_step ' | sed "s/^/round $1 train $2 /"
  # What the tracer said about PM sampling and its windows, so that a silent fail-open shows.
  grep -a -o -h 'PM sampling [a-z][^(]*' "$tdir"/trace-*.gwt 2> /dev/null | sort | uniq -c | sed "s/^/  $1 $2: /" >> "$log"
  rm -rf "$tdir"
}
round_s=0
for r in 1 2 3 4 5 6 7 8 9 10; do
  t_round=$(date +%s)
  left=$((budget_s - $(elapsed)))
  if { [ "$round_s" -gt 0 ] && [ "$left" -lt "$round_s" ]; } || [ "$left" -lt 40 ]; then
    say "stopped before round $r ($left s left, a round took $round_s s)"
    break
  fi
  for ((i = 0; i < narms; i++)); do # each arm takes each place in turn
    arm=${arms[$(((i + r - 1) % narms))]}
    timeout 60 bash -c "$(declare -f run_arm); tracer='$tracer' pin='$pin' log='$log'; run_arm $r $arm" >> "$res"
  done
  round_s=$(($(date +%s) - t_round))
  say "round $r took $round_s s"
done
python3 bench/tracer/rounds.py "$res" "${PMCOST3_FLOOR:-trace_keep}" > "$out/summary.txt" 2>&1
cat "$out/summary.txt" | tee -a "$log"
say "done"
