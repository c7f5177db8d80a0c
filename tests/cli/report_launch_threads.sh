#!/usr/bin/env bash
# The launching threads' CPU (main thread + PyTorch's pt_autograd_N threads)
# on two H200 recordings that carry it (tests/fixtures/recorder_now):
# launch_tiny_ops, whose launching threads keep one core busy, stays
# launch_overhead; the healthy transformer with a helper thread at 90% of a
# core (it launches nothing; its steps were 18% slower than without it) is
# not called launch-bound: its finding is the helper's (schedule_shape), with
# the busy non-launching threads' core and the idle share they can explain,
# and moving the thread's work out of the process as the first fix.
. "$(dirname "$0")/lib.bash"
dir=$GW_FIXTURES/recorder_now
# median DB COLUMN: over the target's samples where the launching threads were measured
median() {
  q "$1" "select $2 from proc_sample where role = 0 and launch_threads_cpu_pct is not null order by $2
          limit 1 offset (select count(*) / 2 from proc_sample where role = 0 and launch_threads_cpu_pct is not null)"
}
tiny=$dir/launch_tiny_ops_threads.db busy=$dir/logging_thread_busy_threads.db
assert_ge "launching threads measured (launch_tiny_ops)" \
  "$(q "$tiny" 'select count(launch_threads_cpu_pct) from proc_sample where role = 0')" 8
assert_ge "launching threads near a core (launch_tiny_ops)" "$(median "$tiny" launch_threads_cpu_pct)" 90
# the autograd thread launches the backward kernels: the main thread alone reads far less
awk -v m="$(median "$tiny" main_thread_cpu_pct)" 'BEGIN { exit !(m < 60) }' ||
  fail "main thread alone near a core in launch_tiny_ops: $(median "$tiny" main_thread_cpu_pct)"
"$GW_BIN" report --format json "$tiny" > tiny.json || fail "report exited $?"
"$GW_BIN" report --format json "$busy" > busy.json || fail "report exited $?"
python3 - tiny.json busy.json <<'PY' || fail "verdicts on the launching-thread recordings"
import json, sys
tiny, busy = (json.load(open(p)) for p in sys.argv[1:])
assert tiny["verdict"] == "launch_overhead", tiny["verdict"]
assert busy["verdict"] == "schedule_shape", busy["verdict"]
assert not any(f["class"] == "launch_overhead" for f in busy["findings"]), busy["findings"]
top = busy["findings"][0]
helper = [e for e in top["evidence"] if e["id"] == "helper_threads_busy"]
assert len(helper) == 1, top["evidence"]
values = {v["name"]: v["value"] for v in helper[0]["values"]}
assert abs(values["core"] - 0.75) < 0.01 and values["idle_share"] <= values["core"], values
assert "py-spy dump" in top["fixes"][0]["what"], top["fixes"]
# launch-bound: the launching threads run their own work, no helper evidence
assert not any(e["id"] == "helper_threads_busy" for f in tiny["findings"] for e in f["evidence"]), tiny["findings"]
PY
echo "1 passed, 0 failed"
