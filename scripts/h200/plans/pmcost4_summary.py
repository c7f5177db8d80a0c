#!/usr/bin/env python3
"""pmcost4's figure: PM sampling's running cost from inside each run (difference in differences).

Between runs the H200 host's speed drifts far more than the cost sought (pmcost3: a run's best 10-step chunk went
from 7.1 to 12.2 ms on the same build), so comparing runs cannot resolve 3%. Here PM sampling starts partway through
each PM run; each run's step time after that moment is divided by its own step time before it, and the plain run of
the same round is cut at the same offset from its first chunk. The cost is the PM run's ratio over the plain run's,
minus one, averaged over rounds with a 95% t interval. The half second after the start (the sampler's set-up) and the
0.2 s before it are left out of both phases.
usage: pmcost4_summary.py DIR   (DIR/r<R>_<arm>.chunks and .stamp, as pmcost4.sh writes them)"""
import glob
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench", "tracer"))
from stats_ci import mean_ci  # noqa: E402

# The 0.2 s before the sampler's start and the half second after it (its set-up) belong to neither phase.
GAP_BEFORE_NS = 200_000_000
GAP_AFTER_NS = 500_000_000


def chunks_of(path):
    rows = []
    for line in open(path):
        p = line.split()
        if len(p) == 3:
            rows.append((int(p[0]), int(p[1]), int(p[2])))
    return rows


def step_ms(rows, lo_ns, hi_ns):
    """Mean step time of the chunks lying wholly inside [lo_ns, hi_ns)."""
    inside = [(a, b, n) for a, b, n in rows if a >= lo_ns and b < hi_ns]
    steps = sum(n for _, _, n in inside)
    return (sum(b - a for a, b, _ in inside) / steps / 1e6, steps) if steps else (float("nan"), 0)


def load_runs(folder):
    """{(round, arm): (chunks, the PM start's wall time or 0)} from pmcost4.sh's files."""
    runs = {}
    for path in glob.glob(os.path.join(folder, "r*_*.chunks")):
        m = re.match(r"r(\d+)_(\w+)\.chunks$", os.path.basename(path))
        if m:
            stamp_path = path[:-len(".chunks")] + ".stamp"
            stamp = open(stamp_path).read().strip() if os.path.exists(stamp_path) else ""
            runs[(int(m.group(1)), m.group(2))] = (chunks_of(path), int(stamp) if stamp else 0)
    return runs


def main(folder):
    runs = load_runs(folder)
    diffs, whole, offsets = [], [], []
    print("round  pm_start_s  plain_before plain_after  pm_before   pm_after  (ms/step)  pm_ratio/plain_ratio-1")
    for r in sorted({k[0] for k in runs}):
        if (r, "plain") not in runs or (r, "pm") not in runs:
            continue
        plain, _ = runs[(r, "plain")]
        pm, t_pm = runs[(r, "pm")]
        if not plain or not pm or not t_pm:
            print("%5d  no PM start or no chunks: left out" % r)
            continue
        offset = t_pm - pm[0][0]
        offsets.append(offset / 1e9)
        cuts = {}
        for arm, rows in (("plain", plain), ("pm", pm)):
            split = rows[0][0] + offset
            before = step_ms(rows, rows[0][0], split - GAP_BEFORE_NS)
            after = step_ms(rows, split + GAP_AFTER_NS, rows[-1][1] + 1)
            cuts[arm] = (before, after)
        (pb, _), (pa, _) = cuts["plain"]
        (mb, nb), (ma, na) = cuts["pm"]
        if min(nb, na) < 50 or any(math.isnan(x) for x in (pb, pa, mb, ma)):
            print("%5d  a phase has under 50 steps: left out" % r)
            continue
        d = (ma / mb) / (pa / pb) - 1
        diffs.append(d * 100)
        whole.append((step_ms(pm, 0, 1 << 62)[0] / step_ms(plain, 0, 1 << 62)[0] - 1) * 100)
        print("%5d  %10.2f  %12.3f %11.3f  %9.3f  %9.3f            %+6.2f%%" % (r, offset / 1e9, pb, pa, mb, ma, d * 100))
    if diffs:
        m, h = mean_ci(diffs)
        print("PM sampling's running cost, inside each run against the plain run of its round: %+.2f%% +- %.2f "
              "(95%% t interval, n %d); median %+.2f%%; PM started %.1f-%.1f s into the measured span"
              % (m, h, len(diffs), statistics.median(diffs), min(offsets), max(offsets)))
        m2, h2 = mean_ci(whole)
        print("whole runs compared across processes (the noisy way, for reference): %+.2f%% +- %.2f (n %d)"
              % (m2, h2, len(whole)))
    else:
        print("no round with both runs measured")


if __name__ == "__main__":
    main(sys.argv[1])
