#!/bin/bash
# Each scenario's ground truth fits its recording: the steps lie inside the
# recorded time range, in order, the expected classes are known ids, and a
# relabelled truth says why.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
dir="$GW_FIXTURES/scenarios"
# the class ids the binary knows: the first word of each class line of `explain`
ids=$("$GW_BIN" explain 2>/dev/null | grep -oE '^[a-z]+_[a-z_]+' | sort -u | tr '\n' ' ' || true)
python3 - "$dir" "$ids" <<'PY' || fail "ground truth inconsistent with the recordings"
import glob, json, os, sqlite3, sys
d, ids = sys.argv[1], sys.argv[2].split()
known = {"input_pipeline", "small_batch", "launch_overhead", "multi_gpu_sync", "hardware_env", "schedule_shape"}
if set(ids) != known:
    errors_ids = "explain lists %s, expected the six design ids" % sorted(ids)
    print(errors_ids)
    sys.exit(1)
known.add("none")
kinds = {"train", "eval", "checkpoint", "log"}
errors = []
dbs = sorted(glob.glob(os.path.join(d, "*.db")))
if not dbs:
    errors.append("no recordings in " + d)
for db in dbs:
    name = os.path.basename(db)[:-3]
    tp = os.path.join(d, name + ".truth.json")
    if not os.path.exists(tp):
        errors.append(name + ": no truth file")
        continue
    t = json.load(open(tp))
    e = lambda msg: errors.append("%s: %s" % (name, msg))
    if t.get("scenario") != name:
        e("scenario field %r" % t.get("scenario"))
    if t.get("expected_class") not in known:
        e("unknown expected_class %r" % t.get("expected_class"))
    classes = t.get("expected_classes", [])
    if not classes or t.get("expected_class") not in classes:
        e("expected_class not among expected_classes")
    for c in classes:
        if c not in known:
            e("unknown class %r" % c)
    if "author_expected_class" in t and not t.get("label_rule"):
        e("relabelled without a label_rule")
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    lo, hi = con.execute("SELECT min(t_ns), max(t_ns) FROM gpu_sample").fetchone()
    r0, r1 = con.execute("SELECT started_ns, ended_ns FROM run").fetchone()
    con.close()
    lo = min(x for x in (lo, r0) if x is not None)
    hi = max(x for x in (hi, r1) if x is not None)
    steps = t.get("steps", [])
    if len(steps) < 2:
        e("fewer than 2 steps")
    prev_end = None
    for s in steps:
        if s.get("kind") not in kinds:
            e("step %s: kind %r" % (s.get("i"), s.get("kind")))
        if not (lo <= s["start_ns"] < s["end_ns"] <= hi):
            e("step %s outside the recording [%d, %d]" % (s.get("i"), lo, hi))
            break
        if prev_end is not None and s["start_ns"] < prev_end:
            e("step %s starts before the previous one ended" % s.get("i"))
            break
        prev_end = s["end_ns"]
for m in errors:
    print(m)
print("%d recordings checked, %d problems" % (len(dbs), len(errors)))
sys.exit(1 if errors else 0)
PY
