#!/usr/bin/env python3
"""PM sampling's cost pooled over every paired round measured so far: pmcost3's rounds files (an arm against the
plain run of its round, whole runs) and pmcost4's rounds folders (the PM run against the plain run of its round,
over the span after the sampler started in the PM run, both cut at the same offset). One figure per round, in
percent; then the mean with its 95% t interval (bench/tracer/stats_ci.py) and the median.
usage: pmcost_pool.py [--arm pm_only_100ms] ROUNDS.txt... ROUNDS_DIR...   (ROUNDS_DIR: pmcost4's rounds/)"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench", "tracer"))
from stats_ci import mean_ci  # noqa: E402
from pmcost4_summary import GAP_AFTER_NS, load_runs, step_ms  # noqa: E402  (beside this file)


def pmcost3_rounds(path, arm):
    per_round = {}
    for line in open(path):
        p = line.split()
        if len(p) >= 6 and p[0] == "round" and p[4] == "mean_ms_per_step":
            per_round.setdefault(int(p[1]), {})[p[3]] = float(p[5])
    return [(v[arm] / v["plain"] - 1) * 100 for _, v in sorted(per_round.items()) if arm in v and "plain" in v]


def after_ms(rows, from_ns):
    ms, steps = step_ms(rows, from_ns, rows[-1][1] + 1)
    return ms if steps >= 50 else None


def pmcost4_rounds(folder):
    out = []
    runs = load_runs(folder)
    for (r, arm), (pm, t_pm) in sorted(runs.items()):
        if arm != "pm" or not t_pm or not pm or not runs.get((r, "plain"), ([], 0))[0]:
            continue
        plain = runs[(r, "plain")][0]
        offset = t_pm + GAP_AFTER_NS - pm[0][0]  # the sampler's set-up left out, as pmcost4_summary
        a, b = after_ms(pm, pm[0][0] + offset), after_ms(plain, plain[0][0] + offset)
        if a and b and offset > 0:
            out.append((a / b - 1) * 100)
    return out


ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--arm", default="pm_only_100ms", help="the PM arm in pmcost3's rounds files")
ap.add_argument("sources", nargs="+")
a = ap.parse_args()
pooled = []
for src in a.sources:
    vals = pmcost4_rounds(src) if os.path.isdir(src) else pmcost3_rounds(src, a.arm)
    pooled += vals
    if vals:
        print("%-70s n %2d  mean %+6.2f%%  median %+6.2f%%" % (src[-70:], len(vals), statistics.fmean(vals),
                                                              statistics.median(vals)))
if len(pooled) >= 2:
    m, half = mean_ci(pooled)
    print("pooled: n %d, mean %+.2f%% +- %.2f (95%%), median %+.2f%%, sd %.2f" % (
        len(pooled), m, half, statistics.median(pooled), statistics.stdev(pooled)))
