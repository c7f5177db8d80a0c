#!/usr/bin/env python3
"""Summary of scripts/h200/plans/pmcost2.sh: exits, cost, agreement with GPM.

Reads OUT/exits.txt, OUT/cost.txt and OUT/sm_compare.json as the plan writes
them and prints three verdicts:
  exits      every run expected clean exited 0 with no heap or signal message
             on stderr, and its "PM sampling stopped" note says Stop, Disable
             and host deinitialise returned 0; the runs with the first
             versions' exit steps are listed apart (they are the control);
  cost       per round the steady-state step time (chunks that start 2.5 s
             or more after the first: the plan starts PM sampling 1 s after CUDA's)
             with and without PM sampling, the paired ratio's mean with a 95%
             interval (Student's t), its median, and best-of-N; target <= 3%;
  agreement  per recording the median absolute difference between PM
             sampling's and GPM's SM activity per GPM window; target <= 10.
Standard library only. usage: pmcost2_summary.py OUT   |   pmcost2_summary.py --selftest
"""
import json
import math
import os
import statistics
import sys

STEADY_AFTER_NS = 2_500_000_000  # the sampler starts 1 s after CUDA (plan B), the first chunk later still
COST_TARGET_PCT = 3.0
AGREEMENT_TARGET_PTS = 10.0
# Two-sided 95% Student's t for 1..30 degrees of freedom.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
       2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def read_lines(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def exits(lines):
    """[(name, expect, rc, problems, pm_rows, stopped_note)] from exits.txt."""
    runs = []
    for line in lines:
        if line.startswith("RUN\t"):
            f = line.split("\t")
            runs.append([f[1], f[2], f[3], f[4], f[5] if len(f) > 5 else "-", ""])
        elif runs and "PM sampling stopped" in line and not runs[-1][5]:
            runs[-1][5] = line[line.index("PM sampling stopped"):]
    return runs


def clean(run):
    name, expect, rc, problems, rows, stopped = run
    return rc == "0" and problems == "0" and "Stop 0, Disable 0, host deinitialise 0" in stopped


def steady_ms(chunks):
    """Mean ms per step over the chunks that start STEADY_AFTER_NS after the first."""
    if not chunks:
        return None
    t0 = min(c[0] for c in chunks)
    kept = [c for c in chunks if c[0] - t0 >= STEADY_AFTER_NS]
    steps = sum(c[2] for c in kept)
    return sum(c[1] - c[0] for c in kept) / steps / 1e6 if steps else None


def cost(lines):
    """{round: {cfg: steady ms}} from the CHUNK lines of cost.txt."""
    chunks = {}
    for line in lines:
        if not line.startswith("CHUNK "):
            continue
        f = line.split()
        try:
            r, cfg = int(f[1].split("=")[1]), f[2].split("=")[1]
            chunks.setdefault(r, {}).setdefault(cfg, []).append((int(f[3]), int(f[4]), int(f[5])))
        except (IndexError, ValueError):
            continue
    return {r: {cfg: steady_ms(c) for cfg, c in by.items()} for r, by in chunks.items()}


def ratio_stats(per_round):
    """Paired cost in percent: (n, mean, half-width of the 95% interval, median, best-of-N cost)."""
    pairs = [(v["trace"], v["trace_pm"]) for v in per_round.values()
             if v.get("trace") and v.get("trace_pm")]
    if not pairs:
        return None
    pct = [100.0 * (pm / tr - 1.0) for tr, pm in pairs]
    n = len(pct)
    mean = statistics.fmean(pct)
    half = T95[min(n - 1, len(T95)) - 1] * statistics.stdev(pct) / math.sqrt(n) if n > 1 else float("inf")
    best = 100.0 * (min(pm for _, pm in pairs) / min(tr for tr, _ in pairs) - 1.0)
    return n, mean, half, statistics.median(pct), best


def agreement(path):
    try:
        with open(path) as f:
            rows = json.load(f)
    except (OSError, ValueError):
        return []
    if isinstance(rows, dict):
        rows = rows.get("results", [])
    return [r for r in rows if isinstance(r, dict)]


def main(out):
    print("== exits")
    runs = exits(read_lines(os.path.join(out, "exits.txt")))
    for run in runs:
        print("  %-28s %-5s exit %-4s problem lines %-3s pm rows %-6s %s" % (run[0], run[1], run[2], run[3], run[4],
                                                                          run[5] or "(no stop note)"))
    expected = [r for r in runs if r[1] == "clean"]
    bad = [r[0] for r in expected if not clean(r)]
    print("  verdict: %s" % ("no runs" if not expected else
                             "all %d clean" % len(expected) if not bad else "NOT clean: " + ", ".join(bad)))
    old = [r for r in runs if r[1] == "old"]
    if old:
        print("  control (the first versions' exit steps): " +
              "; ".join("%s %s" % (r[0], "clean" if clean(r) else "exit %s, %s problem lines" % (r[2], r[3]))
                        for r in old))

    print("== cost of PM sampling on the transformer step (steady state from 2.5 s)")
    per_round = cost(read_lines(os.path.join(out, "cost.txt")))
    for r in sorted(per_round):
        v = per_round[r]
        print("  round %2d  trace %s ms  trace_pm %s ms" % (r, fmt(v.get("trace"), "%.3f"), fmt(v.get("trace_pm"), "%.3f")))
    st = ratio_stats(per_round)
    if st:
        n, mean, half, median, best = st
        verdict = ("at most %.0f%% (the interval's top is below it)" % COST_TARGET_PCT if mean + half <= COST_TARGET_PCT
                   else "ABOVE %.0f%%" % COST_TARGET_PCT if mean - half > COST_TARGET_PCT
                   else "not decided: the interval contains %.0f%%" % COST_TARGET_PCT)
        print("  %d rounds: cost %+.2f%% (95%% interval %+.2f%% .. %+.2f%%), median %+.2f%%, best-of-%d %+.2f%%; %s"
              % (n, mean, mean - half, mean + half, median, n, best, verdict))
    else:
        print("  no paired rounds")

    print("== SM activity: PM sampling against GPM per GPM window")
    rows = [r for r in agreement(os.path.join(out, "sm_compare.json")) if "pm_sampling_mad_pts" in r]
    for r in rows:
        print("  %-34s windows %3s  median |PM - GPM| %5.1f pts  bias %+5.1f  GPM median %5.1f  PM median %5.1f" % (
            str(r.get("recording"))[:34], r.get("pm_sampling_compared_windows"), r["pm_sampling_mad_pts"],
            r.get("pm_sampling_bias_pts", float("nan")), r.get("pm_sampling_gpm_median_pct", float("nan")),
            r.get("pm_sampling_median_pct", float("nan"))))
    if rows:
        worst = max(r["pm_sampling_mad_pts"] for r in rows)
        print("  %d recordings: worst %.1f points, median of them %.1f; %s" % (
            len(rows), worst, statistics.median(r["pm_sampling_mad_pts"] for r in rows),
            "every one at most %.0f points" % AGREEMENT_TARGET_PTS if worst <= AGREEMENT_TARGET_PTS
            else "ABOVE %.0f points somewhere" % AGREEMENT_TARGET_PTS))
    else:
        print("  no recording with both PM samples and GPM windows")


def fmt(v, spec):
    return "-" if v is None else spec % v


def selftest():
    # Two rounds: the second config is 2% and 4% slower; chunks before 2.5 s are left out.
    lines = []
    for r, slower in ((1, 1.02), (2, 1.04)):
        for cfg, k in (("trace", 1.0), ("trace_pm", slower)):
            lines.append("CHUNK round=%d cfg=%s 0 %d 10" % (r, cfg, int(10 * 50e6)))  # 50 ms/step, warm-up
            for i in range(1, 6):
                t = 2_500_000_000 + i * 200_000_000
                lines.append("CHUNK round=%d cfg=%s %d %d 10" % (r, cfg, t, t + int(10 * 10e6 * k)))
    per_round = cost(lines)
    assert abs(per_round[1]["trace"] - 10.0) < 1e-9 and abs(per_round[2]["trace_pm"] - 10.4) < 1e-9, per_round
    n, mean, half, median, best = ratio_stats(per_round)
    assert n == 2 and abs(mean - 3.0) < 1e-9 and abs(half - 12.706 * math.sqrt(2) / math.sqrt(2)) < 1e-6
    runs = exits(["RUN\tA1\tclean\t0\t0\t12", "  note: info: PM sampling stopped at exit: 5 samples in 1 decodes; "
                  "Stop 0, Disable 0, host deinitialise 0 (0 is success)", "RUN\tA4\told\t134\t1\t9"])
    assert clean(runs[0]) and not clean(runs[1]), runs
    print("pmcost2_summary selftest passed")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--selftest":
        selftest()
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        sys.exit(__doc__)
