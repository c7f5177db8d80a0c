#!/usr/bin/env python3
"""Accuracy of the diagnosis on labelled recordings, as recorded and under
realistic variants made from copies of them (sqlite3 edits).

Every labelled recording (a NAME.db beside a NAME.truth.json whose
expected_classes say what the run really has) is copied and edited into each
variant; `gpuwhy report --format json` is run on the copy and scored:

  verdict right   the verdict is one of the true classes ("none" for a
                  healthy run)
  causes found    every true class is among the findings
  absent          findings of a class the run does not have (count, and
                  share of all findings)
  reliability     findings bucketed by printed confidence, with the
                  fraction whose class is true

Variants (each only where it means something for the recording):
  recorded        the file as it is
  larger_board    the same run on a board with a 15% larger power budget
                  (enforced, default and maximum limits x1.15): a job at 94%
                  of its limit reads 82%; the work is unchanged
  no_gpm          GPM columns nulled: what an A100, V100, L4, T4 or GeForce
                  records (lib/core/gpu_metrics.def: gr/sm activity, SM
                  occupancy, tensor, DRAM, FP32, FP16 pipes)
  no_trace        the kernel trace's rows deleted (recordings made with
                  --trace only)
  no_steps        the Python hook's step rows deleted (recordings that have
                  them): a program run with --no-python-hook, or not Python
  no_samples      the thread sampler's and the Python stack sampler's rows
                  deleted (recordings that have them): what older recordings,
                  record --thread-hz 0 --py-sample-hz 0 and non-Python jobs give
  no_stacks       the Python stack sampler's rows deleted, the thread
                  sampler's kept (recordings that have both): record
                  --py-sample-hz 0, or a hook that could not sample; what the
                  kernel states alone say of the training thread
  idle_workers    the target's child processes (loader workers) made to look
                  idle: CPU at most 1.8% of a core, asleep, none running, and
                  their sampled threads asleep on the network (a loader bound
                  by the latency of a remote store, not by CPU)
  one_period      cut to a window holding one periodic event and one period
                  (periodic scenarios: truth steps of kind eval/checkpoint/log;
                  an event the loop trained after, never one that ended the
                  program)
  one_rank        a multi-GPU file cut to GPU 0 and its rank, WORLD_SIZE=2 in
                  the recorded environment (what one node's recording of a
                  larger job holds)
  helper_proc     a helper child of the target at 10-25% of one core (a
                  metrics uploader such as wandb's service process)
  busy_thread     the target (every rank) keeps one more thread busy: +100%
                  of a core on the process, the main thread unchanged (NCCL
                  proxy, pin-memory or logger thread); launch_threads_cpu_pct
                  stays as recorded (the process's CPU as recorded in files
                  made before the column): that thread launches no kernels
  second_proc     another process on GPU 0 (gpu_proc rows of a pid outside
                  the target's tree); scored also on whether the report names
                  it (recordings with a gpu_proc table only)
  respawn_workers the target's child processes (loader workers; not ranks,
                  the children that hold a GPU) made to look
                  respawned every pass, as DataLoader workers without
                  persistent_workers are: every 1.5 s each worker process and
                  its threads take new pids and tids (proc_sample,
                  thread_info, thread_sample rewritten), so no worker pid
                  lives longer than 1.5 s; what they did is unchanged, and so
                  is the truth (recordings with worker processes)
  short_steps     steps shorter than the GPM window: the GPM columns held
                  over 4 s windows (each window's GPM rows averaged into its
                  last one, the others nulled), what a GPM or DCGM sampling
                  period of 4 s gives. The recorded steps (2-200 ms) are
                  already shorter than the 0.5-1 s windows, so cutting the
                  hook's step rows would change nothing the GPM sees; what
                  the window hides is what is shorter than it (steps, their
                  spread, stalls and eval or checkpoint passes of 1.5-3 s),
                  and a 4 s window puts every step and every such pass under
                  it while the hook's steps and the 10 Hz counters stay as
                  recorded (recordings with GPM rows)
  half_rate       every other stack sample of each thread deleted and
                  py_sampling_hz halved: a recording made at 50 Hz as the
                  default 25 Hz takes it (recordings with stack samples)

Exit status 1 when a figure falls below the committed floor
(tests/accuracy/floors.json); --write-floors writes today's figures there.
Standard library only.
"""
import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
GPM_COLUMNS = ["gr_active_pct", "sm_active_pct", "sm_occupancy_pct", "tensor_active_pct", "dram_bw_pct",
               "fp32_active_pct", "fp16_active_pct"]
# tables written by the tracer (docs/RECORDING.md); rows deleted for no_trace
TRACE_TABLES = ["kernel", "api", "memcpy", "memset", "sync", "graph_launch", "launch_count", "marker", "memory",
                "trace_window", "trace_process", "trace_dropped", "trace_overhead", "trace_note", "trace_name"]
