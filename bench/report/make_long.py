#!/usr/bin/env python3
"""Builds a long recording from a real one by repeating its samples with
shifted timestamps (every table with a t_ns column, the step table too).

usage: make_long.py SOURCE.db OUT.db [SECONDS]   (default 3600: one hour at the source's rate)"""
import shutil
import sqlite3
import sys

src, out = sys.argv[1], sys.argv[2]
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 3600.0
shutil.copyfile(src, out)
con = sqlite3.connect(out)
t0, t1 = con.execute("select min(t_ns), max(t_ns) from gpu_sample").fetchone()
span = t1 - t0 + 100_000_000
copies = int(seconds * 1e9 // span)
tables = [r[0] for r in con.execute("select name from sqlite_master where type = 'table'")]
timed = [t for t in tables if "t_ns" in [c[1] for c in con.execute(f"pragma table_info({t})")]]
for t in timed:
    cols = [c[1] for c in con.execute(f"pragma table_info({t})")]
    sel = ", ".join("t_ns + ?" if c == "t_ns" else c for c in cols)
    rows = con.execute(f"select {', '.join(cols)} from {t} where t_ns between ? and ?", (t0, t1)).fetchall()
    idx = cols.index("t_ns")
    for k in range(1, copies):
        shift = k * span
        con.executemany(f"insert into {t} values ({', '.join('?' * len(cols))})",
                        [r[:idx] + (r[idx] + shift,) + r[idx + 1:] for r in rows])
steps = con.execute("select t_start_ns, t_end_ns, step, source from step").fetchall()
for k in range(1, copies):
    con.executemany("insert into step (t_start_ns, t_end_ns, step, source) VALUES (?, ?, ?, ?)",
                    [(a + k * span, b + k * span, s, src_) for a, b, s, src_ in steps])
con.execute("update run set ended_ns = ?", (t0 + copies * span,))
con.commit()
n = con.execute("select count(*) from gpu_sample").fetchone()[0]
print(f"{out}: {copies} copies of {span / 1e9:.1f} s = {copies * span / 3.6e12:.2f} h, {n} GPU samples")
