#!/usr/bin/env bash
# A loop that makes its batches in its own thread (a DataLoader with
# num_workers=0: oos2_h100/oos_collate_main, recorded on an H100) read from
# its thread samples alone, as a recording without the hook's stack samples
# has it: the thread runs through the GPU's idle time, which on its own
# reads as launching. The hook timed the loop inside the DataLoader, and
# thread samples inside those waits are the batch being made: the idle time
# goes to the input pipeline first, and the verdict with it.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}"
src="$GW_FIXTURES/oos2_h100/oos_collate_main.db"
[ -s "$src" ] || fail "oos_collate_main.db missing (unpacked at configure time)"
python3 - "$GW_SOURCE_DIR/tests/accuracy" "$src" no_stacks.db <<'PY' || fail "could not make the no_stacks variant"
import json, sys
sys.path.insert(0, sys.argv[1])
import accuracy
src, dst = sys.argv[2], sys.argv[3]
truth = json.load(open(src[:-3] + ".truth.json"))
assert accuracy.make_variant(src, dst, "no_stacks", truth)
PY
"$GW_BIN" report --format json no_stacks.db >no_stacks.json || fail "report exited $?"
python3 - no_stacks.json <<'PY' || fail "the loop's DataLoader waits are not read from its thread samples"
import json, sys
r = json.load(open(sys.argv[1]))
a = [g["idle_attribution"] for g in r["gpus"] if g.get("idle_attribution")][0]
assert a["source"] == "thread_samples", a["source"]
c = {x["cause"]: x for x in a["causes"]}
inline = c.get("data_inline")
assert inline and inline["class"] == "input_pipeline", sorted(c)
launching = c.get("host_running", {"share_of_idle": 0})
assert inline["share_of_idle"] >= 0.5 > launching["share_of_idle"], (inline["share_of_idle"], launching["share_of_idle"])
assert r["verdict"] == "input_pipeline", r["verdict"]
print("made in the loop %.0f%% of the idle time, running otherwise %.0f%%" %
      (100 * inline["share_of_idle"], 100 * launching["share_of_idle"]))
PY
echo "thread samples inside the loop's DataLoader waits read as making the batch"
