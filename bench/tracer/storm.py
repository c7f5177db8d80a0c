#!/usr/bin/env python3
"""A storm of ~1 us kernels: 200 x (mul + add) on 64x64 tensors per step.
Prints the best-of-N mean step time. usage: storm.py [--profiler] [--reps 7] [--steps 100]"""
import argparse
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--profiler", action="store_true", help="run under torch.profiler (CPU + CUDA activities)")
ap.add_argument("--reps", type=int, default=7)
ap.add_argument("--steps", type=int, default=100)
a = ap.parse_args()

x = torch.randn(64, 64, device="cuda")
y = torch.randn(64, 64, device="cuda")


def step():
    z = x
    for _ in range(200):
        z = z * y
        z = z + y
    return z


for _ in range(20):
    step()
torch.cuda.synchronize()


def run():
    best = float("inf")
    for _ in range(a.reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(a.steps):
            step()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / a.steps)
    return best


if a.profiler:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        best = run()
else:
    best = run()
print(f"best_ms_per_step {best * 1e3:.3f}")
