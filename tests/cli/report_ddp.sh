#!/usr/bin/env bash
# The multi-GPU analysis on the real 2-GPU recordings (tests/fixtures/
# scenarios/ddp_*): the straggler named by GPU and NCCL rank with its cause
# (rank 1 had 40% more samples), no multi-GPU finding on the balanced pair,
# communication on top of the communication-heavy one, and the transport
# read from NCCL's own log lines in the recording (NVLink P2P on this pair).
. "$(dirname "$0")/lib.bash"
S=$GW_FIXTURES/scenarios
for m in balanced straggler comm_heavy grad_accum; do
  "$GW_BIN" report --format json "$S/ddp_$m.db" > "$m.json" || fail "report on ddp_$m exited $?"
done
py() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }
assert_eq "straggler GPU" "$(py straggler.json 'd["multi_gpu"]["straggler_gpu"]')" 1
assert_eq "straggler rank" "$(py straggler.json 'd["multi_gpu"]["straggler_rank"]')" 1
assert_eq "straggler cause" "$(py straggler.json 'd["multi_gpu"]["straggler_cause"]')" more_work
assert_eq "straggler verdict" "$(py straggler.json 'd["verdict"]')" multi_gpu_sync
assert_eq "balanced: no multi-GPU finding" \
  "$(py balanced.json '"multi_gpu_sync" in [f["class"] for f in d["findings"]]')" False
assert_eq "balanced: no straggler" "$(py balanced.json 'd["multi_gpu"]["straggler_gpu"]')" None
assert_eq "comm-heavy verdict" "$(py comm_heavy.json 'd["verdict"]')" multi_gpu_sync
# Gradient accumulation hides most of the communication of the same model.
ch=$(py comm_heavy.json 'round(100 * d["multi_gpu"]["exposed_comm_share"])')
ga=$(py grad_accum.json 'round(100 * d["multi_gpu"]["exposed_comm_share"])')
assert_ge "exposed communication: comm-heavy ($ch%) over twice grad-accum ($ga%)" "$ch" "$((2 * ga))"
for m in balanced straggler comm_heavy grad_accum; do
  assert_eq "$m: transport" "$(py $m.json '",".join(sorted(d["multi_gpu"]["nccl"]["connections"]))')" "P2P/CUMEM"
done
"$GW_BIN" report "$S/ddp_straggler.db" > straggler.txt
grep -q "Straggler (\*): GPU 1: more compute per step" straggler.txt || fail "text report does not name the straggler"
echo "report_ddp: passed"