VARIANTS = ["recorded", "larger_board", "no_gpm", "no_trace", "no_steps", "no_samples", "no_stacks", "idle_workers", "one_period", "one_rank",
            "helper_proc", "busy_thread", "second_proc", "respawn_workers", "short_steps", "half_rate"]
OTHER_PID = 999001  # the second process on the GPU
HELPER_PID = 999002
# respawn_workers: a worker's life (a pass), and where the new pids and tids start
RESPAWN_PASS_NS = 1_500_000_000
RESPAWN_ID_BASE = 3_000_000
# short_steps: the GPM window the variant holds the GPM columns over
COARSE_GPM_WINDOW_NS = 4_000_000_000
CONF_BUCKETS = [(0.0, 0.5), (0.5, 0.7), (0.7, 0.9), (0.9, 1.01)]
# bands of raw rule scores (a finding needs 0.30: thresholds.c finding_min_conf)
# that lib/analysis/confidence_calibration.c maps to calibrated confidences
# and to the share of the lost time it explains (lib/analysis/confidence_share.c),
# which can take a score under 0.30: the first band holds those
RAW_BANDS = [(0.0, 0.30), (0.30, 0.45), (0.45, 0.60), (0.60, 0.75), (0.75, 0.90), (0.90, 1.01)]
# gates read from the JSON profile: (name, profile key, threshold, rule that uses it)
GATES = [
    ("at_limit_power_frac", "power_frac", 0.90, "small_batch"),
    ("low_power_frac", "power_frac", 0.40, "input_pipeline"),
    ("small_busy_util_pct", "util_median_pct", 50.0, "small_batch"),
    ("small_sm_per_util", "sm_per_util", 0.60, "small_batch"),
    ("small_math_fill_frac", "math_fill", 0.60, "small_batch"),
    ("small_occupancy_max_pct", "occupancy_median_pct", 50.0, "small_batch"),
    ("pcie_rx_high_bps", "pcie_rx_median_bps", 1.0e9, "input_pipeline"),
    ("period_min_strength", "period_strength", 0.30, "schedule_shape"),
]


def tables(con):
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def columns(con, table):
    return [r[1] for r in con.execute("PRAGMA table_info(%s)" % table)]


def target_pids(con):
    """The target process and the ranks (processes holding a GPU)."""
    t = tables(con)
    pids = {r[0] for r in con.execute("SELECT DISTINCT pid FROM proc_sample WHERE role=0")} if "proc_sample" in t else set()
    if "gpu_proc" in t:
        pids |= {r[0] for r in con.execute("SELECT DISTINCT pid FROM gpu_proc")}
    return pids


