#!/usr/bin/env bash
# A busy thread beside the training loop holds Python's interpreter lock in
# two recordings: a metrics thread beside a loop whose data stays on the GPU
# (oos2_h100/oos_metrics_thread_gil_b, recorded on an H100, where the thread
# costs 90-98% of the throughput) and a decoding thread that makes the loop's
# batches (oos_h200/oos_gil_thread_decode). The loop that takes no batch from
# the host waits for a helper: schedule_shape, its fix moving the thread's
# work out. The loop that copies its batches in waits for its input.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
fixture_report_json oos2_h100/oos_metrics_thread_gil_b.db helper.json
fixture_report_json oos_h200/oos_gil_thread_decode.db decode.json
python3 - helper.json decode.json <<'PY' || fail "the helper's lock waits are not told from the input's"
import json, sys
def causes(path):
    r = json.load(open(path))
    a = [g["idle_attribution"] for g in r["gpus"] if g.get("idle_attribution")][0]
    return r, {x["cause"]: x for x in a["causes"]}
r, c = causes(sys.argv[1])
assert r["verdict"] == "schedule_shape", r["verdict"]
h = c.get("helper_lock_wait")
assert h and h["class"] == "schedule_shape" and h["share_of_idle"] >= 0.5, sorted(c)
assert "lock_wait" not in c, sorted(c)
f = [x for x in r["findings"] if x["class"] == "schedule_shape"][0]
assert "busy thread" in f["fixes"][0]["what"], f["fixes"][0]
d, dc = causes(sys.argv[2])
assert d["verdict"] == "input_pipeline", d["verdict"]
assert dc.get("lock_wait", {}).get("class") == "input_pipeline" and "helper_lock_wait" not in dc, sorted(dc)
print("helper: %.0f%% of the idle time; decoder: lock waits %.0f%%, input" %
      (100 * h["share_of_idle"], 100 * dc["lock_wait"]["share_of_idle"]))
PY
echo "a helper's lock waits are periodic work, a decoder's the input"
