#!/usr/bin/env bash
# Steps decomposed (issue 34 item 4) on two H100 recordings whose truth
# files list every step with its kind: a synchronous checkpoint about every
# 1.5 s (ws_checkpoint_short) and an eval pass about every 2 s with a loader
# respawned for it (ws_eval_respawn). The hook's step table holds the
# training steps only (the checkpoint or eval runs inside one of them), so
# the spacing is the training steps between two of the truth's other-kind
# entries. The report's recurring slow steps must have that spacing, name
# the activity, and reach the schedule_shape finding as evidence.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
DIR=$GW_FIXTURES/weak_spots_h100
for case in ws_checkpoint_short:checkpoint ws_eval_respawn:eval; do
  name=${case%%:*}
  activity=${case##*:}
  [ -f "$DIR/$name.db" ] || fail "$DIR/$name.db missing (unpacked from its .db.xz at configure)"
  "$GW_BIN" report --format json "$DIR/$name.db" > "$name.json" || fail "$name: report --format json exited $?"
  "$GW_BIN" report "$DIR/$name.db" > "$name.txt" || fail "$name: report exited $?"
  python3 - "$name.json" "$DIR/$name.truth.json" "$activity" <<'PY' || fail "$name: steps_breakdown wrong"
import json, statistics, sys
rep, truth, activity = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
marks = [s["i"] for s in truth["steps"] if s["kind"] != "train"]
# training steps from one mark to the next: the mark sits inside a hook step
spacing = statistics.median(b - a - 1 for a, b in zip(marks, marks[1:]))
b = rep["steps_breakdown"]
r = b["slow_recurring"]
assert r is not None, b
assert abs(r["period_steps"] - spacing) <= 1, (r["period_steps"], spacing)
assert r["activity"] == activity, r
# every mark of the steady span is one occurrence (the first may fall in warm-up)
assert len(marks) - 1 <= r["count"] <= len(marks), (r["count"], marks)
assert r["frame"], r
ev = [e for f in rep["findings"] if f["class"] == "schedule_shape" for e in f["evidence"]]
assert any(e["id"] == "periodic_slow_steps" for e in ev), ev
print(f"{sys.argv[1]}: every {r['period_steps']} steps (truth {spacing:.0f}), {r['count']} times, {r['activity']}")
PY
  grep -q "^Steps decomposed" "$name.txt" || fail "$name: no Steps decomposed section"
  grep -q "slow steps recur every" "$name.txt" || fail "$name: no recurring slow steps in text"
done
echo "steps breakdown ok"
