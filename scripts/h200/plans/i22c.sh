#!/usr/bin/env bash
# Issues 21 and 22 on ONE H200 (at most 9 minutes): what session 10 left open, in one call.
#  1. shared_gpu (issue 21's "second process on the GPU", as a fixture): the healthy transformer under
#     `record --trace` with scenarios/gpu_neighbour.py (bf16 GEMMs at 50% duty, 4 GiB) started beside it, not
#     under it; truth hardware_env. Copy shared_gpu.db and .truth.json into tests/fixtures/scenarios_i21.
#  2. PM sampling alone (`record --pm-sampling`, no activity window, 100 ms samples) against GPM on eight
#     scenarios across the range of SM activity (scripts/h200/sm_compare.py): session 10 measured the agreement
#     with 10 ms samples under --trace=full only.
#  3. the three schedule_* scenarios under `--trace=full --pm-sampling` again, their recordings brought back
#     (session 10's were over the 16 MiB a returned file may be): the launch-configuration estimate read 10.6
#     points from GPM on schedule_eval, the one scenario over 10.
#  4. the cost of PM sampling alone, plain against pm_only_100ms, while the budget lasts (session 10: 6 rounds,
#     intervals 10 points wide).
# usage: scripts/h200/run.sh i22c OUT   (from the repo root; build-dev prebuilt; no set -e)
# Output under OUT (at most 8 files): summary.txt, log.txt, results.tar.gz (each part's text output),
# recordings.tar.gz (shared_gpu and the schedule_* recordings, each under 5 MB).
set -u
. scripts/h200/lib/plan_start.sh
plan_start i22c "${1:?usage: i22c.sh OUT}"
export GPUWHY_TRACER_LIB=$PWD/build-dev/tracer/libgpuwhy-tracer.so
budget=${I22C_BUDGET_S:-500}
mkdir -p "$w/rec" "$w/parts"

# 1. shared GPU
python3 -u scenarios/gpu_neighbour.py --duration 30 --duty 0.5 --mem-gib 4 > "$w/parts/neighbour.log" 2>&1 &
npid=$!
sleep 5
say "--- shared_gpu (neighbour pid $npid)"
timeout -k 5 80 "$bin" record --trace --interval 100 -o "$w/rec/shared_gpu.db" -- python3 -u scenarios/healthy.py \
  --out "$w/rec/shared_gpu.truth.json" --duration 14 --scenario-name shared_gpu --expected-class hardware_env \
  --description-extra "Another process (scenarios/gpu_neighbour.py, pid $npid, bf16 GEMMs at 50% duty, 4 GiB) ran on the same GPU throughout, started outside the recorded job." \
  > "$w/parts/shared_gpu.log" 2>&1
say "shared_gpu: exit $?"
kill "$npid" 2> /dev/null
wait "$npid" 2> /dev/null

# 2. PM sampling alone against GPM
I22B_NAMES="small_batch healthy sweep_bs32 sweep_bs512 schedule_eval input_slow_read launch_tiny_ops attention_lowocc" \
  I22B_RECORD_OPTS="--pm-sampling" I22B_BUDGET_S=170 I22B_PACK_MB=0 bash scripts/h200/plans/i22b.sh "$w/parts/pm_alone" \
  > /dev/null 2>&1
say "pm alone: $(grep -c rc=0 "$w/parts/pm_alone/runs.txt" 2>/dev/null) runs"

# 3. the schedule_* scenarios with the full trace, recordings kept
I22B_NAMES="schedule_eval schedule_checkpoint schedule_logging" I22B_BUDGET_S=90 I22B_PACK_MB=0 \
  bash scripts/h200/plans/i22b.sh "$w/parts/schedule_full" > /dev/null 2>&1
cp /tmp/gw_i22b/rec/schedule_*.db /tmp/gw_i22b/rec/schedule_*.truth.json "$w/rec/" 2> /dev/null
say "schedule full: $(grep -c rc=0 "$w/parts/schedule_full/runs.txt" 2>/dev/null) runs"

# 4. PM sampling's cost alone, while the budget lasts
left=$((budget - $(elapsed)))
if [ "$left" -gt 80 ]; then
  PMCOST3_ARMS="plain pm_only_100ms" PMCOST3_FLOOR=plain PMCOST3_BUDGET_S=$((left - 20)) \
    bash scripts/h200/plans/pmcost3.sh "$w/parts/pmcost" > /dev/null 2>&1
fi
say "pm cost done"

{
  echo "== shared_gpu"; "$bin" report "$w/rec/shared_gpu.db" 2>&1 | sed -n '1,3p;/^Findings/,/^Reading/p;/^Notes/,$p'
  echo "== PM sampling alone against GPM"; cat "$w/parts/pm_alone/sm_compare.txt" 2>&1
  echo "== schedule_* under --trace=full --pm-sampling"; cat "$w/parts/schedule_full/sm_compare.txt" 2>&1
  echo "== PM sampling's cost alone"; cat "$w/parts/pmcost/summary.txt" 2>&1
} > "$out/summary.txt"
(cd "$w" && find rec -type f ! \( -name '*.db' -size +5M \) -print0 | tar --null -czf "$out/recordings.tar.gz" -T -) >> "$log" 2>&1
(cd "$w" && tar -czf "$out/results.tar.gz" parts) >> "$log" 2>&1
cat "$out/summary.txt"
say "all done"
