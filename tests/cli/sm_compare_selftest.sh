#!/usr/bin/env bash
# scripts/h200/sm_compare.py, which compares SM activity substitutes with GPM
# on the H200, mirrors the occupancy arithmetic of lib/analysis/sm_fill.c: its
# self-test checks it gives the figures tests/unit/test_sm_fill.c asserts, and
# it reads a recording (a real H200 fixture) without failing; and its busy-window
# and GPM-lag figures find a lag built into a recording of known activity.
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || {
  echo "SKIP: no python3"
  exit 77
}
script=$GW_SOURCE_DIR/scripts/h200/sm_compare.py
python3 "$script" --selftest | grep -q "6 of 6 agree" || fail "sm_compare.py arithmetic differs from sm_fill.c"
out=$(python3 "$script" --gpuwhy "$GW_BIN" "$GW_FIXTURES/scenarios/small_batch.db") || fail "sm_compare.py failed"
echo "$out" | grep -q "small_batch.db .* gpm .*small_batch" || fail "unexpected comparison line: $out"
# A GPU busy at 88% of its SM cycles for 1.0-2.35 s and 4.61-7.0 s (the shape of
# schedule_checkpoint's checkpoint gap on the H200), PM sampling every 10 ms on
# time, GPM every 1 s describing the second that ended 150 ms before its stamp:
# the idle seconds agree by construction, the busy ones differ as stamped, and
# the lag search must find -150 ms and agreement there.
python3 - lag.db <<'PY' || fail "could not build the lag recording"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""CREATE TABLE gpu (gpu INTEGER);
CREATE TABLE gpu_sample (t_ns INTEGER, gpu INTEGER, sm_active_pct REAL);
CREATE TABLE pm_sample (device INTEGER, start_ns INTEGER, end_ns INTEGER, sm_cycles_active_avg REAL,
                        sm_cycles_elapsed_avg REAL);
INSERT INTO gpu VALUES (0);""")
MS = 1000000
busy = [(1000 * MS, 2350 * MS), (4610 * MS, 7000 * MS)]
def active_share(a, b):  # share of [a, b) the GPU was busy, times 0.88
    return 0.88 * sum(max(0, min(b, y) - max(a, x)) for x, y in busy) / (b - a)
for t in range(0, 9000 * MS, 10 * MS):
    db.execute("INSERT INTO pm_sample VALUES (0, ?, ?, ?, 1000.0)", (t, t + 10 * MS, 1000.0 * active_share(t, t + 10 * MS)))
for k in range(10):
    t = k * 1000 * MS
    db.execute("INSERT INTO gpu_sample VALUES (?, 0, ?)", (t, 100.0 * active_share(t - 1150 * MS, t - 150 * MS)))
db.commit()
PY
lag=$(python3 "$script" lag.db) || fail "sm_compare.py failed on the lag recording"
echo "$lag" | grep -q "GPM lag -150 ms (from pm_sampling): launch config - pts, PM sampling 0.0 pts" ||
  fail "the built-in lag of 150 ms not found: $lag"
busy=$(echo "$lag" | sed -n 's/.*PM sampling \([0-9.]*\) pts (\([0-9]*\)).*/\1 \2/p')
read -r busy_mad busy_n <<<"$busy"
[ "$busy_n" = 6 ] || fail "busy windows: want the 6 seconds with work, got '$busy_n': $lag"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 5 else 1)" "$busy_mad" ||
  fail "as stamped, the busy windows should differ by more than 5 points: $lag"
echo "2 passed, 0 failed"
