#!/usr/bin/env bash
# A thread of the training process that decodes batches in pure Python
# (oos_gil_thread_decode, recorded on an H100 and on an H200: README of
# tests/fixtures/weak_spots_h100 and oos_h200) holds the interpreter lock:
# the training thread's stack sits in its copy or its optimizer step while
# its thread samples have it asleep on a lock and that thread running. The
# idle time goes to that wait, charged to the input pipeline, with the fix
# that moves the thread's work into processes first; the busy-helper clause
# adds no schedule_shape beside it. A thread-pool prefetcher whose threads
# sleep out a store's latency (ws_loader_latency_threads) holds no lock: its
# waits stay waits for the next batch.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
for f in weak_spots_h100/oos_gil_thread_decode oos_h200/oos_gil_thread_decode weak_spots_h100/ws_loader_latency_threads; do
  [ -s "$GW_FIXTURES/$f.db" ] || fail "$f.db missing (unpacked at configure time)"
  "$GW_BIN" report --format json "$GW_FIXTURES/$f.db" >"$(basename "$(dirname "$f")")_$(basename "$f").json" ||
    fail "report of $f exited $?"
done
python3 - weak_spots_h100_oos_gil_thread_decode.json oos_h200_oos_gil_thread_decode.json \
  weak_spots_h100_ws_loader_latency_threads.json <<'PY' || fail "the interpreter lock wait is not measured as it should be"
import json, sys
h100, h200, pool = (json.load(open(p)) for p in sys.argv[1:4])
def causes(r):
    return {c["cause"]: c for g in r["gpus"] if g.get("idle_attribution") for c in g["idle_attribution"]["causes"]}
for name, r in (("H100", h100), ("H200", h200)):
    c = causes(r)
    lock = c.get("lock_wait")
    assert lock and lock["class"] == "input_pipeline", (name, lock)
    # the largest cause, with the user's line in the training loop
    assert lock["seconds"] == max(x["seconds"] for x in c.values()), (name, sorted(c))
    assert lock["share_of_idle"] >= 0.5, (name, lock["share_of_idle"])
    assert any("gil_thread_decode.py:" in t["frame"] for t in lock["top_frames"]), lock["top_frames"]
    assert r["verdict"] == "input_pipeline", (name, r["verdict"])
    f = r["findings"][0]
    assert "interpreter lock" in f["fixes"][0]["why"], (name, f["fixes"])
    assert not [g for g in r["findings"] if g["class"] == "schedule_shape"], (name, [g["class"] for g in r["findings"]])
c = causes(pool)
assert "lock_wait" not in c, c.get("lock_wait")
assert c["data_wait"]["share_of_idle"] >= 0.8, c["data_wait"]
print("lock wait: H100 %.0f%%, H200 %.0f%% of the idle time" % tuple(
    100 * causes(r)["lock_wait"]["share_of_idle"] for r in (h100, h200)))
PY
echo "the interpreter lock wait is charged to the input pipeline"
