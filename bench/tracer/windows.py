#!/usr/bin/env python3
"""Step time inside and outside the tracer's sampling windows, in one process.

usage: windows.py CHUNKS.txt RECORDING.db
CHUNKS.txt from storm.py --chunks-out (start_ns end_ns steps per line, time.time_ns);
RECORDING.db from gpuwhy record --trace=sampled (table trace_window, CUPTI's
CLOCK_REALTIME ns). A chunk that overlaps a window counts as inside. Prints
the mean ms per step inside and outside, and the duty cycle of the windows
over the chunks' span: sampled overhead = duty x (inside/outside - 1) plus
whatever the outside steps lose against a plain run."""
import sqlite3
import sys

chunks = [tuple(map(int, line.split())) for line in open(sys.argv[1]) if line.strip()]
con = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
wins = con.execute("select start_ns, end_ns from trace_window order by start_ns").fetchall()
lo, hi = chunks[0][0], chunks[-1][1]
inside = [0, 0]
outside = [0, 0]
for c0, c1, n in chunks:
    hit = any(w0 < c1 and w1 > c0 for w0, w1 in wins)
    acc = inside if hit else outside
    acc[0] += c1 - c0
    acc[1] += n
open_ns = sum(max(0, min(w1, hi) - max(w0, lo)) for w0, w1 in wins)
ms_in = inside[0] / inside[1] / 1e6 if inside[1] else float("nan")
ms_out = outside[0] / outside[1] / 1e6 if outside[1] else float("nan")
print(f"inside_ms_per_step {ms_in:.4f} outside_ms_per_step {ms_out:.4f} "
      f"inside_vs_outside {100 * (ms_in / ms_out - 1):+.1f}% windows {len(wins)} duty {100 * open_ns / (hi - lo):.2f}%")