def has_kernel_trace(db):
    """Whether the recording holds traced kernels (their launch
    configurations are what SM fill is estimated from without GPM)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return "kernel" in tables(con) and con.execute("SELECT count(*) FROM kernel").fetchone()[0] > 0
    finally:
        con.close()


# the samplers' tables (record --thread-hz, --py-sample-hz)
SAMPLE_TABLES = ("thread_sample", "thread_info", "py_sample", "py_frame")


def make_variant(src, dst, variant, truth):
    """Copy src to dst and edit it into the variant; False when the variant
    does not apply to this recording."""
    shutil.copyfile(src, dst)
    con = sqlite3.connect(dst)
    t = tables(con)
    ok = True
    if variant == "no_gpm":
        cols = [c for c in GPM_COLUMNS if c in columns(con, "gpu_sample")]
        con.execute("UPDATE gpu_sample SET " + ", ".join("%s=NULL" % c for c in cols))
        if "gpm_supported" in columns(con, "gpu"):
            con.execute("UPDATE gpu SET gpm_supported=0")
    elif variant == "larger_board":
        if "gpu_health" in t and "power_limit_mw" in columns(con, "gpu_health"):
            con.execute("UPDATE gpu_health SET power_limit_mw = CAST(power_limit_mw * 1.15 AS INTEGER)")
        for c in ("power_default_limit_mw", "power_min_limit_mw", "power_max_limit_mw"):
            if c in columns(con, "gpu"):
                con.execute("UPDATE gpu SET %s = CAST(%s * 1.15 AS INTEGER)" % (c, c))
    elif variant == "no_trace":
        if "kernel" not in t or con.execute("SELECT count(*) FROM kernel").fetchone()[0] == 0:
            ok = False
        for tb in TRACE_TABLES:
            if tb in t:
                con.execute("DELETE FROM %s" % tb)
    elif variant == "no_steps":
        # a program run without the Python hook (--no-python-hook, or not Python)
        if "step" not in t or con.execute("SELECT count(*) FROM step").fetchone()[0] == 0:
            ok = False
        else:
            con.execute("DELETE FROM step")
            # the hook's own mark that it was on: without the hook there is none
            if "meta" in t:
                con.execute("DELETE FROM meta WHERE key = 'python_hook_steps'")
    elif variant == "no_samples":
        present = [tb for tb in SAMPLE_TABLES if tb in t and con.execute("SELECT count(*) FROM %s" % tb).fetchone()[0]]
        if not present:
            ok = False
        for tb in present:
            con.execute("DELETE FROM %s" % tb)
        if "meta" in t:
            con.execute("DELETE FROM meta WHERE key IN ('thread_sampling_hz', 'py_sampling_hz')")
    elif variant == "idle_workers":
        if "proc_sample" not in t or not con.execute("SELECT count(*) FROM proc_sample WHERE role = 1").fetchone()[0]:
            ok = False
        else:
            # 1.8% of a core: a worker that sleeps 6 ms per sample on a store and copies bytes
            con.execute("UPDATE proc_sample SET cpu_pct = min(cpu_pct, 1.8), state = 'S', threads_running = 0"
                        " WHERE role = 1")
            if "thread_info" in t and "thread_sample" in t:
                # role 3: a loader worker's main thread; state 2 sleeping, wait 3 on the network
                con.execute("UPDATE thread_sample SET state = 2, wait = 3, syscall = NULL"
                            " WHERE tid IN (SELECT tid FROM thread_info WHERE role = 3)")
    elif variant == "one_period":
        steps = truth.get("steps", [])
        marks = [s for s in steps if s.get("kind") in ("eval", "checkpoint", "log")]
        # an event the loop trained after: one that ended the program is the
        # run's tail (the GPU idles because the job is over), not a stall
        # between training steps, so a window around it holds no period
        trained_after = [i for i, m in enumerate(marks)
                         if any(s.get("kind", "train") == "train" and s["start_ns"] >= m["end_ns"] for s in steps)]
        if len(marks) < 2 or not trained_after:
            ok = False
        else:
            # the second event (the first may sit in the warm-up) where the
            # loop trained after it, else the first that has, and half a
            # period either side: one event, one period of training
            k = 1 if 1 in trained_after else trained_after[0]
            period = marks[k + 1]["start_ns"] - marks[k]["start_ns"] if k + 1 < len(marks) else \
                marks[k]["start_ns"] - marks[k - 1]["start_ns"]
            mid = marks[k]["start_ns"]
            lo, hi = mid - period // 2, mid + period // 2
            for tb in t:
                cols = columns(con, tb)
                for c in ("t_ns", "start_ns", "t_start_ns"):
                    if c in cols:
                        con.execute("DELETE FROM %s WHERE %s < ? OR %s > ?" % (tb, c, c), (lo, hi))
                        break
            if "run" in t:
                con.execute("UPDATE run SET started_ns=?, ended_ns=?", (lo, hi))
    elif variant == "one_rank":
        ngpu = con.execute("SELECT count(DISTINCT gpu) FROM gpu_sample").fetchone()[0]
        if ngpu < 2:
            ok = False
        else:
            keep = 0
            others = [r[0] for r in con.execute("SELECT DISTINCT pid FROM gpu_proc WHERE gpu<>?", (keep,))] \
                if "gpu_proc" in t else []
            for tb in ("gpu_sample", "gpu_health", "gpu", "gpu_proc"):
                if tb in t:
                    con.execute("DELETE FROM %s WHERE gpu<>?" % tb, (keep,))
            for tb in ("kernel", "memcpy", "memset"):
                if tb in t and "device" in columns(con, tb):
                    con.execute("DELETE FROM %s WHERE device<>?" % tb, (keep,))
            if "proc_sample" in t and others:
                q = ",".join("?" * len(others))
                con.execute("DELETE FROM proc_sample WHERE pid IN (%s) OR ppid IN (%s)" % (q, q), others + others)
            if "env" in t:
                con.execute("INSERT OR REPLACE INTO env(name, value) VALUES('WORLD_SIZE', ?)", (str(ngpu),))
    elif variant == "helper_proc":
        if "proc_sample" not in t:
            ok = False
        else:
            rows = con.execute("SELECT t_ns, pid FROM proc_sample WHERE role=0 ORDER BY t_ns").fetchall()
            if not rows:
                ok = False
            rnd = random.Random(21)
            for t_ns, pid in rows:
                con.execute("INSERT INTO proc_sample(t_ns, pid, ppid, role, comm, state, cpu_pct, threads, rss_bytes)"
                            " VALUES(?,?,?,1,'wandb-service','S',?,4,200000000)",
                            (t_ns, HELPER_PID, pid, rnd.uniform(10, 25)))
    elif variant == "busy_thread":
        if "proc_sample" not in t:
            ok = False
        else:
            pids = target_pids(con)
            q = ",".join("?" * len(pids))
            if "launch_threads_cpu_pct" not in columns(con, "proc_sample"):
                # a file from before the column: every recorded thread counts
                # as launching, so the added thread is the one that launches
                # nothing and the report sees it (the harder case)
                con.execute("ALTER TABLE proc_sample ADD COLUMN launch_threads_cpu_pct REAL")
                con.execute("UPDATE proc_sample SET launch_threads_cpu_pct = cpu_pct WHERE pid IN (%s)" % q,
                            list(pids))
            con.execute("UPDATE proc_sample SET cpu_pct = cpu_pct + 100, threads_running = threads_running + 1"
                        " WHERE pid IN (%s)" % q, list(pids))
    elif variant == "second_proc":
        if "gpu_proc" not in t or con.execute("SELECT count(*) FROM gpu_proc").fetchone()[0] == 0:
            ok = False
        else:
            named = "comm" in columns(con, "gpu_proc")  # files made before the column lack it
            for (t_ns,) in con.execute("SELECT DISTINCT t_ns FROM gpu_proc WHERE gpu=0").fetchall():
                con.execute("INSERT INTO gpu_proc(t_ns, gpu, pid, used_mem_bytes, sm_pct%s) VALUES(?,0,?,?,?%s)"
                            % ((", comm", ",'other-job'") if named else ("", "")),
                            (t_ns, OTHER_PID, 6 << 30, 35.0))
    elif variant == "respawn_workers":
        ok = respawn_workers(con, t)
    elif variant == "short_steps":
        ok = coarsen_gpm(con)
    elif variant == "half_rate":
        ok = halve_py_rate(con, t)
    elif variant == "no_stacks":
        ok = all(tb in t and con.execute("SELECT count(*) FROM %s" % tb).fetchone()[0]
                 for tb in ("py_sample", "thread_sample"))
        if ok:
            con.execute("DELETE FROM py_sample")
            con.execute("DELETE FROM py_frame")
    con.commit()
    con.close()
    return ok


def halve_py_rate(con, t):
    """The stack sampler at half the rate it ran (50 -> 25 Hz): every other
    sample of each thread deleted, the rate in meta halved. False without
    stack samples."""
    if "py_sample" not in t or not con.execute("SELECT count(*) FROM py_sample").fetchone()[0]:
        return False
    drop, seen = [], {}
    for rowid, pid, tid in con.execute("SELECT rowid, pid, tid FROM py_sample ORDER BY t_ns, rowid").fetchall():
        k = seen.get((pid, tid), 0)
        seen[(pid, tid)] = k + 1
        if k % 2:
            drop.append((rowid,))
    con.executemany("DELETE FROM py_sample WHERE rowid = ?", drop)
    con.execute("UPDATE meta SET value = value / 2.0 WHERE key = 'py_sampling_hz'")
    return True


def respawn_workers(con, t):
    """Every RESPAWN_PASS_NS from the workers' first sample, each worker
    process (a child of the target) and each of its threads take a new id:
    the pass k of worker pid P is pid RESPAWN_ID_BASE + k * 10000 + the
    worker's index, its threads likewise from the tids. False without
    worker processes."""
    if "proc_sample" not in t:
        return False
    # the ranks of a launcher (children holding a GPU) are not workers
    ranks = target_pids(con)
    workers = [r[0] for r in con.execute("SELECT DISTINCT pid FROM proc_sample WHERE role = 1 ORDER BY pid")
               if r[0] not in ranks]
    if not workers:
        return False
    q = ",".join("?" * len(workers))
    t0 = con.execute("SELECT min(t_ns) FROM proc_sample WHERE pid IN (%s)" % q, workers).fetchone()[0]
    threads = [r[0] for r in con.execute("SELECT tid FROM thread_info WHERE pid IN (%s) ORDER BY tid" % q,
                                         workers)] if "thread_info" in t else []
    if threads:
        t0 = min(t0, con.execute("SELECT min(t_ns) FROM thread_sample WHERE tid IN (%s)" % ",".join("?" * len(threads)),
                                 threads).fetchone()[0] or t0)
    widx = {p: i for i, p in enumerate(workers)}
    tidx = {x: i + len(workers) for i, x in enumerate(threads)}  # thread ids after the pids: none collide

    def new_id(index, t_ns):
        return RESPAWN_ID_BASE + ((t_ns - t0) // RESPAWN_PASS_NS) * 10000 + index

    rows = con.execute("SELECT rowid, t_ns, pid FROM proc_sample WHERE pid IN (%s)" % q, workers).fetchall()
    for rowid, t_ns, pid in rows:
        con.execute("UPDATE proc_sample SET pid = ? WHERE rowid = ?", (new_id(widx[pid], t_ns), rowid))
    # the workers' own children (rare) keep their ids, under the pass's pid
    for rowid, t_ns, ppid in con.execute("SELECT rowid, t_ns, ppid FROM proc_sample WHERE ppid IN (%s)" % q,
                                         workers).fetchall():
        con.execute("UPDATE proc_sample SET ppid = ? WHERE rowid = ?", (new_id(widx[ppid], t_ns), rowid))
    if threads:
        info = {r[0]: r[1:] for r in con.execute("SELECT tid, pid, role, comm, first_t_ns FROM thread_info WHERE tid IN"
                                                 " (%s)" % ",".join("?" * len(threads)), threads)}
        seen = {}
        for rowid, t_ns, tid in con.execute("SELECT rowid, t_ns, tid FROM thread_sample WHERE tid IN (%s)"
                                            % ",".join("?" * len(threads)), threads).fetchall():
            nt = new_id(tidx[tid], t_ns)
            con.execute("UPDATE thread_sample SET tid = ? WHERE rowid = ?", (nt, rowid))
            if nt not in seen:
                pid, role, comm, _ = info[tid]
                seen[nt] = (new_id(widx[pid], t_ns), role, comm, t_ns)
        con.execute("DELETE FROM thread_info WHERE tid IN (%s)" % ",".join("?" * len(threads)), threads)
        for nt, (pid, role, comm, first) in seen.items():
            con.execute("INSERT INTO thread_info(tid, pid, role, comm, first_t_ns) VALUES(?,?,?,?,?)",
                        (nt, pid, role, comm, first))
    return True


def coarsen_gpm(con):
    """The GPM columns held over COARSE_GPM_WINDOW_NS windows per GPU: each
    window's GPM rows averaged (every recorded window is as long as the
    next) into its last row, the window's other rows nulled. False without
    GPM rows."""
    cols = [c for c in GPM_COLUMNS if c in columns(con, "gpu_sample")]
    if "sm_active_pct" not in cols:
        return False
    rows = con.execute("SELECT rowid, gpu, t_ns, %s FROM gpu_sample WHERE sm_active_pct IS NOT NULL ORDER BY gpu, t_ns"
                       % ", ".join(cols)).fetchall()
    if len(rows) < 2:
        return False
    t0 = {}
    windows = {}
    for r in rows:
        gpu, t_ns = r[1], r[2]
        t0.setdefault(gpu, t_ns)
        windows.setdefault((gpu, (t_ns - t0[gpu]) // COARSE_GPM_WINDOW_NS), []).append(r)
    for ws in windows.values():
        means = []
        for k in range(len(cols)):
            v = [w[3 + k] for w in ws if w[3 + k] is not None]
            means.append(sum(v) / len(v) if v else None)
        con.execute("UPDATE gpu_sample SET %s WHERE rowid = ?" % ", ".join("%s = ?" % c for c in cols),
                    means + [ws[-1][0]])
        for w in ws[:-1]:
            con.execute("UPDATE gpu_sample SET %s WHERE rowid = ?" % ", ".join("%s = NULL" % c for c in cols), (w[0],))
    return True


def run_report(binary, db):
    p = subprocess.run([binary, "report", "--format", "json", db], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, LANGUAGE="C", LANG="C", LC_ALL="C"))
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace").strip()
    try:
        return json.loads(p.stdout), None
    except ValueError as e:
        return None, "bad JSON: %s" % e


def expected_of(truth, variant):
    """The classes the variant really has: a second process taking 35% of
    GPU 0's SM time is an environment cause (hardware_env) beside the run's own."""
    expected = set(truth.get("expected_classes") or [truth.get("expected_class")])
    if variant == "second_proc":
        expected = (expected - {"none"}) | {"hardware_env"}
    return expected


def score(report, truth, variant):
    expected = expected_of(truth, variant)
    causes = expected - {"none"}
    findings = report.get("findings", [])
    classes = [f["class"] for f in findings]
    verdict = report.get("verdict")
    right = verdict in expected if causes else verdict == "none"
    found = causes.issubset(classes)
    absent = [f for f in findings if f["class"] not in expected]
    text = json.dumps(report)
    return {
        "verdict": verdict,
        "classes": classes,
        "verdict_right": right,
        "causes_found": found,
        "absent": [(f["class"], f.get("confidence")) for f in absent],
        "nfindings": len(findings),
        "conf": [(f.get("confidence") or 0, f["class"] in expected) for f in findings],
        "raw": [(f.get("confidence_raw", f.get("confidence")) or 0, f["class"] in expected) for f in findings],
        "names_other": (str(OTHER_PID) in text) if variant == "second_proc" else None,
        "world_note": ("WORLD_SIZE" in text) if variant == "one_rank" else None,
        "margins": margins(report),
    }


def margins(report):
    """Each gate's margin per GPU: value minus threshold (the sign says the side)."""
    out = []
    for g in report.get("gpus", []):
        p = dict(g.get("profile", {}))
        if p.get("power_median_w") is not None and p.get("power_limit_w"):
            p["power_frac"] = p["power_median_w"] / p["power_limit_w"]
        for name, key, thr, rule in GATES:
            v = p.get(key)
            if v is not None:
                out.append((g.get("gpu"), name, rule, v, v - thr))
    return out


