#!/usr/bin/env bash
# GPU activity dips read as periodic work are bounded by the loop's own
# steps (the hook's step table): periodic work stalls the GPU by lengthening
# the steps it runs in, so the steps' time above their median is the most a
# schedule can have cost. numpy_prep (weak_spots_h100; its batches made in
# the loop) dips every 2.2 s while its steps stay within 4% of their median:
# without stack samples it gets no schedule_shape finding. ws_eval_respawn
# (an evaluation every 2 s) keeps its verdict, its share bounded, and says so.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}"
dir="$GW_FIXTURES/weak_spots_h100"
for f in oos_numpy_prep ws_eval_respawn; do
  [ -s "$dir/$f.db" ] || fail "$f.db missing (unpacked at configure time)"
done
python3 - "$GW_SOURCE_DIR/tests/accuracy" "$dir/oos_numpy_prep.db" numpy_prep_no_stacks.db <<'PY' || fail "could not make the no_stacks variant"
import json, sys
sys.path.insert(0, sys.argv[1])
import accuracy
src, dst = sys.argv[2], sys.argv[3]
assert accuracy.make_variant(src, dst, "no_stacks", json.load(open(src[:-3] + ".truth.json")))
PY
"$GW_BIN" report --format json numpy_prep_no_stacks.db >numpy_prep.json || fail "report of numpy_prep exited $?"
"$GW_BIN" report --format json "$dir/ws_eval_respawn.db" >eval_respawn.json || fail "report of ws_eval_respawn exited $?"
python3 - numpy_prep.json eval_respawn.json <<'PY' || fail "periodic dips are not bounded by the loop's steps"
import json, sys
prep, ev = (json.load(open(p)) for p in sys.argv[1:3])
assert prep["verdict"] == "input_pipeline", prep["verdict"]
assert "schedule_shape" not in [f["class"] for f in prep["findings"]], [f["class"] for f in prep["findings"]]
assert ev["verdict"] == "schedule_shape", ev["verdict"]
f = ev["findings"][0]
b = [e for e in f["evidence"] if e["id"] == "dip_time_bounded"]
assert b, [e["id"] for e in f["evidence"]]
v = {n["name"]: n["value"] for n in b[0]["values"]}
assert 0 < v["steps_excess"] < v["lost_share"], v
print("eval every 2 s: dips %.0f%% of active time, steps %.0f%% above their median" %
      (100 * v["lost_share"], 100 * v["steps_excess"]))
PY
echo "periodic dips are bounded by the loop's own steps"
