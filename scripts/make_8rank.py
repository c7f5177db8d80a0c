#!/usr/bin/env python3
"""Build the recordings of a synthetic 8-rank job (4 nodes x 2 GPUs) from the
real 2-GPU straggler recording (tests/fixtures/scenarios/ddp_straggler.db):
node 1 is the recording itself (GPU 1 is the straggler, GPU 0 waits for it);
on nodes 2 to 4 both GPUs are copies of the waiting GPU 0 (its samples, its
rank's kernels, windows and processes), which is what the seven other ranks of
an 8-rank job with one slow rank look like. Each file gets its own host name.

usage: make_8rank.py STRAGGLER.db OUTDIR   -> OUTDIR/node1.db .. node4.db"""
import os
import shutil
import sqlite3
import sys

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)


def cols(con, table):
    return [r[1] for r in con.execute(f"PRAGMA table_info({table})")]


def copy_gpu0_to_gpu1(con, table, key, pid_map=None):
    """Replace the rows of GPU 1 by copies of GPU 0's (pid renamed to rank 1's)."""
    c = cols(con, table)
    con.execute(f"DELETE FROM {table} WHERE {key} = 1")
    sel = ", ".join("1" if x == key else (f"CASE pid WHEN {pid_map[0]} THEN {pid_map[1]} ELSE pid END"
                                          if pid_map and x == "pid" else x) for x in c)
    con.execute(f"INSERT INTO {table} ({', '.join(c)}) SELECT {sel} FROM {table} WHERE {key} = 0")


for node in range(1, 5):
    dst = os.path.join(out, f"node{node}.db")
    shutil.copy(src, dst)
    con = sqlite3.connect(dst)
    con.execute("UPDATE run SET hostname = ?", (f"node{node}",))
    if node > 1:
        pid0, pid1 = (con.execute("SELECT pid FROM kernel WHERE device = ? LIMIT 1", (d,)).fetchone()[0] for d in (0, 1))
        for table in ("gpu_sample", "gpu_health"):
            copy_gpu0_to_gpu1(con, table, "gpu")
        copy_gpu0_to_gpu1(con, "gpu_proc", "gpu", (pid0, pid1))
        for table in ("kernel", "memcpy", "memset"):
            copy_gpu0_to_gpu1(con, table, "device", (pid0, pid1))
        c = cols(con, "trace_window")
        con.execute("DELETE FROM trace_window WHERE pid = ?", (pid1,))
        con.execute(f"INSERT INTO trace_window ({', '.join(c)}) SELECT "
                    + ", ".join(str(pid1) if x == "pid" else x for x in c) + " FROM trace_window WHERE pid = ?", (pid0,))
    con.commit()
    con.close()
    print(dst)
