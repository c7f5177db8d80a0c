#!/usr/bin/env bash
# The launching threads' CPU (main thread + PyTorch's pt_autograd_N threads)
# on two H200 recordings that carry it (tests/fixtures/recorder_now):
# launch_tiny_ops, whose launching threads keep one core busy, stays
# launch_overhead; the healthy transformer with a helper thread at 90% of a
# core (it launches nothing) is not called launch-bound, says "unexplained"
# with the share, and names the busy non-launching threads as the suspect.
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
assert busy["verdict"] == "unexplained", busy["verdict"]
assert not any(f["class_id"] == "launch_overhead" for f in busy["findings"]), busy["findings"]
notes = [n for n in busy["notes"] if n.startswith("Threads of the training process that launch no kernels")]
assert len(notes) == 1 and "0.75 of a core" in notes[0] and "py-spy dump" in notes[0], busy["notes"]
assert not any("launch no kernels" in n for n in tiny["notes"]), tiny["notes"]
PY
echo "1 passed, 0 failed"