def load_corpus(dirs):
    """(name, db, truth) per labelled recording; with several folders the name
    carries its folder's, since the corpora share program names."""
    runs = []
    for d in dirs:
        prefix = os.path.basename(os.path.normpath(d)) + "/" if len(dirs) > 1 else ""
        for f in sorted(os.listdir(d)):
            if f.endswith(".db") and os.path.exists(os.path.join(d, f[:-3] + ".truth.json")):
                runs.append((prefix + f[:-3], os.path.join(d, f), json.load(open(os.path.join(d, f[:-3] + ".truth.json")))))
    return runs


def summarise(results):
    """Figures per variant: fractions and counts."""
    out = {}
    for v in VARIANTS:
        rs = [r for r in results if r["variant"] == v and r.get("score")]
        if not rs:
            continue
        n = len(rs)
        nf = sum(r["score"]["nfindings"] for r in rs)
        na = sum(len(r["score"]["absent"]) for r in rs)
        s = {
            "runs": n,
            "verdict_right": sum(r["score"]["verdict_right"] for r in rs) / n,
            "causes_found": sum(r["score"]["causes_found"] for r in rs) / n,
            "absent_findings": na,
            "findings": nf,
            "absent_share": na / nf if nf else 0.0,
            # said "unexplained" (and named the recording that decides) where a cause is real
            "unexplained": sum(r["score"]["verdict"] == "unexplained" for r in rs),
        }
        if v == "second_proc":
            s["names_other_process"] = sum(bool(r["score"]["names_other"]) for r in rs) / n
        if v == "one_rank":
            s["world_size_note"] = sum(bool(r["score"]["world_note"]) for r in rs) / n
        if v == "no_gpm":
            # record traces sampled windows by itself on a GPU without GPM;
            # a recording with no kernel trace is what --no-trace gives there
            for key, want in (("traced", True), ("untraced", False)):
                sub = [r for r in rs if r.get("traced") == want]
                s[key + "_runs"] = len(sub)
                s[key + "_verdict_right"] = sum(r["score"]["verdict_right"] for r in sub)
        out[v] = s
    return out


