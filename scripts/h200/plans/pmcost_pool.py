#!/usr/bin/env python3
"""PM sampling's cost pooled over every paired round measured so far: pmcost3's rounds files (an arm against the
plain run of its round, whole runs) and pmcost4's rounds folders (the PM run against the plain run of its round,
over the span after the sampler started in the PM run, both cut at the same offset). One figure per round, in
percent; then the mean with its 95% t interval (bench/tracer/stats_ci.py) and the median.
usage: pmcost_pool.py [--arm pm_only_100ms] ROUNDS.txt... ROUNDS_DIR...   (ROUNDS_DIR: pmcost4's rounds/)"""
import argparse
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench", "tracer"))
from stats_ci import mean_ci  # noqa: E402


def pmcost3_rounds(path, arm):
    per_round = {}
    for line in open(path):
        p = line.split()
        if len(p) >= 6 and p[0] == "round" and p[4] == "mean_ms_per_step":
            per_round.setdefault(int(p[1]), {})[p[3]] = float(p[5])
    return [(v[arm] / v["plain"] - 1) * 100 for _, v in sorted(per_round.items()) if arm in v and "plain" in v]


def chunks(path):
    return [tuple(map(int, line.split())) for line in open(path) if len(line.split()) == 3]


def after_ms(rows, from_ns):
    inside = [(a, b, n) for a, b, n in rows if a >= from_ns]
    steps = sum(n for _, _, n in inside)
    return sum(b - a for a, b, _ in inside) / steps / 1e6 if steps >= 50 else None


def pmcost4_rounds(folder):
    out = []
    for pm_path in sorted(glob.glob(os.path.join(folder, "r*_pm.chunks"))):
        base = pm_path[:-len("_pm.chunks")]
        stamp = open(base + "_pm.stamp").read().strip() if os.path.exists(base + "_pm.stamp") else ""
        if not stamp or not os.path.exists(base + "_plain.chunks"):
            continue
        pm, plain = chunks(pm_path), chunks(base + "_plain.chunks")
        offset = int(stamp) + 500000000 - pm[0][0]  # the sampler's set-up half second left out, as pmcost4_summary
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
