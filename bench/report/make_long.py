#!/usr/bin/env python3
"""Builds a long recording from a real one by repeating its samples with
shifted timestamps (every table with a t_ns column, the step table too).
With --gpus N the per-GPU rows of the source's GPUs (every table with a gpu
column) are copied under new GPU indices until there are N GPUs, as a
multi-GPU host whose GPUs all ran the same program would record them.

usage: make_long.py SOURCE.db OUT.db [SECONDS] [--gpus N]
       (default 3600: one hour at the source's rate; the source's GPU count)"""
import argparse
import shutil
import sqlite3

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("out")
ap.add_argument("seconds", nargs="?", type=float, default=3600.0)
ap.add_argument("--gpus", type=int, default=0, help="GPU count of the result (0: the source's)")
args = ap.parse_args()
shutil.copyfile(args.src, args.out)
con = sqlite3.connect(args.out)
con.execute("pragma journal_mode = off")
con.execute("pragma synchronous = off")
t0, t1 = con.execute("select min(t_ns), max(t_ns) from gpu_sample").fetchone()
span = t1 - t0 + 100_000_000
copies = int(args.seconds * 1e9 // span)
tables = [r[0] for r in con.execute("select name from sqlite_master where type = 'table'")]
columns = {t: [c[1] for c in con.execute(f"pragma table_info({t})")] for t in tables}
timed = [t for t in tables if "t_ns" in columns[t]]
# Copies made in SQL (insert ... select): a day at 10 Hz is millions of rows.
# The source's rows are read by rowid range: a filter on t_ns alone would
# scan the growing table once per copy (quadratic).
for t in timed:
    cols = columns[t]
    sel = ", ".join("t_ns + ?" if c == "t_ns" else c for c in cols)
    last = con.execute(f"select coalesce(max(rowid), 0) from {t}").fetchone()[0]
    for k in range(1, copies):
        con.execute(f"insert into {t} ({', '.join(cols)}) select {sel} from {t} "
                    "where rowid <= ? and t_ns between ? and ?", (k * span, last, t0, t1))
steps = con.execute("select t_start_ns, t_end_ns, step, source from step").fetchall()
for k in range(1, copies):
    con.executemany("insert into step (t_start_ns, t_end_ns, step, source) VALUES (?, ?, ?, ?)",
                    [(a + k * span, b + k * span, s, src_) for a, b, s, src_ in steps])
con.execute("update run set ended_ns = ?", (t0 + copies * span,))
source_gpus = [r[0] for r in con.execute("select gpu from gpu order by gpu")]
if args.gpus > len(source_gpus):
    per_gpu = [t for t in tables if "gpu" in columns[t]]
    for new in range(len(source_gpus), args.gpus):
        old = source_gpus[new % len(source_gpus)]
        for t in per_gpu:
            cols = columns[t]
            if t == "gpu":  # the GPU's identity must differ from the one it copies
                ident = {"gpu": "?", "uuid": "uuid || '-copy' || ?", "pci_bus_id": "pci_bus_id || '-copy' || ?"}
                sel = ", ".join(ident.get(c, c) for c in cols)
                nparam = sum(1 for c in cols if c in ident)
                con.execute(f"insert into gpu ({', '.join(cols)}) select {sel} from gpu where gpu = ?",
                            (new,) * nparam + (old,))
            else:
                sel = ", ".join("?" if c == "gpu" else c for c in cols)
                con.execute(f"insert into {t} ({', '.join(cols)}) select {sel} from {t} where gpu = ?", (new, old))
con.commit()
n = con.execute("select count(*) from gpu_sample").fetchone()[0]
g = con.execute("select count(*) from gpu").fetchone()[0]
print(f"{args.out}: {copies} copies of {span / 1e9:.1f} s = {copies * span / 3.6e12:.2f} h, {g} GPU(s), "
      f"{n} GPU samples")
