#!/usr/bin/env python3
"""Pools the rounds of several pystack_cost.py --blocks runs (their --rounds-out files, one per process: e.g. one
process per pair of cores on a 16-core host, each pinned with taskset) into one figure per rate: the median round
with its distribution-free 95% interval, and the paired cost (the mean of the rounds' differences over the mean off
step, with its t interval), over all rounds. Rounds are paired inside a process, so processes with different step
times pool as they are: each round's difference is in its own process's milliseconds.

usage: pystack_pool.py ROUNDS.tsv [ROUNDS.tsv ...]   (a file may hold several runs' rows, each with its header)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pystack_cost import paired_cost  # noqa: E402
from stats_ci import median_ci  # noqa: E402


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pct, on, off = {}, {}, []
    for path in sys.argv[1:]:
        with open(path) as f:
            head = None
            for line in f:
                v = line.rstrip("\n").split("\t")
                if v[0] == "round":
                    head = v
                    continue
                if head is None or len(v) != len(head) or "off_ms" not in head:
                    sys.exit("%s: a row before its header, or a file from an older pystack_cost.py (no off_ms)" % path)
                row = dict(zip(head, v))
                off.append(float(row["off_ms"]))
                for name in head:
                    if name.startswith("pct_"):
                        hz = name[4:]
                        pct.setdefault(hz, []).append(float(row[name]))
                        on.setdefault(hz, []).append(float(row["on_%s_ms" % hz]))
    for hz in sorted(pct, key=lambda k: int(k.split("_")[0])):
        med, lo, hi = median_ci(pct[hz])
        d, dh, m_off = paired_cost(on[hz], off)
        print("%s  rounds %d  median_round_pct %+.3f ci95 %+.3f %+.3f  paired_cost_pct %+.3f ci95 %+.3f %+.3f" % (
            hz, len(off), med, lo, hi, 100 * d / m_off, 100 * (d - dh) / m_off, 100 * (d + dh) / m_off))


if __name__ == "__main__":
    main()
