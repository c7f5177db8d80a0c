#!/usr/bin/env python3
"""A training-like loop that runs torch.profiler for a few steps in the middle of its run, as many training
scripts do, and counts the CUDA kernels in its own profiler trace.

Run alone and under `gpuwhy record --trace` (sampled, with a window open at that moment, and full): the counts
must agree, or gpuwhy took CUPTI from the profiler (bench/tracer/i23: "Coexistence").

Each step launches KERNELS_PER_STEP elementwise kernels (mul and add on a 256x256 tensor).
usage: profiler_mid_run.py [--before-s 4] [--steps 10] [--after-s 3] [--trace-out FILE]
Prints one line: profiler_kernels N expected M profiler_start_ns T0 profiler_end_ns T1 (time.time_ns, the
same CLOCK_REALTIME as the tracer's timestamps)."""
import argparse
import json
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--before-s", type=float, default=4.0, help="seconds of steps before the profiler starts")
ap.add_argument("--steps", type=int, default=10, help="steps under torch.profiler")
ap.add_argument("--after-s", type=float, default=3.0, help="seconds of steps after it stopped")
ap.add_argument("--trace-out", default=None, help="also export the profiler's Chrome trace here")
a = ap.parse_args()

PAIRS = 50
KERNELS_PER_STEP = 2 * PAIRS
x = torch.randn(256, 256, device="cuda")
y = torch.randn(256, 256, device="cuda")


def step():
    z = x
    for _ in range(PAIRS):
        z = z * y
        z = z + y
    return z


def run_for(seconds):
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        step()
    torch.cuda.synchronize()


run_for(a.before_s)
from torch.profiler import ProfilerActivity, profile  # noqa: E402

t0 = time.time_ns()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(a.steps):
        step()
    torch.cuda.synchronize()
t1 = time.time_ns()
kernels = 0
if a.trace_out:
    prof.export_chrome_trace(a.trace_out)
    with open(a.trace_out) as f:
        events = json.load(f).get("traceEvents", [])
    kernels = sum(1 for e in events if e.get("cat") == "kernel")
else:
    kernels = sum(1 for e in prof.events() if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA)
run_for(a.after_s)
print(f"profiler_kernels {kernels} expected {a.steps * KERNELS_PER_STEP} profiler_start_ns {t0} profiler_end_ns {t1}")