def band_of(raw):
    for i, (lo, hi) in enumerate(RAW_BANDS):
        if raw + 1e-6 < hi:  # sums of the rules' 0.05 steps land a hair under an edge
            return i
    return len(RAW_BANDS) - 1


def calibration_table(pairs):
    """Per raw band: (findings, right, calibrated rate). The rate is smoothed
    by one right and one wrong finding (Laplace), then made non-decreasing
    over the bands by pooling adjacent violators, weighted by the findings."""
    n = [0] * len(RAW_BANDS)
    right = [0] * len(RAW_BANDS)
    for raw, ok in pairs:
        b = band_of(raw)
        n[b] += 1
        right[b] += bool(ok)
    blocks = [[(right[i] + 1) / (n[i] + 2), n[i] + 2, [i]] for i in range(len(RAW_BANDS))]
    i = 0
    while i < len(blocks) - 1:
        if blocks[i][0] > blocks[i + 1][0]:
            a, b = blocks[i], blocks[i + 1]
            w = a[1] + b[1]
            blocks[i:i + 2] = [[(a[0] * a[1] + b[0] * b[1]) / w, w, a[2] + b[2]]]
            i = max(i - 1, 0)
        else:
            i += 1
    cal = [0.0] * len(RAW_BANDS)
    for rate, _, idx in blocks:
        for k in idx:
            cal[k] = rate
    return [(n[i], right[i], cal[i]) for i in range(len(RAW_BANDS))]


