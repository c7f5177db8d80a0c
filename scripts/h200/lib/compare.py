#!/usr/bin/env python3
"""Side by side: nvidia-smi --query-gpu readings against the gpuwhy samples
taken at the same moment, and dmon's GPM columns against gpuwhy's GPM means.
usage: compare.py RECORDING QUERY_TXT DMON_TXT"""
import sqlite3
import sys

db, query_txt, dmon_txt = sys.argv[1:4]
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def nearest(t_ns, window_ns=600_000_000):
    row = con.execute(
        "select t_ns, util_gpu_pct, sm_active_pct, power_mw, sm_clock_mhz, mem_clock_mhz, pstate, clock_reasons,"
        " mem_used_bytes from gpu_sample where gpu = 0 and sm_clock_mhz is not null"  # clocks: once a second
        " and abs(t_ns - ?) < ? order by abs(t_ns - ?) limit 1",
        (t_ns, window_ns, t_ns)).fetchone()
    health = con.execute(
        "select power_limit_mw, temp_gpu_c, pcie_gen, pcie_width from gpu_health where gpu = 0"
        " order by abs(t_ns - ?) limit 1", (t_ns,)).fetchone()
    return row, health


lines = open(query_txt).read().splitlines()
i = 0
print("nvidia-smi --query-gpu  vs  gpuwhy (nearest sample)")
while i < len(lines):
    if lines[i].startswith("t_ns_before"):
        t0 = int(lines[i].split()[1])
        values = lines[i + 2]
        t1 = int(lines[i + 3].split()[1])
        row, health = nearest((t0 + t1) // 2)
        print("  nvidia-smi:", values)
        if row:
            print(f"  gpuwhy:     util {row[1]} %, SM activity {row[2]} %, power {row[3] / 1000:.1f} W, "
                  f"limit {health[0] / 1000 if health and health[0] else None} W, SM {row[4]} MHz, mem {row[5]} MHz, "
                  f"P{row[6]}, reasons 0x{int(row[7] or 0):x}, temp {health[1] if health else None} C, "
                  f"PCIe gen{health[2] if health else None} x{health[3] if health else None}, "
                  f"mem used {row[8] / 2**20 if row[8] else None:.0f} MiB, dt {(row[0] - (t0 + t1) // 2) / 1e6:.0f} ms")
        i += 4
    else:
        i += 1

print("\nnvidia-smi dmon GPM columns (per second)  vs  gpuwhy GPM mean over the same seconds")
hdr = None
for line in open(dmon_txt):
    parts = line.split()
    if line.startswith("#Time") or line.startswith("# Time") or (line.startswith("#") and "gpu" in line and hdr is None):
        hdr = line.lstrip("#").split()
        continue
    if line.startswith("#") or not parts or hdr is None:
        continue
    rec = dict(zip(hdr, parts))
    print("  dmon:", " ".join(f"{k}={v}" for k, v in rec.items()))
print("\ngpuwhy per-second means of the run:")
for row in con.execute("select strftime('%H:%M:%S', t_ns / 1000000000, 'unixepoch', 'localtime') as s, round(avg(util_gpu_pct),1), round(avg(sm_active_pct),1),"
                       " round(avg(sm_occupancy_pct),1), round(avg(tensor_active_pct),1), round(avg(dram_bw_pct),1),"
                       " round(avg(power_mw)/1000.0,1), round(avg(sm_clock_mhz)) from gpu_sample where gpu = 0"
                       " group by s order by s"):
    print("  ", row)
