#!/usr/bin/env python3
"""Full mode's cost from interleaved rounds: best-of-N and mean per arm, each with a 95% interval.

usage: rounds.py RESULTS.txt [FLOOR_ARM]
RESULTS.txt lines: "round R WORKLOAD ARM mean_ms_per_step X best_ms_per_step Y steps N" (0179f52:scripts/h200/plans/i23b.sh).
For each workload and arm:
  best-of-N   the best 10-step chunk over all rounds, against plain's best-of-N
  mean        the mean over rounds of the run's mean step time, with a 95% t interval over rounds
  vs plain    the mean over rounds of (arm / that round's plain - 1), with its 95% t interval: pairing each run
              with the plain run of its own round takes out the machine's drift between rounds
Then the points each arm sits above FLOOR_ARM (default full_kernels: kernel records only) on the same paired
basis, which is the storm's acceptance figure (at most 5 points)."""
import collections
import sys

from stats_ci import mean_ci  # beside this file

path = sys.argv[1]
floor = sys.argv[2] if len(sys.argv) > 2 else "full_kernels"
mean = collections.defaultdict(dict)  # (workload, arm) -> {round: mean ms}
best = collections.defaultdict(dict)
arms = []
for row in open(path):
    p = row.split()
    if len(p) < 10 or p[0] != "round" or p[4] != "mean_ms_per_step" or p[6] != "best_ms_per_step":
        continue
    r, w, arm = int(p[1]), p[2], p[3]
    mean[(w, arm)][r] = float(p[5])
    best[(w, arm)][r] = float(p[7])
    if arm not in arms:
        arms.append(arm)

for w in sorted({w for w, _ in mean}):
    plain = mean.get((w, "plain"), {})
    plain_best = min(best[(w, "plain")].values()) if (w, "plain") in best else float("nan")
    rounds_done = max((len(v) for (ww, _), v in mean.items() if ww == w), default=0)
    print(f"{w}: {rounds_done} rounds")
    rel_by_arm = {}
    for arm in arms:
        if (w, arm) not in mean:
            continue
        runs = mean[(w, arm)]
        m, h = mean_ci(list(runs.values()))
        bon = min(best[(w, arm)].values())
        rel = [100 * (runs[r] / plain[r] - 1) for r in runs if r in plain]
        rel_by_arm[arm] = {r: 100 * (runs[r] / plain[r] - 1) for r in runs if r in plain}
        text = f"  {arm:<14} best-of-N {bon:7.3f} ms"
        if arm != "plain":
            text += f" ({100 * (bon / plain_best - 1):+6.1f}%)"
        else:
            text += " " * 10
        text += f"   mean {m:7.3f} ms +- {h:.3f}"
        if arm != "plain" and rel:
            rm, rh = mean_ci(rel)
            text += f"   vs plain per round {rm:+6.1f}% +- {rh:.1f}  (n {len(rel)})"
        print(text)
    if floor in rel_by_arm:
        for arm in arms:
            if arm in ("plain", floor) or arm not in rel_by_arm:
                continue
            diff = [rel_by_arm[arm][r] - rel_by_arm[floor][r] for r in rel_by_arm[arm] if r in rel_by_arm[floor]]
            if diff:
                dm, dh = mean_ci(diff)
                print(f"  {arm:<14} above {floor}: {dm:+.1f} +- {dh:.1f} points (paired by round, n {len(diff)})")
