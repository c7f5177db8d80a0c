#!/usr/bin/env python3
"""Checks on recordings made with the Python hook (scripts/h200/plans/record_scenarios.sh runs the first).

  check_steps.py batch DB...    per recording: hook steps inside the truth's window against its train steps
                               (1%), batch sizes per rank against the truth's (ranks[].batch, else batch_size),
                               the input shapes seen, and whether every rank has steps
  check_steps.py compile DB     compile_dynamic: per step its time, compile time and shape; compile and
                               recompile events with reasons; the truth's compile block; the report's
                               schedule_shape evidence (GPUWHY_BIN names the binary)
Standard library only; prints one block per recording, "ok" or "MISMATCH" per check."""
import json
import os
import sqlite3
import subprocess
import sys


def truth_of(db):
    try:
        return json.load(open(db[:-3] + ".truth.json"))
    except Exception as e:
        print("  no truth: %s" % e)
        return None


def columns(con, table):
    return {r[1] for r in con.execute("pragma table_info(%s)" % table)}


def check_batch(db):
    name = os.path.basename(db)[:-3]
    print("===== %s" % name)
    t = truth_of(db)
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    cols = columns(con, "step")
    if "rank" not in cols:
        print("  no hook columns in the step table (a recording from before the Python hook): MISMATCH")
        return 1
    has_shape = "shape" in cols
    rows = con.execute("select rank, pid, count(*), min(batch_size), max(batch_size), count(batch_size) from step"
                       " where source like 'python_hook%%' group by pid order by rank").fetchall()
    if not rows:
        print("  no hook steps: MISMATCH")
        return 1
    bad = 0
    ranks = {}
    if t:
        for r in t.get("ranks") or []:
            ranks[r.get("rank")] = r.get("batch")
    for rank, pid, n, bmin, bmax, nb in rows:
        want = ranks.get(rank if rank is not None else 0, t.get("batch_size") if t else None) if t else None
        ok = bmin is not None and bmin == bmax and (want is None or bmin == want)
        shapes = ""
        if has_shape:
            shapes = ", ".join("%s x%d" % s for s in con.execute(
                "select shape, count(*) from step where pid = ? group by shape order by count(*) desc limit 4",
                (pid,)).fetchall())
        print("  rank %s pid %d: %d steps, batch %s..%s (%d known) truth %s: %s; shapes %s" % (
            rank, pid, n, bmin, bmax, nb, want, "ok" if ok else "MISMATCH", shapes or "(no shape column)"))
        bad += not ok
    if t and t.get("steps"):
        train = [s for s in t["steps"] if s.get("kind", "train") == "train"]
        lo, hi = t["started_ns"], t["ended_ns"]
        first_pid = rows[0][1]
        inside = con.execute("select count(*) from step where pid = ? and t_end_ns > ? and t_end_ns <= ?",
                             (first_pid, lo, hi)).fetchone()[0]
        ok = train and abs(inside - len(train)) <= 0.01 * len(train) + 1
        print("  steps inside the truth window (rank %s): hook %d truth %d: %s" % (
            rows[0][0], inside, len(train), "ok" if ok else "MISMATCH"))
        bad += not ok
        world = t.get("world_size")
        if world:
            ok = len({r[0] for r in rows}) == world
            print("  ranks with steps %d of %d: %s" % (len(rows), world, "ok" if ok else "MISMATCH"))
            bad += not ok
    return 1 if bad else 0


def check_compile(db):
    print("===== %s" % os.path.basename(db))
    t = truth_of(db)
    if t:
        print("  truth compile: %s" % json.dumps(t.get("compile"))[:600])
        print("  truth compile_error: %s" % t.get("compile_error"))
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    cols = columns(con, "step")
    if "compile_ns" not in cols:
        print("  no compile_ns column (a recording from before the hook's compile callbacks)")
        return 1
    total = comp = 0
    for step, dur_ns, compile_ns, shape, batch in con.execute(
            "select step, t_end_ns - t_start_ns, compile_ns, shape, batch_size from step order by t_start_ns"):
        total += dur_ns
        comp += compile_ns or 0
        if step <= 12 or (compile_ns or 0) > 0:
            print("  step %4d %9.1f ms compile %9.1f ms shape %-10s batch %s" % (
                step, dur_ns / 1e6, (compile_ns or 0) / 1e6, shape, batch))
    print("  steps %.1f s, compile inside steps %.1f s (%.0f%%)" % (total / 1e9, comp / 1e9,
                                                                    100.0 * comp / total if total else 0))
    for kind, n, s in con.execute("select kind, count(*), sum(code) from event where kind in ('compile', 'recompile')"
                                  " group by kind"):
        print("  events %s: %d (codes summed %s)" % (kind, n, s))
    for (m,) in con.execute("select message from event where kind = 'recompile' order by t_ns limit 3"):
        print("  recompile: %s" % m)
    gw = os.environ.get("GPUWHY_BIN")
    if gw:
        out = subprocess.run([gw, "report", "--format", "json", db], capture_output=True, text=True)
        try:
            d = json.loads(out.stdout)
            print("  verdict %s" % d.get("verdict"))
            for f in d.get("findings", []):
                print("  finding %s share_of_active %.2f confidence %.2f" % (
                    f["class"], f["share_of_active"], f["confidence"]))
                if f["class"] == "schedule_shape":
                    for e in f["evidence"]:
                        print("    - %s" % e["text"])
                    for x in f["fixes"]:
                        print("    fix: %s" % x["what"])
        except Exception as e:
            print("  report failed: %s %s" % (e, out.stderr[-300:]))
    return 0


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("batch", "compile"):
        sys.exit(__doc__)
    bad = 0
    for db in sys.argv[2:]:
        try:
            bad += (check_batch if sys.argv[1] == "batch" else check_compile)(db)
        except Exception as e:
            print("  %s: failed: %s: %s" % (db, type(e).__name__, e))
            bad += 1
    print("checks: %d recording(s) with a mismatch" % bad)


if __name__ == "__main__":
    main()
