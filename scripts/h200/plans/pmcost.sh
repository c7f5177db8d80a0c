#!/usr/bin/env bash
# Issue 22 on one H200 (about 90 s): CUPTI PM sampling in the tracer after the
# driver-symbol fix: bench/tracer/storm.py (train) under record --trace
# --pm-sampling (GPUWHY_ALLOW_PM_SAMPLING=1 lifts record's refusal), its
# pm_sample rows against GPM, and two interleaved rounds of plain, --trace and
# --trace --pm-sampling (5 s each) for the cost.
# usage: scripts/h200/run.sh pmcost OUT
set -u
out=${1:?usage: pmcost.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$PWD/build-dev/gpuwhy
export GPUWHY_TRACER_LIB=$PWD/build-dev/tracer/libgpuwhy-tracer.so GPUWHY_ALLOW_PM_SAMPLING=1
py=(python3 bench/tracer/storm.py --workload train --seconds 5)
for r in 1 2; do
  for cfg in plain trace trace_pm; do
    rm -f "$out/c.db"*
    case $cfg in
      plain) line=$(timeout 40 "${py[@]}" 2>&1 | tail -1) ;;
      trace) line=$(timeout 40 "$bin" record -q --trace -o "$out/c.db" -- "${py[@]}" 2>&1 | tail -1) ;;
      trace_pm) line=$(timeout 40 "$bin" record -q --trace --pm-sampling -o "$out/c.db" -- "${py[@]}" 2>&1 | tail -1)
        echo "round $r notes: $(python3 scripts/dbq.py "$out/c.db" "select level || ': ' || text from trace_note where text like '%PM%'" 2>&1 | tr '\n' ' ')"
        echo "round $r pm_sample rows, mean active/elapsed: $(python3 scripts/dbq.py "$out/c.db" 'select count(*), avg(sm_cycles_active_avg / sm_cycles_elapsed_avg) from pm_sample' 2>&1)"
        echo "round $r GPM SM activity mean: $(python3 scripts/dbq.py "$out/c.db" 'select avg(sm_active_pct) from gpu_sample where sm_active_pct is not null' 2>&1)"
        cp "$out/c.db" "$out/pm_round$r.db" 2>/dev/null ;;
    esac
    echo "round $r $cfg $line"
  done
done
python3 scripts/h200/sm_compare.py --json "$out/sm_compare.json" "$out"/pm_round*.db 2>&1
rm -f "$out/c.db"*
