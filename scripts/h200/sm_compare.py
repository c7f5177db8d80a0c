#!/usr/bin/env python3
"""SM activity substitutes against GPM, per recording (issue 22).

For each recording given: GPM's SM activity per window (gpu_sample.sm_active_pct,
one value per GPM window, 1 s by default) against the estimate from the traced
kernels' launch configurations (kernel + trace_device tables) over the same
window, computed as lib/analysis/sm_fill.c does (this file mirrors its
arithmetic; --selftest checks both give the unit test's figures), and, where
the tracer ran CUPTI PM sampling (pm_sample table), that measurement too. Prints one
line per recording and GPU: windows compared, median absolute difference in
points, mean signed difference (estimate - GPM), the medians of both, and, with
--gpuwhy, the report's verdict and sm_activity_source.

A recording without GPM values (record --no-gpm) gets the estimate's median and
the verdict only. Standard library only; runs on any recording.

Two more figures per substitute, since idle windows agree trivially (both read 0
through imports and start-up) and GPM's values come late:
  busy   the median absolute difference over the windows where GPM or the
         substitute read at least BUSY_MIN_PCT, the ones that test anything;
  lag    GPM's value stamped at a tick describes a window that ended before the
         tick (on the H200 with driver 580, 0.1-0.2 s: a GPU idle
         gap that the kernel trace and the host's step times put within 5 ms of
         each other show up that much earlier in GPM's windows). The lag is the
         shift of the substitute's windows, in LAG_STEP_MS steps up to LAG_MAX_MS
         either way, that brings PM sampling (else the estimate) closest to GPM
         over the busy windows; busy_at_lag is the difference after that shift.

usage: sm_compare.py [--gpuwhy BIN] [--json OUT] REC.db [REC.db ...]
       sm_compare.py --selftest
"""
import argparse
import json
import math
import os
import sqlite3
import statistics
import subprocess
import sys

# Allocation granularities of compute capability 7.0 to 9.0, as in sm_fill.c.
REG_ALLOC_UNIT = 256
WARP_ALLOC_GRANULARITY = 4
SHMEM_ALLOC_UNIT = 128
SHMEM_RESERVED_PER_BLOCK = 1024
# A window the trace covered for less than half stands for too little of it.
MIN_COVERED_SHARE = 0.5
# A window where neither GPM nor the substitute reaches 1% had no work: both agree
# there by construction (start-up, imports), so it tests nothing.
BUSY_MIN_PCT = 1.0
# GPM's lag is searched over +-0.5 s (half a GPM window: beyond it the windows
# would be matched to their neighbours) in 25 ms steps.
LAG_MAX_MS = 500
LAG_STEP_MS = 25


def round_up(v, unit):
    return (v + unit - 1) // unit * unit


