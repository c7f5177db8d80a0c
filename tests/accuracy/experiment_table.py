#!/usr/bin/env python3
"""Predicted against measured gain of `gpuwhy experiment try`.

  experiment_table.py DIR_OR_JSON...

Reads each experiment's experiment.json (a --keep folder, or the file) and
prints a Markdown table: scenario (the folder's name), fix, predicted point
and bound, measured ratio with its 95% interval, whether the measurement lies
within the bound, and the error of the point prediction (predicted / measured
- 1, in %); then the median absolute error over the fixes that were measured.
Fixes that broke the program or were refused are listed without numbers.
Exit status: 0, or 2 when an argument holds no experiment.json."""
import json
import os
import statistics
import sys


def load(arg):
    path = os.path.join(arg, "experiment.json") if os.path.isdir(arg) else arg
    with open(path) as f:
        e = json.load(f)
    scenario = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return scenario, e


def ratio(v):
    return "?" if v is None else f"x{v:.2f}"


def rows_of(scenario, e):
    arms = list(e.get("fixes", []))
    if e.get("combined"):
        arms.append(e["combined"])
    for fix in arms:
        p = fix.get("predicted") or {}
        m = fix.get("measured")
        point, bound = p.get("point"), p.get("bound")
        within = {True: "yes", False: "no", None: "-"}[fix.get("within_bound")]
        err = None
        if m and point is not None and m.get("ratio"):
            err = (point / m["ratio"] - 1) * 100
        measured = f"{ratio(m['ratio'])} ({ratio(m['lo'])}..{ratio(m['hi'])}) {m['unit']}" if m else "-"
        yield {
            "scenario": scenario,
            "fix": fix["fix"],
            "predicted": f"{ratio(point)} <= {ratio(bound)}" if p else "-",
            "measured": measured,
            "verdict": fix["verdict"],
            "within": within,
            "error": err,
        }


def main(args):
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rows = []
    for a in args:
        try:
            scenario, e = load(a)
        except (OSError, ValueError) as exc:
            print(f"experiment_table.py: {a}: {exc}", file=sys.stderr)
            return 2
        rows.extend(rows_of(scenario, e))
    print("| scenario | fix | predicted (point <= bound) | measured (95% interval) | verdict | within bound | error of point |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        err = "-" if r["error"] is None else f"{r['error']:+.0f}%"
        print(f"| {r['scenario']} | {r['fix']} | {r['predicted']} | {r['measured']} | {r['verdict']} | {r['within']} | {err} |")
    errs = [abs(r["error"]) for r in rows if r["error"] is not None]
    within = [r for r in rows if r["within"] != "-"]
    print()
    if errs:
        print(f"Median absolute error of the point prediction: {statistics.median(errs):.0f}% over {len(errs)} measured fixes; "
              f"{sum(r['within'] == 'yes' for r in within)} of {len(within)} within their bound.")
    else:
        print("No fix was measured.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
