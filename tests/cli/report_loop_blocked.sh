#!/usr/bin/env bash
# A training loop that blocks in every step on a fetch of its own (no
# DataLoader: weak_spots_h100/ws_fetch_socket, batches from a socket,
# recorded on an H100) read without thread or stack samples, as an older
# recording has it: the hook's steps and the launching threads' CPU show
# both the GPU and the threads idle most of each step, and the input
# pipeline takes that time, at a modest confidence, with the recording that
# would decide named. A loop whose launching threads stay busy (oos_h200/
# oos_tiny_mlp, launch-bound) gets no such reading.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}"
variant() {
  python3 - "$GW_SOURCE_DIR/tests/accuracy" "$1" "$2" <<'PY' || fail "could not make the no_samples variant of $1"
import json, sys
sys.path.insert(0, sys.argv[1])
import accuracy
src, dst = sys.argv[2], sys.argv[3]
truth = json.load(open(src[:-3] + ".truth.json"))
assert accuracy.make_variant(src, dst, "no_samples", truth)
PY
}
blocked="$GW_FIXTURES/weak_spots_h100/ws_fetch_socket.db"
launching="$GW_FIXTURES/oos_h200/oos_tiny_mlp.db"
for f in "$blocked" "$launching"; do [ -s "$f" ] || fail "$f missing (unpacked at configure time)"; done
variant "$blocked" blocked.db
variant "$launching" launching.db
"$GW_BIN" report --format json blocked.db >blocked.json || fail "report exited $?"
"$GW_BIN" report --format json launching.db >launching.json || fail "report exited $?"
python3 - blocked.json launching.json <<'PY' || fail "the blocked loop is not read from its steps and CPU"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "input_pipeline", r["verdict"]
f = [x for x in r["findings"] if x["class"] == "input_pipeline"][0]
ev = {e["id"]: {v["name"]: v["value"] for v in e["values"]} for e in f["evidence"]}
b = ev.get("loop_blocks_each_step")
assert b, sorted(ev)
assert b["launch_cpu"] < 0.5 and b["gpu_idle_share"] > 0.5, b
assert f["confidence_raw"] < 0.7, f["confidence_raw"]
assert any(x["command"].startswith("gpuwhy record -o sampled.db") for x in r["experiments"]), r["experiments"]
other = json.load(open(sys.argv[2]))
for g in other["findings"]:
    assert all(e["id"] != "loop_blocks_each_step" for e in g["evidence"]), g["class"]
print("blocked: threads %.2f of a core, GPU idle %.0f%% of a step, input %.0f%% of the lost time" %
      (b["launch_cpu"], 100 * b["gpu_idle_share"], 100 * f["share_of_lost"]))
PY
echo "a loop blocked in every step reads as waiting for its input"
