#!/usr/bin/env bash
# The Python hook's steps in real H200 recordings (tests/fixtures/hook): inside
# each program's own steady-state window, the hook's optimizer steps match the
# program's count of train steps within 1%; both ranks of the torchrun job have
# steps; and the report shows them (Steps section, steps_by_process).
. "$(dirname "$0")/lib.bash"
dir=$GW_FIXTURES/hook
python3 - "$dir" << 'PY' || fail "hook steps against the truth files"
import json, sqlite3, sys
d = sys.argv[1]
bad = 0
for name in ("healthy", "small_batch", "launch_tiny_ops"):
    t = json.load(open(f"{d}/{name}.truth.json"))
    truth = len([s for s in t["steps"] if s.get("kind", "train") == "train"])
    con = sqlite3.connect(f"file:{d}/{name}.db?mode=ro", uri=True)
    inside = con.execute("select count(*) from step where source = 'python_hook' and t_end_ns > ? and t_end_ns <= ?",
                         (t["started_ns"], t["ended_ns"])).fetchone()[0]
    ok = truth > 0 and abs(inside - truth) <= 0.01 * truth
    print(f"{name}: hook {inside} truth {truth} {'ok' if ok else 'MISMATCH'}")
    bad += not ok
con = sqlite3.connect(f"file:{d}/ddp_tiny.db?mode=ro", uri=True)
ranks = dict(con.execute("select rank, count(*) from step where source = 'python_hook' group by rank").fetchall())
print(f"ddp_tiny: steps per rank {ranks}")
bad += not (set(ranks) == {0, 1} and min(ranks.values()) > 100)
sys.exit(1 if bad else 0)
PY
"$GW_BIN" report "$dir/ddp_tiny.db" > ddp.txt || fail "report of ddp_tiny failed"
grep -q "Steps (measured inside the program" ddp.txt || fail "no Steps section: $(cat ddp.txt)"
"$GW_BIN" report --format json "$dir/healthy.db" > h.json || fail "json report failed"
python3 -c '
import json, sys
p = json.load(open("h.json"))["steps_by_process"]
assert len(p) == 1 and p[0]["steps"] >= 266, p
' || fail "steps_by_process of healthy: $(python3 -c 'import json; print(json.load(open("h.json"))["steps_by_process"])')"
echo "ok"
