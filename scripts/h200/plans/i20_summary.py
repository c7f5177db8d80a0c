"""Summary of recordings made with gpuwhy's Python hook (issue 20): per process
(rank) the hook's steps, those inside the truth file's steady-state window
against the truth's train steps, batch sizes against the truth's, samples per
step, data-wait share, steps/s. usage: i20_summary.py A.db [B.db ...]"""
import json
import os
import sqlite3
import sys


def truth_of(db):
    path = db[:-3] + ".truth.json" if db.endswith(".db") else db + ".truth.json"
    try:
        return json.load(open(path))
    except Exception:
        return None


for db in sys.argv[1:]:
    name = os.path.basename(db)
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        rows = con.execute("select pid, rank, source, count(*), min(t_start_ns), max(t_end_ns), sum(data_wait_ns),"
                           " sum(t_end_ns - t_start_ns), group_concat(distinct batch_size),"
                           " group_concat(distinct samples) from step group by pid, rank, source order by rank, pid"
                           ).fetchall()
        meta = dict(con.execute("select key, value from meta where key like 'python_hook%'").fetchall())
        events = con.execute("select kind, count(*), sum(code) from event where kind in"
                             " ('recompile','cuda_oom','cuda_alloc_retry') group by kind").fetchall()
    except Exception as e:
        print("%s: cannot read: %s" % (name, e))
        continue
    t = truth_of(db)
    print("== %s  meta %s  events %s" % (name, meta, events))
    if t:
        train = [s for s in t.get("steps", []) if s.get("kind", "train") == "train"]
        print("   truth: %d train steps, batch_size %s, samples_per_step %s, samples/s %s" % (
            len(train), t.get("batch_size"), t.get("samples_per_step"), t.get("samples_per_s")))
    if not rows:
        print("   NO STEPS")
    for pid, rank, source, n, t0, t1, wait, dur, batches, samples in rows:
        line = "   pid %s rank %s %s: %d steps, batch %s, samples/step %s, data wait %.1f%%, %.2f steps/s" % (
            pid, rank, source, n, batches, samples, 100.0 * (wait or 0) / max(dur or 1, 1),
            (n - 1) / max((t1 - t0) / 1e9, 1e-9))
        if t and t.get("started_ns") and t.get("ended_ns"):
            w0, w1 = t["started_ns"], t["ended_ns"]
            inside = con.execute("select count(*) from step where pid is ? and source = ? and t_end_ns > ? and"
                                 " t_end_ns <= ?", (pid, source, w0, w1)).fetchone()[0]
            ntruth = len([s for s in t.get("steps", []) if s.get("kind", "train") == "train"])
            line += "; in the truth window %d vs truth %d (%+.2f%%)" % (
                inside, ntruth, 100.0 * (inside - ntruth) / max(ntruth, 1))
        print(line)
