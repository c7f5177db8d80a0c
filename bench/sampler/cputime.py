#!/usr/bin/env python3
"""Run a command and print the CPU time and peak RSS it used (children included).

usage: cputime.py LABEL CMD [ARGS...]   -> one line: LABEL wall_s user_s sys_s cpu_pct_of_core max_rss_mb
"""
import resource
import subprocess
import sys
import time

label, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
wall = time.monotonic() - t0
r = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = r.ru_utime + r.ru_stime
print(f"{label:<28} wall {wall:6.1f} s  user {r.ru_utime:6.3f} s  sys {r.ru_stime:6.3f} s  "
      f"cpu {100.0 * cpu / wall:5.2f}% of a core  max_rss {r.ru_maxrss / 1024:6.1f} MB  rc {rc}", flush=True)
