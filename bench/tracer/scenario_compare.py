#!/usr/bin/env python3
"""Kernels per step and mean kernel duration of one scenario program, from
gpuwhy's tracer and from torch.profiler, and the kernel rows of gpuwhy's
import of that torch.profiler trace.

usage: scenario_compare.py NAME TRACED.db TRACED_TRUTH.json PROFILE.json[.gz] PROFILE_TRUTH.json [IMPORTED.db]

TRACED.db: `gpuwhy record --trace=full -- python3 scenarios/X.py --out TRACED_TRUTH.json`.
  Steps are the truth file's train steps (time.time_ns(), the clock CUPTI
  stamps kernels with); a kernel belongs to the step its start falls in.
PROFILE.json: the same program with GPUWHY_SCN_PROFILE=PROFILE.json (scenarios/common.py):
  a few train steps under torch.profiler, their times in PROFILE_TRUTH.json; a
  kernel (cat "kernel") belongs to the step its start falls in, its start being
  baseTimeNanoseconds + ts (us) x 1000, the same clock (each step ends with a
  synchronize, so all its kernels run inside it).
IMPORTED.db: `gpuwhy import PROFILE.json -o IMPORTED.db`; its kernel rows must
  equal the trace's kernel events exactly.
Prints one block of text and a JSON line (prefix "json: ")."""
import bisect
import gzip
import json
import sqlite3
import statistics
import sys


def per_step(kernels, steps):
    """kernels: sorted (start, dur); steps: (start, end). Count and durations per step."""
    starts = [k[0] for k in kernels]
    counts, durs = [], []
    for s0, s1 in steps:
        i, j = bisect.bisect_left(starts, s0), bisect.bisect_right(starts, s1)
        counts.append(j - i)
        durs.extend(k[1] for k in kernels[i:j])
    return counts, durs


def ours(db, truth):
    steps = [(s["start_ns"], s["end_ns"]) for s in json.load(open(truth))["steps"] if s["kind"] == "train"]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    lo, hi = steps[0][0], steps[-1][1]
    rows = con.execute("select start_ns, end_ns - start_ns from kernel where start_ns between ? and ? "
                       "order by start_ns", (lo, hi)).fetchall()
    return per_step(rows, steps)


def profiler(path, truth):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        tr = json.load(f)
    base = int(tr.get("baseTimeNanoseconds", 0))
    ev = [e for e in tr["traceEvents"] if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") == "kernel"]
    kernels = sorted((base + int(round(float(e["ts"]) * 1000)), int(round(float(e.get("dur", 0)) * 1000))) for e in ev)
    steps = [(s["start_ns"], s["end_ns"]) for s in json.load(open(truth))["steps"] if s["kind"] == "train"]
    counts, durs = per_step(kernels, steps)
    return counts, durs, len(kernels)


def main():
    name, db, truth, prof, prof_truth = sys.argv[1:6]
    imported = sys.argv[6] if len(sys.argv) > 6 else None
    oc, od = ours(db, truth)
    pc, pd, p_total = profiler(prof, prof_truth)
    res = {
        "scenario": name,
        "gpuwhy_steps": len(oc), "gpuwhy_kernels_per_step_median": statistics.median(oc),
        "gpuwhy_kernels_per_step_mean": statistics.mean(oc), "gpuwhy_mean_kernel_us": statistics.mean(od) / 1e3,
        "profiler_steps": len(pc), "profiler_kernels_per_step_median": statistics.median(pc),
        "profiler_kernels_per_step_mean": statistics.mean(pc), "profiler_mean_kernel_us": statistics.mean(pd) / 1e3,
        "profiler_trace_kernels": p_total, "profiler_kernels_in_steps": sum(pc),
    }
    res["kernels_per_step_diff_pct"] = 100 * (res["gpuwhy_kernels_per_step_mean"] /
                                              res["profiler_kernels_per_step_mean"] - 1)
    res["mean_kernel_duration_diff_pct"] = 100 * (res["gpuwhy_mean_kernel_us"] / res["profiler_mean_kernel_us"] - 1)
    if imported:
        con = sqlite3.connect(f"file:{imported}?mode=ro", uri=True)
        res["imported_kernel_rows"] = con.execute("select count(*) from kernel").fetchone()[0]
    print(f"{name}: gpuwhy --trace=full {res['gpuwhy_kernels_per_step_mean']:.1f} kernels/step over {len(oc)} steps, "
          f"mean {res['gpuwhy_mean_kernel_us']:.3f} us; torch.profiler {res['profiler_kernels_per_step_mean']:.1f} "
          f"over {len(pc)} steps, mean {res['profiler_mean_kernel_us']:.3f} us; "
          f"diff {res['kernels_per_step_diff_pct']:+.2f}% kernels/step, "
          f"{res['mean_kernel_duration_diff_pct']:+.2f}% mean duration")
    if imported:
        print(f"{name}: import kept {res['imported_kernel_rows']} kernel rows of the trace's {p_total}")
    print("json: " + json.dumps(res))


main()