def program_of(name, truth, by_stem=None):
    """The program a labelled recording ran: its script, with --mode where
    the script has several (scenarios/ddp.py, weak_spots.py), from the
    truth's argv; a truth without argv takes the program of a recording of
    the same scenario that has one (by_stem), else its scenario's stem with
    a sweep point, stage, level or variant suffix cut (sweep_bs32 -> sweep,
    worked_case_s2 -> worked_case, logging_helper_45 -> logging_helper).
    Recordings of one program share code and behaviour: a calibration that
    leaves out one of them and keeps its siblings is still in sample."""
    stem = truth.get("scenario") or name.rsplit("/", 1)[-1]
    argv = truth.get("argv")
    if isinstance(argv, list) and argv:
        prog = os.path.basename(str(argv[0]))
        if prog.endswith(".py"):
            prog = prog[:-3]
        if "--mode" in argv and argv.index("--mode") + 1 < len(argv):
            prog += ":" + str(argv[argv.index("--mode") + 1])
        return prog
    if by_stem and stem in by_stem:
        return by_stem[stem]
    return re.sub(r"_(bs\d+|s\d+|k\d+|\d+)$", "", stem)


def programs(results):
    """name -> program for every result (program_of over the corpus)."""
    by_stem = {}
    for r in results:
        t = r.get("truth") or {}
        if isinstance(t.get("argv"), list) and t["argv"]:
            by_stem[t.get("scenario") or r["name"].rsplit("/", 1)[-1]] = program_of(r["name"], t)
    return {r["name"]: program_of(r["name"], r.get("truth") or {}, by_stem) for r in results}


