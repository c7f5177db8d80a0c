#!/usr/bin/env python3
"""What the tracer's sampling windows cost at their edges, from a recording.

usage: edges.py RECORDING.db [LABEL]
Reads the tracer's NOTEs (table trace_note): one "window edges: open_ns=.. close_ns=.. flush_ns=..
program_thread_ns=.." per window, and the "stood aside" / "came back" notes. Prints the count, p50, p99 and max of
each edge figure in microseconds (program_thread: time a program thread spent on our behalf, the detach's
cuptiFinalize at the program's call; open, close, flush, detach: work on the tracer's own thread, detach being
cuptiFinalize there), then the coexistence notes. Notes from before detach_ns existed lack it (no values).
bench/tracer/edge_stall.py measures the same edges from the program's side."""
import re
import sqlite3
import sys


def pct(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    # nearest rank: the smallest value with at least p% of the values at or below it
    k = max(0, min(len(s) - 1, -(-p * len(s) // 100) - 1))
    return s[int(k)]


db = sys.argv[1]
label = sys.argv[2] if len(sys.argv) > 2 else db
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
try:
    notes = con.execute("select t_ns, level, text from trace_note order by t_ns").fetchall()
except sqlite3.Error as e:
    print(f"{label}: no trace notes ({e})")
    sys.exit(0)
fields = {"open_ns": [], "close_ns": [], "flush_ns": [], "detach_ns": [], "program_thread_ns": []}
for _, _, text in notes:
    if text.startswith("window edges:"):
        for k in fields:
            m = re.search(rf"\b{k}=(\d+)", text)
            if m:
                fields[k].append(int(m.group(1)))
n = len(fields["open_ns"])
print(f"{label}: {n} windows with edge notes")
for k, v in fields.items():
    us = [x / 1e3 for x in v]
    print(f"  {k[:-3]:<15} p50 {pct(us, 50):9.1f} us  p99 {pct(us, 99):9.1f} us  max {max(us) if us else float('nan'):9.1f} us")
for t, level, text in notes:
    if text.startswith(("stood aside", "came back", "still standing aside")):
        print(f"  note {t} {level}: {text}")
