#!/usr/bin/env python3
"""Kernel count and mean kernel duration of the same fixed workload, from
torch.profiler and from a gpuwhy recording made with --trace=full.

usage: count_compare.py profile OUT.json   -> runs the workload under torch.profiler, writes counts
       count_compare.py plain               -> runs the workload (to be wrapped by gpuwhy record --trace=full)
       count_compare.py compare OUT.json RECORDING.db
The workload: 50 steps of 200 x (mul + add) on 64x64 tensors (400 kernels a step) and 50 steps of a
small MLP forward/backward (cuBLAS kernels), after a warm-up that both runs also do."""
import json
import sqlite3
import sys

from workloads import mul_add_storm  # beside this file

WARMUP, STEPS = 5, 50


def workload(torch):
    x = torch.randn(64, 64, device="cuda")
    y = torch.randn(64, 64, device="cuda")
    lin = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 512)).cuda()
    inp = torch.randn(256, 512, device="cuda")

    def step():
        z = mul_add_storm(x, y)
        out = lin(inp).sum()
        out.backward()
        return z

    for _ in range(WARMUP):
        step()
    torch.cuda.synchronize()
    return step


def main():
    mode = sys.argv[1]
    if mode == "compare":
        prof = json.load(open(sys.argv[2]))
        con = sqlite3.connect(f"file:{sys.argv[3]}?mode=ro", uri=True)
        n, mean_ns = con.execute("select count(*), avg(end_ns - start_ns) from kernel").fetchone()
        ours_steps_kernels = n
        print(f"torch.profiler: {prof['kernels']} kernels in {STEPS} steps (+warm-up {WARMUP} outside the profile),"
              f" {prof['kernels'] / STEPS:.1f} per step, mean {prof['mean_us']:.3f} us")
        # gpuwhy traces the whole process: warm-up included (WARMUP + STEPS steps).
        per_step = ours_steps_kernels / (WARMUP + STEPS)
        print(f"gpuwhy --trace=full: {n} kernels in {WARMUP + STEPS} steps, {per_step:.1f} per step,"
              f" mean {mean_ns / 1000:.3f} us")
        print(f"difference: kernels per step {100 * (per_step / (prof['kernels'] / STEPS) - 1):+.2f}%,"
              f" mean duration {100 * (mean_ns / 1000 / prof['mean_us'] - 1):+.2f}%")
        return
    import torch
    step = workload(torch)
    if mode == "plain":
        for _ in range(STEPS):
            step()
        torch.cuda.synchronize()
        return
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(STEPS):
            step()
        torch.cuda.synchronize()
    kernels = [e for e in p.events() if e.device_type.name == "CUDA" and "memcpy" not in e.name.lower()
               and "memset" not in e.name.lower()]
    mean_us = sum(e.device_time for e in kernels) / max(1, len(kernels))
    json.dump({"kernels": len(kernels), "mean_us": mean_us}, open(sys.argv[2], "w"))
    print("profiled", len(kernels), "kernels, mean", mean_us, "us")


main()
