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
import statistics
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
# Whether a closed window leaves a cost: the median chunk before the first window against the median chunk
# outside the windows after it.
first = wins[0][0] if wins else hi
before = [(c1 - c0) / n / 1e6 for c0, c1, n in chunks if c1 <= first]
after = [(c1 - c0) / n / 1e6 for c0, c1, n in chunks
         if c0 >= first and not any(w0 < c1 and w1 > c0 for w0, w1 in wins)]
med_before = statistics.median(before) if before else float("nan")
med_after = statistics.median(after) if after else float("nan")
print(f"inside_ms_per_step {ms_in:.4f} outside_ms_per_step {ms_out:.4f} "
      f"inside_vs_outside {100 * (ms_in / ms_out - 1):+.1f}% windows {len(wins)} duty {100 * open_ns / (hi - lo):.2f}% "
      f"median_before_first {med_before:.4f} median_after_first_outside {med_after:.4f}")
