#!/usr/bin/env python3
"""Copy a recording made with host rows at every tick and turn its host side
into what the recorder writes now: host_sample, proc_sample and cpu_sample
once a second (at the ticks that hold disk rows, else about every second),
each the mean over the ticks of that second. Used to check that the verdicts
on the scenario recordings do not depend on the host's sampling rate.
usage: host_once_a_second.py IN.db OUT.db"""
import shutil
import sqlite3
import sys

src, dst = sys.argv[1], sys.argv[2]
shutil.copyfile(src, dst)
db = sqlite3.connect(dst)
ticks = [t for (t,) in db.execute("SELECT t_ns FROM host_sample ORDER BY t_ns")]
if not ticks:
    sys.exit(0)
ends = [t for (t,) in db.execute("SELECT DISTINCT t_ns FROM disk_sample ORDER BY t_ns")]
if len(ends) < 2:
    ends, last = [], None
    for t in ticks:
        if last is None or t - last >= 950_000_000:
            ends.append(t)
            last = t
if ends[-1] != ticks[-1]:
    ends.append(ticks[-1])  # the closing row


def bucket_of(t):
    lo, hi = 0, len(ends)
    while lo < hi:
        mid = (lo + hi) // 2
        if ends[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return ends[lo] if lo < len(ends) else None


def aggregate(table, key_cols, mean_cols):
    cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
    rows = db.execute(f"SELECT * FROM {table} ORDER BY t_ns").fetchall()
    groups = {}
    for r in rows:
        d = dict(zip(cols, r))
        end = bucket_of(d["t_ns"])
        if end is None:
            continue
        k = (end,) + tuple(d[c] for c in key_cols)
        groups.setdefault(k, []).append(d)
    db.execute(f"DELETE FROM {table}")
    for k, ds in groups.items():
        out = dict(ds[-1])
        out["t_ns"] = k[0]
        for c in mean_cols:
            v = [d[c] for d in ds if d[c] is not None]
            out[c] = sum(v) / len(v) if v else None
        db.execute(f"INSERT INTO {table} ({','.join(cols)}) VALUES ({','.join('?' * len(cols))})",
                   [out[c] for c in cols])


aggregate("host_sample", [], ["cpu_busy_pct", "cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct", "cpu_steal_pct",
                              "psi_cpu_some_pct", "psi_mem_some_pct", "psi_mem_full_pct", "psi_io_some_pct",
                              "psi_io_full_pct"])
aggregate("proc_sample", ["pid"], ["cpu_pct", "main_thread_cpu_pct"])
aggregate("cpu_sample", ["core"], [c for c in ("busy_pct", "user_pct", "system_pct", "iowait_pct", "steal_pct")])
db.commit()
db.close()
