#!/usr/bin/env python3
"""The stall a sampling window's edges cause on the program's thread, seen from the program's side.

usage: edge_stall.py RECORDING.db PROBE.txt [LABEL]
RECORDING.db from gpuwhy record --trace=sampled; PROBE.txt from storm.py --probe-out (time.time_ns, the same
CLOCK_REALTIME as the tracer's timestamps).

The tracer's own figure (trace_overhead rows of gpuwhy's kind 0x47570001, one per window) is the time a program
thread spent in the tracer's code; it cannot see a launch that waits inside CUDA while CUPTI works on another thread
(the detach on the tracer's thread, a flush, switching kinds). This script looks at the program's own timings
around each edge instead:
  end edge   from 2 ms before a window's end to 80 ms after (the close, the 20 ms settle, the flush and the detach)
  start edge from 2 ms before a window's start to 10 ms after (attaching again after a detach, kinds on)
  control    an 82 ms span in the middle of the gap after each window (no tracer work): the noise floor
Storm probe: the slowest single launch (tensor op) in the span, less the median op (from every 100th op); a span
where no op passed the probe's threshold counts as the threshold (an upper bound). Train probe: the slowest step's
host time in the span less the median step outside windows and edges. Prints count, p50, p99 and max in us of each,
then the tracer's own records (program-thread pause, tracer-thread edge work)."""
import sqlite3
import statistics
import sys

END_BEFORE_NS, END_AFTER_NS = 2_000_000, 80_000_000
START_BEFORE_NS, START_AFTER_NS = 2_000_000, 10_000_000
GW_PROGRAM_PAUSE, GW_TRACER_EDGE = 0x47570001, 0x47570002
MODES = {1: "detach_own", 2: "detach", 3: "quiet", 4: "keep"}


def pct(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, -(-p * len(s) // 100) - 1))  # nearest rank
    return s[int(k)]


def line(name, values_ns):
    us = [v / 1e3 for v in values_ns]
    top = max(us) if us else float("nan")
    return f"  {name:<48} n {len(us):3d}  p50 {pct(us, 50):9.1f} us  p99 {pct(us, 99):9.1f} us  max {top:9.1f} us"


db, probe_path = sys.argv[1], sys.argv[2]
label = sys.argv[3] if len(sys.argv) > 3 else db
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
wins = con.execute("select start_ns, end_ns from trace_window order by start_ns").fetchall()
try:
    own = con.execute("select overhead_kind, object_kind, start_ns, end_ns from trace_overhead "
                      "where overhead_kind in (?, ?)", (GW_PROGRAM_PAUSE, GW_TRACER_EDGE)).fetchall()
except sqlite3.Error:
    own = []

ops, steps, slow_ns = [], [], 0
try:
    f = open(probe_path)
except OSError as e:
    print(f"{label}: no probe file ({e})")
    sys.exit(0)
with f:
    for row in f:
        p = row.split()
        if p[0] == "ops":
            slow_ns = int(p[3])
        elif p[0] == "op":
            ops.append((int(p[1]), int(p[2])))
        elif p[0] == "step":
            steps.append((int(p[1]), int(p[2])))
events = sorted(ops or steps)
if not events or not wins:
    print(f"{label}: no probe events ({len(events)}) or no windows ({len(wins)})")
    sys.exit(0)

ends = [(e - END_BEFORE_NS, e + END_AFTER_NS) for _, e in wins]
starts = [(s - START_BEFORE_NS, s + START_AFTER_NS) for s, _ in wins]
controls = []
for i, (_, e) in enumerate(wins):
    nxt = wins[i + 1][0] if i + 1 < len(wins) else events[-1][0]
    mid = e + (nxt - e) // 2
    if mid - e > END_AFTER_NS and mid + END_BEFORE_NS + END_AFTER_NS < nxt - START_BEFORE_NS:
        controls.append((mid, mid + END_BEFORE_NS + END_AFTER_NS))


def busy(t0, t1):
    return any(a < t1 and b > t0 for a, b in ends + starts) or any(s < t1 and e > t0 for s, e in wins)


if ops:
    sampled = [d for t, d in ops if d <= slow_ns] or [d for _, d in ops]
    typical = statistics.median(sampled)
    what = f"storm: slowest launch in the span less the median launch ({typical / 1e3:.1f} us)"
else:
    typical = statistics.median([d for t, d in steps if not busy(t, t + d)] or [d for _, d in steps])
    what = f"train: slowest step's host time in the span less the median step ({typical / 1e6:.3f} ms)"


def stalls(spans):
    out = []
    for a, b in spans:
        inside = [d for t, d in events if t < b and t + d > a]
        if not inside:
            continue
        worst = max(inside)
        if ops and worst < slow_ns:
            worst = slow_ns  # nothing slower than the threshold was kept: an upper bound
        out.append(max(0, worst - typical))
    return out


print(f"{label}: {len(wins)} windows; {what}")
print(line("program side, window end", stalls(ends)))
print(line("program side, window start", stalls(starts)))
print(line("program side, control (mid-gap)", stalls(controls)))
for kind, name in ((GW_PROGRAM_PAUSE, "tracer record: program-thread pause"),
                   (GW_TRACER_EDGE, "tracer record: tracer-thread work")):
    rows = [r for r in own if r[0] == kind]
    modes = sorted({MODES.get(r[1], str(r[1])) for r in rows})
    print(line(f"{name} ({','.join(modes) or '-'})", [r[3] - r[2] for r in rows]))