def calibrate_lopo(results, with_name=False):
    """(calibrated, right) per finding, each calibrated by a table made
    without any recording of its program (every variant, every corpus):
    out of sample. with_name: (calibrated, right, recording name)."""
    prog = programs(results)
    out = []
    for p in sorted(set(prog.values())):
        rest = [x for r in results if r.get("score") and prog[r["name"]] != p for x in r["score"]["raw"]]
        table = calibration_table(rest)
        for r in results:
            if r.get("score") and prog[r["name"]] == p:
                out += [(table[band_of(raw)][2], ok) + ((r["name"],) if with_name else ())
                        for raw, ok in r["score"]["raw"]]
    return out


def top_bucket_by_corpus(results):
    """corpus -> (findings, right) of the 0.90-1.00 bucket out of sample,
    where the names carry their corpus (several --dir)."""
    out = {}
    lo = CONF_BUCKETS[-1][0]
    for c, ok, name in calibrate_lopo(results, with_name=True):
        if "/" not in name or c < lo:
            continue
        n, right = out.get(name.split("/")[0], (0, 0))
        out[name.split("/")[0]] = (n + 1, right + bool(ok))
    return out


def reliability(results, which="conf"):
    """Findings bucketed by confidence, with the share that named a true
    class. which: "conf" as printed, "raw" the rules' raw scores, "lopo"
    calibrated leaving one program out."""
    rows = []
    if which == "lopo":
        conf = calibrate_lopo(results)
    else:
        conf = [c for r in results if r.get("score") for c in r["score"][which]]
    for lo, hi in CONF_BUCKETS:
        b = [ok for c, ok in conf if lo <= c < hi]
        rows.append((lo, min(hi, 1.0), len(b), sum(b) / len(b) if b else None))
    return rows


def print_tables(results, summary, show_margins):
    for v in VARIANTS:
        rs = [r for r in results if r["variant"] == v]
        if not rs:
            continue
        print("== variant %s ==" % v)
        print("%-26s %-16s %-3s %-3s %s" % ("recording", "verdict", "ok", "all", "findings (absent marked *)"))
        for r in rs:
            s = r.get("score")
            if not s:
                print("%-26s ERROR %s" % (r["name"], r.get("error")))
                continue
            exp = set(r["expected"])
            fl = " ".join(("*" if c not in exp else "") + c for c in s["classes"]) or "-"
            extra = ""
            if s["names_other"] is not None:
                extra = " [other process %s]" % ("named" if s["names_other"] else "NOT named")
            if s["world_note"] is not None:
                extra = " [WORLD_SIZE %s]" % ("noted" if s["world_note"] else "NOT noted")
            print("%-26s %-16s %-3s %-3s %s  (true: %s)%s" % (r["name"], s["verdict"], "yes" if s["verdict_right"]
                  else "NO", "yes" if s["causes_found"] else "NO", fl, ",".join(sorted(exp)), extra))
        m = summary.get(v)
        if m:
            line = "  verdict right %d/%d (%.0f%%), all true causes found %d/%d (%.0f%%), absent findings %d of %d " \
                   "(%.1f%%)" % (round(m["verdict_right"] * m["runs"]), m["runs"], 100 * m["verdict_right"],
                                 round(m["causes_found"] * m["runs"]), m["runs"], 100 * m["causes_found"],
                                 m["absent_findings"], m["findings"], 100 * m["absent_share"])
            if m["unexplained"]:
                line += ", unexplained %d" % m["unexplained"]
            if "names_other_process" in m:
                line += ", other process named %.0f%%" % (100 * m["names_other_process"])
            if "world_size_note" in m:
                line += ", WORLD_SIZE noted %.0f%%" % (100 * m["world_size_note"])
            print(line)
            if m.get("untraced_runs"):
                print("  of those, with a kernel trace (what record keeps on a GPU without GPM): verdict right %d/%d; "
                      "without one (record --no-trace there): %d/%d" % (m["traced_verdict_right"], m["traced_runs"],
                                                                        m["untraced_verdict_right"], m["untraced_runs"]))
        print()
    for which, title in (("raw", "raw rule score (before calibration)"),
                         ("lopo", "calibrated, each recording by a table made without its program (out of sample)"),
                         ("conf", "printed confidence (the committed table: in-sample for this corpus)")):
        print("== reliability: %s, against outcome (all variants) ==" % title)
        print("%-12s %8s %10s" % ("confidence", "findings", "right"))
        for lo, hi, n, frac in reliability(results, which):
            print("%4.2f-%-7.2f %8d %10s" % (lo, hi, n, "-" if frac is None else "%.2f" % frac))
        if which == "lopo":
            for corpus, (n, right) in sorted(top_bucket_by_corpus(results).items()):
                print("  %s: %d at %.2f-1.00, %s right" % (corpus, n, CONF_BUCKETS[-1][0],
                                                          "%.2f" % (right / n) if n else "-"))
        print()
    if show_margins:
        print("== gate margins (recorded): value - threshold, per GPU ==")
        for r in results:
            if r["variant"] != "recorded" or not r.get("score"):
                continue
            ms = ", ".join("gpu%s %s %+.3g" % (g, name, d) for g, name, rule, v, d in r["score"]["margins"])
            print("%-26s %s" % (r["name"], ms))
        print()


