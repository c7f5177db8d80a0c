#!/usr/bin/env bash
# Issue 20's acceptance on every H200 recording made with the Python hook that
# has a truth file (tests/fixtures/hook_suite and tests/fixtures/scenarios_i21):
# the hook's optimizer steps inside the program's own steady-state window
# (truth started_ns..ended_ns) match the program's count of train steps within
# 1%, and the batch size the hook saw equals the program's.
#   - The count is the truth's steps of kind train, or its step_counts.train
#     where the per-step list was cut for size; with both, they must agree.
#   - A truth whose steps are not training steps (step_unit set: bursty_serving
#     serves batches with no optimizer and no DataLoader) must have no hook
#     steps at all: the hook never invents steps.
#   - Batch: every program that feeds a DataLoader or calls an nn.Module has
#     the truth's size in at least 99% of its steps (the same 1% as the
#     count). Only the programs with neither may have none: power_cap and
#     hardware_xid multiply raw parameter tensors, healthy_midpower_sfu runs
#     one jiterator kernel; there the batch cannot be seen without a code
#     change, and the hook leaves it unknown rather than guess.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
python3 - "$GW_FIXTURES/hook_suite" "$GW_FIXTURES/scenarios_i21" << 'PY' || fail "hook steps against the truth files"
import glob, json, os, sqlite3, sys
NO_BATCH_TO_SEE = {"power_cap", "hardware_xid", "healthy_midpower_sfu"}
bad = n = 0
for d in sys.argv[1:]:
    for db in sorted(glob.glob(os.path.join(d, "*.db"))):
        tpath = db[:-3] + ".truth.json"
        if not os.path.exists(tpath):
            continue
        t = json.load(open(tpath))
        name = os.path.relpath(db, os.path.dirname(d))
        counts = []
        if "steps" in t:
            counts.append(len([s for s in t["steps"] if s.get("kind", "train") == "train"]))
        if "train" in t.get("step_counts", {}):
            counts.append(t["step_counts"]["train"])
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        window = (t["started_ns"], t["ended_ns"])
        inside = con.execute("select count(*) from step where source = 'python_hook' and t_end_ns > ? and t_end_ns <= ?",
                             window).fetchone()[0]
        sizes = dict(con.execute("select batch_size, count(*) from step where source = 'python_hook' and t_end_ns > ? "
                                 "and t_end_ns <= ? and batch_size is not null group by batch_size", window).fetchall())
        known = sum(sizes.values())
        why = []
        if not counts or len(set(counts)) > 1:
            why.append(f"truth counts {counts}: none, or the list and step_counts disagree")
        elif t.get("step_unit"):
            if con.execute("select count(*) from step where source = 'python_hook'").fetchone()[0]:
                why.append("hook steps in a run without training steps")
        elif not (counts[0] > 0 and abs(inside - counts[0]) <= 0.01 * counts[0]):
            why.append(f"hook {inside} against truth {counts[0]}")
        stem = os.path.basename(db)[:-3]
        if known and sizes.get(t.get("batch_size"), 0) < 0.99 * known:
            why.append(f"batch sizes {sizes} against truth {t.get('batch_size')}")
        elif inside and not t.get("step_unit") and stem not in NO_BATCH_TO_SEE and known < 0.99 * inside:
            why.append(f"batch size known in {known} of {inside} steps")
        print(f"{name}: hook {inside} truth {counts[:1]} batch {sizes} truth batch {t.get('batch_size')}",
              "; ".join(why) or "ok")
        bad += bool(why)
        n += 1
# 24 in hook_suite, 12 in scenarios_i21: a folder gone or a truth lost fails too
print(f"{n} recordings, {bad} off")
sys.exit(1 if bad or n < 36 else 0)
PY
echo "ok"