def occupancy(lim, blocks, threads, regs, shmem):
    """(blocks_per_sm, sm_active_share, waves) as gw_occupancy_of computes them."""
    sms, max_warps, max_blocks, max_regs, max_shmem, warp, cc_major = lim
    if min(sms, max_warps, max_blocks, max_regs, max_shmem, warp) <= 0 or blocks <= 0 or threads <= 0:
        return 0, 0.0, 0.0
    wpb = (threads + warp - 1) // warp
    r = min(max_blocks, max_warps // wpb)
    if regs and regs > 0:
        w = max_regs // round_up(regs * warp, REG_ALLOC_UNIT)
        w -= w % WARP_ALLOC_GRANULARITY
        r = min(r, w // wpb)
    if shmem and shmem > 0:
        per_block = round_up(shmem + (SHMEM_RESERVED_PER_BLOCK if cc_major >= 8 else 0), SHMEM_ALLOC_UNIT)
        r = min(r, max_shmem // per_block)
    if r <= 0:
        r = 1
    per_wave = sms * r
    waves = blocks / per_wave
    full = math.floor(waves)
    rem = blocks - full * per_wave
    nwaves = full + (1 if rem > 0 else 0)
    last = min(1.0, rem / sms) if rem > 0 else 0.0
    return r, (full + last) / nwaves, waves


def table_exists(db, name):
    return db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)).fetchone() is not None


def limits(db, device):
    if not table_exists(db, "trace_device"):
        return None
    row = db.execute(
        "SELECT sm_count, max_warps_per_sm, max_blocks_per_sm, max_regs_per_sm, max_shmem_per_sm_bytes,"
        " threads_per_warp, cc_major FROM trace_device WHERE device = ? AND sm_count IS NOT NULL LIMIT 1",
        (device,)).fetchone()
    if not row or any(v is None for v in row[:6]):
        return None
    return tuple(int(v or 0) for v in row)


def merged_windows(db):
    if not table_exists(db, "trace_window"):
        return []
    spans = sorted(db.execute("SELECT start_ns, end_ns FROM trace_window WHERE end_ns > start_ns").fetchall())
    out = []
    for a, b in spans:
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def spread(edges, a, b, weight, acc):
    """Adds weight x overlap of [a, b) to each interval (edges[i], edges[i+1]]."""
    import bisect
    i = max(0, bisect.bisect_right(edges, a) - 1)
    while i < len(edges) - 1 and edges[i] < b:
        x, y = max(a, edges[i]), min(b, edges[i + 1])
        if y > x:
            acc[i] += weight * (y - x)
        i += 1


def gpm_windows(db, gpu):
    """GPM values with the window each covers: (start, end, pct)."""
    rows = db.execute("SELECT t_ns, sm_active_pct FROM gpu_sample WHERE gpu = ? AND sm_active_pct IS NOT NULL"
                      " ORDER BY t_ns", (gpu,)).fetchall()
    out = []
    for k in range(1, len(rows)):
        out.append((rows[k - 1][0], rows[k][0], rows[k][1]))
    return out


def estimate(db, gpu, lim, edges):
    """Estimated SM activity (%) per interval of edges; None where not covered."""
    n = len(edges) - 1
    active, covered = [0.0] * n, [0.0] * n
    cache = {}
    kmin, kmax, nk = None, None, 0
    for a, b, blocks, threads, regs, shmem in db.execute(
            "SELECT start_ns, end_ns, grid_x * grid_y * grid_z, block_x * block_y * block_z, regs, shmem_bytes"
            " FROM kernel WHERE device = ? AND start_ns IS NOT NULL AND end_ns > start_ns AND grid_x > 0"
            " AND block_x > 0", (gpu,)):
        key = (blocks, threads, regs or 0, shmem or 0)
        if key not in cache:
            cache[key] = occupancy(lim, *key)
        r, share, _ = cache[key]
        if r <= 0:
            continue
        spread(edges, a, b, share, active)
        kmin = a if kmin is None else min(kmin, a)
        kmax = b if kmax is None else max(kmax, b)
        nk += 1
    if nk == 0:
        return [None] * n
    wins = merged_windows(db) or [[kmin, kmax]]
    for a, b in wins:
        spread(edges, a, b, 1.0, covered)
    out = []
    for i in range(n):
        length = edges[i + 1] - edges[i]
        ok = length > 0 and covered[i] >= MIN_COVERED_SHARE * length
        out.append(100.0 * min(1.0, active[i] / covered[i]) if ok else None)
    return out


def pm_sampling(db, gpu, edges):
    """SM activity (%) per interval from CUPTI PM sampling (pm_sample), as sm_fill.c reads it."""
    n = len(edges) - 1
    if not table_exists(db, "pm_sample"):
        return [None] * n
    active, covered = [0.0] * n, [0.0] * n
    rows = 0
    for a, b, ratio in db.execute(
            "SELECT start_ns, end_ns, sm_cycles_active_avg / sm_cycles_elapsed_avg FROM pm_sample"
            " WHERE device = ? AND end_ns > start_ns AND sm_cycles_elapsed_avg > 0", (gpu,)):
        share = min(1.0, max(0.0, ratio))
        spread(edges, a, b, share, active)
        spread(edges, a, b, 1.0, covered)
        rows += 1
    if not rows:
        return [None] * n
    return [100.0 * active[i] / covered[i] if edges[i + 1] > edges[i] and
            covered[i] >= MIN_COVERED_SHARE * (edges[i + 1] - edges[i]) else None for i in range(n)]


def report_json(gpuwhy, path):
    try:
        p = subprocess.run([gpuwhy, "report", "--format", "json", path], capture_output=True, text=True, timeout=300)
        return json.loads(p.stdout)
    except Exception as e:  # the comparison goes on without the verdict
        return {"error": str(e)}


def summarize(res, name, pairs):
    """Adds name_* figures of (substitute, GPM) pairs per window to res."""
    if not pairs:
        return
    diffs = [e - g for e, g in pairs]
    res[name + "_compared_windows"] = len(pairs)
    res[name + "_mad_pts"] = statistics.median(abs(d) for d in diffs)
    res[name + "_bias_pts"] = statistics.fmean(diffs)
    res[name + "_median_pct"] = statistics.median(e for e, _ in pairs)
    res[name + "_gpm_median_pct"] = statistics.median(g for _, g in pairs)


def busy_mad(subst, gw):
    """Median absolute difference over the windows with work in them, and their count."""
    d = [abs(e - w[2]) for e, w in zip(subst, gw) if e is not None and (e >= BUSY_MIN_PCT or w[2] >= BUSY_MIN_PCT)]
    return (statistics.median(d), len(d)) if d else (None, 0)


def gpm_lag(db, gpu, lim, gw, has_pm):
    """The shift (ms, negative: GPM's windows are earlier than stamped) that brings PM sampling, else the
    estimate, closest to GPM over the busy windows; with each substitute's busy difference at that shift.
    The search runs on PM sampling alone where it exists (a few hundred samples; the estimate goes over every
    kernel, up to a million in a full trace, so it is computed once, at the shift found)."""
    def shifted(lag_ms):
        d = lag_ms * 1000000
        return [gw[0][0] + d] + [w[1] + d for w in gw]

    best = None
    for lag_ms in range(-LAG_MAX_MS, LAG_MAX_MS + 1, LAG_STEP_MS):
        subst = pm_sampling(db, gpu, shifted(lag_ms)) if has_pm else (
            estimate(db, gpu, lim, shifted(lag_ms)) if lim else [None] * len(gw))
        mad, n = busy_mad(subst, gw)
        if n and (best is None or mad < best[0] - 1e-9 or (abs(mad - best[0]) <= 1e-9 and abs(lag_ms) < abs(best[1]))):
            best = (mad, lag_ms)
    if best is None:
        return None
    est_mad = busy_mad(estimate(db, gpu, lim, shifted(best[1])), gw)[0] if lim else None
    pm_mad = best[0] if has_pm else None
    return (best[0], best[1], pm_mad, est_mad, "pm_sampling" if has_pm else "launch_config")


def compare(path, gpuwhy=None):
    db = sqlite3.connect("file:%s?mode=ro" % os.path.abspath(path), uri=True)
    results = []
    gpus = [r[0] for r in db.execute("SELECT gpu FROM gpu ORDER BY gpu")]
    rep = report_json(gpuwhy, path) if gpuwhy else None
    for gpu in gpus:
        res = {"recording": os.path.basename(path), "gpu": gpu}
        lim = limits(db, gpu) if table_exists(db, "kernel") else None
        res["has_limits"] = lim is not None
        gw = gpm_windows(db, gpu)
        if gw:
            edges = [gw[0][0]] + [w[1] for w in gw]
            est = estimate(db, gpu, lim, edges) if lim else [None] * len(gw)
            pairs = [(e, w[2]) for e, w in zip(est, gw) if e is not None]
            pm = pm_sampling(db, gpu, edges)
            summarize(res, "pm_sampling", [(e, w[2]) for e, w in zip(pm, gw) if e is not None])
            res["gpm_windows"] = len(gw)
            res["gpm_median_pct"] = statistics.median(w[2] for w in gw)
            summarize(res, "launch_config", pairs)
            for name, subst in (("pm_sampling", pm), ("launch_config", est)):
                mad, n = busy_mad(subst, gw)
                if n:
                    res[name + "_busy_mad_pts"], res[name + "_busy_windows"] = mad, n
            lag = gpm_lag(db, gpu, lim, gw, "pm_sampling_busy_windows" in res)
            if lag:
                res["gpm_lag_ms"], res["gpm_lag_from"] = lag[1], lag[4]
                if lag[2] is not None:
                    res["pm_sampling_busy_mad_at_lag_pts"] = lag[2]
                if lag[3] is not None:
                    res["launch_config_busy_mad_at_lag_pts"] = lag[3]
        else:
            # no GPM: per second over the recording's span
            t = db.execute("SELECT min(t_ns), max(t_ns) FROM gpu_sample WHERE gpu = ?", (gpu,)).fetchone()
            if t[0] is not None and t[1] > t[0]:
                edges = list(range(t[0], t[1] + 1, 1000000000))
                est = [e for e in estimate(db, gpu, lim, edges) if e is not None] if lim else []
                res["launch_config_windows"] = len(est)
                if est:
                    res["launch_config_median_pct"] = statistics.median(est)
                pm = [e for e in pm_sampling(db, gpu, edges) if e is not None]
                if pm:
                    res["pm_sampling_median_pct"] = statistics.median(pm)
        if rep is not None:
            res["verdict"] = rep.get("verdict")
            top = [f.get("class") for f in rep.get("findings", []) if isinstance(f, dict)][:2]
            res["classes"] = top
            for g in rep.get("gpus", []):
                if isinstance(g, dict) and g.get("gpu") == gpu:
                    res["sm_activity_source"] = g.get("sm_activity_source")
            if "error" in rep:
                res["report_error"] = rep["error"]
        results.append(res)
    db.close()
    return results


def fmt(v, spec="%.1f"):
    return "-" if v is None else (spec % v if isinstance(v, float) else str(v))


def selftest():
    h200 = (132, 64, 32, 65536, 233472, 32, 9)
    checks = [
        (occupancy(h200, 1, 128, 32, 0), (16, 1 / 132)),
        (occupancy(h200, 132, 256, 0, 0)[:2], (8, 1.0)),
        (occupancy(h200, 1000, 128, 255, 0)[:1], (2,)),
        (occupancy(h200, 1000, 128, 0, 49152)[:1], (4,)),
        (occupancy(h200, 100000, 32, 16, 0)[:1], (32,)),
        (occupancy(h200, 330, 1024, 0, 0)[:2], (2, 0.75)),
    ]
    bad = 0
    for got, want in checks:
        got = got[:len(want)]
        if any(abs(g - w) > 1e-9 for g, w in zip(got, want)):
            print("selftest: got %s, want %s" % (got, want))
            bad += 1
    print("selftest: %d of %d agree with tests/unit/test_sm_fill.c" % (len(checks) - bad, len(checks)))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("recordings", nargs="*")
    ap.add_argument("--gpuwhy", help="gpuwhy binary: adds the report's verdict and sm_activity_source")
    ap.add_argument("--json", help="write every figure to this file as JSON too")
    ap.add_argument("--selftest", action="store_true", help="check the arithmetic against the C unit test")
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    if not a.recordings:
        ap.error("give at least one recording")
    allres = []
    print("%-34s %3s %7s %7s %8s %8s %8s %8s %7s %8s  %-14s %s" % (
        "recording", "gpu", "windows", "compar", "mad_pts", "bias_pts", "gpm_med", "est_med", "pm_mad", "pm_med",
        "source", "verdict"))
    for path in a.recordings:
        try:
            res = compare(path, a.gpuwhy)
        except sqlite3.Error as e:
            print("%s: not a readable recording: %s" % (path, e))
            continue
        for r in res:
            allres.append(r)
            print("%-34s %3s %7s %7s %8s %8s %8s %8s %7s %8s  %-14s %s %s" % (
                r["recording"][:34], r["gpu"], fmt(r.get("gpm_windows", r.get("launch_config_windows"))),
                fmt(r.get("launch_config_compared_windows")), fmt(r.get("launch_config_mad_pts")),
                fmt(r.get("launch_config_bias_pts")), fmt(r.get("gpm_median_pct")),
                fmt(r.get("launch_config_median_pct")), fmt(r.get("pm_sampling_mad_pts")),
                fmt(r.get("pm_sampling_median_pct")), fmt(r.get("sm_activity_source")), fmt(r.get("verdict")),
                ",".join(x for x in r.get("classes", []) if x)))
            if "gpm_lag_ms" in r:
                print("%-34s busy windows: launch config %s pts (%s), PM sampling %s pts (%s); GPM lag %+d ms (from %s): "
                      "launch config %s pts, PM sampling %s pts" % (
                          "", fmt(r.get("launch_config_busy_mad_pts")), fmt(r.get("launch_config_busy_windows")),
                          fmt(r.get("pm_sampling_busy_mad_pts")), fmt(r.get("pm_sampling_busy_windows")),
                          r["gpm_lag_ms"], r["gpm_lag_from"], fmt(r.get("launch_config_busy_mad_at_lag_pts")),
                          fmt(r.get("pm_sampling_busy_mad_at_lag_pts"))))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(allres, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