def check_floors(summary, floors):
    bad = []
    for v, f in floors.items():
        m = summary.get(v)
        if not m:
            continue
        for key in ("verdict_right", "causes_found", "names_other_process", "world_size_note"):
            if key in f and key in m and m[key] + 1e-9 < f[key]:
                bad.append("%s %s %.3f below the floor %.3f" % (v, key, m[key], f[key]))
        if "absent_share_max" in f and m["absent_share"] > f["absent_share_max"] + 1e-9:
            bad.append("%s absent_share %.3f above the ceiling %.3f" % (v, m["absent_share"], f["absent_share_max"]))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.environ.get("GW_BIN", os.path.join(SOURCE, "build", "gpuwhy")))
    ap.add_argument("--dir", action="append", help="folder of NAME.db + NAME.truth.json (repeatable)")
    ap.add_argument("--variant", action="append", choices=VARIANTS, help="only these variants")
    ap.add_argument("--floors", default=os.path.join(HERE, "floors.json"))
    ap.add_argument("--write-floors", action="store_true", help="write today's figures as the floor")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("--margins", action="store_true", help="print each gate's margin per recording")
    ap.add_argument("-j", type=int, default=2, help="reports run at once")
    a = ap.parse_args()
    dirs = a.dir or [os.path.join(SOURCE, "tests", "fixtures", "scenarios")]
    if not os.access(a.bin, os.X_OK):
        print("accuracy: no gpuwhy binary at %s (set --bin or GW_BIN)" % a.bin, file=sys.stderr)
        return 2
    corpus = load_corpus(dirs)
    if not corpus:
        print("accuracy: no labelled recordings (NAME.db with NAME.truth.json) in %s" % dirs, file=sys.stderr)
        return 2
    variants = a.variant or VARIANTS
    tmp = tempfile.mkdtemp(prefix="gw_accuracy_")
    jobs = []
    try:
        for name, db, truth in corpus:
            traced = has_kernel_trace(db)
            for v in variants:
                dst = os.path.join(tmp, "%s.%s.db" % (name.replace("/", "__"), v))
                if make_variant(db, dst, v, truth):
                    jobs.append((name, v, dst, truth, traced))
                else:
                    os.unlink(dst)

        def one(job):
            name, v, dst, truth, traced = job
            rep, err = run_report(a.bin, dst)
            r = {"name": name, "variant": v, "expected": sorted(expected_of(truth, v)), "traced": traced,
                 "truth": {k: truth[k] for k in ("scenario", "argv") if k in truth}}
            if rep is None:
                r["error"] = err
            else:
                r["score"] = score(rep, truth, v)
            return r

        with ThreadPoolExecutor(max_workers=max(1, a.j)) as ex:
            results = list(ex.map(one, jobs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    summary = summarise(results)
    print_tables(results, summary, a.margins)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"summary": summary, "reliability": reliability(results),
                       "reliability_raw": reliability(results, "raw"),
                       "reliability_lopo": reliability(results, "lopo"), "results": results}, fh, indent=1)
    errors = [r for r in results if "error" in r]
    if errors:
        print("accuracy: %d report(s) failed" % len(errors), file=sys.stderr)
        return 1
    if a.write_floors:
        # a step of 0.0001 below each figure (above each ceiling): rounding
        # to four places must not put today's own figure past its floor
        floors = {v: {k: round(m[k] - 0.0001, 4) for k in ("verdict_right", "causes_found", "names_other_process",
                                                           "world_size_note") if k in m} for v, m in summary.items()}
        for v, m in summary.items():
            floors[v]["absent_share_max"] = round(m["absent_share"] + 0.0001, 4)
        with open(a.floors, "w") as fh:
            json.dump(floors, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print("floors written to %s" % a.floors)
        return 0
    if os.path.exists(a.floors):
        bad = check_floors(summary, json.load(open(a.floors)))
        if bad:
            for b in bad:
                print("FAIL: " + b, file=sys.stderr)
            return 1
        print("all figures at or above the floors in %s" % a.floors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
