#!/usr/bin/env python3
"""Workloads for bench/tracer.

storm: ~1 us kernels, 200 x (mul + add) on 64x64 tensors per step (launch-bound).
train: a real training step, a 4-layer transformer encoder (d 512, 8 heads, batch 32 x 128 tokens) with AdamW.
train_gpu: the same step on batch 256: the GPU sets its pace, so a cost on the GPU's side shows without the host's
noise (the H200 host's speed drifts by 10% from second to second, 0179f52:scripts/h200/plans/pmcost4.sh).

Runs --seconds of steps after a warm-up and prints the mean step time over the whole span (what a job feels,
sampling windows included) and the best mean of 10-step chunks; --chunks-out keeps every chunk's times so that steps inside and outside
the tracer's sampling windows can be told apart (bench/tracer/windows.py).
--workload both warms both up, then runs --seconds of the storm and --seconds of the training step in one
process and prints one line for each, prefixed "workload NAME" (one process start for two measurements).
--probe-out times the program's own thread finely, to see a stall at a window's edge from the program's side
(bench/tracer/edge_stall.py): storm, every launch (one tensor op) separately, writing the ops slower than
--probe-us (time.time_ns start and duration) plus every 100th op as a baseline sample; train, every step's
host time (no synchronisation inside the step, so it is the time the thread spent issuing it).
usage: storm.py [--workload storm|train|both] [--profiler] [--seconds 10] [--probe-out FILE]"""
import argparse
import time

import torch
from workloads import mul_add_storm, transformer_train_step

ap = argparse.ArgumentParser()
ap.add_argument("--workload", choices=("storm", "train", "train_gpu", "both"), default="storm")
ap.add_argument("--profiler", action="store_true", help="run under torch.profiler (CPU + CUDA activities)")
ap.add_argument("--seconds", type=float, default=10.0)
ap.add_argument("--chunk", type=int, default=10, help="steps between clock reads")
ap.add_argument("--chunks-out", default=None, help="write one line per chunk: start_ns end_ns steps (time.time_ns)")
ap.add_argument("--probe-out", default=None, help="write the program thread's fine timings (see above)")
ap.add_argument("--probe-us", type=float, default=20.0, help="storm probe: keep ops slower than this")
a = ap.parse_args()

x = torch.randn(64, 64, device="cuda")
y = torch.randn(64, 64, device="cuda")


def storm_step():
    return mul_add_storm(x, y)


probe = []  # (kind, start_ns, dur_ns)
probe_slow_ns = int(a.probe_us * 1000)
probe_ops = [0]


def storm_step_probed():
    clock = time.time_ns
    z = x
    n = probe_ops[0]
    for _ in range(200):
        t0 = clock()
        z = z * y
        t1 = clock()
        z = z + y
        t2 = clock()
        if t1 - t0 > probe_slow_ns or n % 100 == 0:
            probe.append(("op", t0, t1 - t0))
        if t2 - t1 > probe_slow_ns:
            probe.append(("op", t1, t2 - t1))
        n += 2
    probe_ops[0] = n
    return z


workloads = ("storm", "train") if a.workload == "both" else ("train",) if a.workload == "train_gpu" else (a.workload,)
# built only when used, so that a storm-only run loads what it always did
train_step = (transformer_train_step(torch, 256) if a.workload == "train_gpu" else
              transformer_train_step(torch) if "train" in workloads else None)


def train_step_probed():
    t0 = time.time_ns()
    train_step()
    probe.append(("step", t0, time.time_ns() - t0))


steps = {"storm": storm_step_probed if a.probe_out else storm_step,
         "train": train_step_probed if a.probe_out else train_step}
for w in workloads:
    for _ in range(20):
        steps[w]()
    torch.cuda.synchronize()
probe.clear()
probe_ops[0] = 0

chunks = []


def run(step):
    best = float("inf")
    n = 0
    torch.cuda.synchronize()
    t_start = time.perf_counter()
    while True:
        t0, w0 = time.perf_counter(), time.time_ns()
        for _ in range(a.chunk):
            step()
        torch.cuda.synchronize()
        t1, w1 = time.perf_counter(), time.time_ns()
        chunks.append((w0, w1))
        n += a.chunk
        best = min(best, (t1 - t0) / a.chunk)
        if t1 - t_start >= a.seconds:
            return (t1 - t_start) / n, best, n


def run_all():
    return [(w,) + run(steps[w]) for w in workloads]


if a.profiler:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        results = run_all()
else:
    results = run_all()
if a.chunks_out:
    with open(a.chunks_out, "w") as f:
        for w0, w1 in chunks:
            f.write(f"{w0} {w1} {a.chunk}\n")
if a.probe_out:
    with open(a.probe_out, "w") as f:
        f.write(f"ops {probe_ops[0]} slow_ns {probe_slow_ns}\n")
        for kind, t0, dur in probe:
            f.write(f"{kind} {t0} {dur}\n")
for w, mean, best, n in results:
    prefix = f"workload {w} " if a.workload == "both" else ""
    print(f"{prefix}mean_ms_per_step {mean * 1e3:.4f} best_ms_per_step {best * 1e3:.4f} steps {n}")
