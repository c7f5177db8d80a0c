#!/usr/bin/env python3
"""Workloads for bench/tracer.

storm: ~1 us kernels, 200 x (mul + add) on 64x64 tensors per step (launch-bound).
train: a real training step, a 4-layer transformer encoder (d 512, 8 heads, batch 32 x 128 tokens) with AdamW.

Runs --seconds of steps after a warm-up and prints the mean step time over the whole span (what a job feels,
sampling windows included) and the best mean of 10-step chunks; --chunks-out keeps every chunk's times so that steps inside and outside
the tracer's sampling windows can be told apart (bench/tracer/windows.py).
usage: storm.py [--workload storm|train] [--profiler] [--seconds 10]"""
import argparse
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--workload", choices=("storm", "train"), default="storm")
ap.add_argument("--profiler", action="store_true", help="run under torch.profiler (CPU + CUDA activities)")
ap.add_argument("--seconds", type=float, default=10.0)
ap.add_argument("--chunk", type=int, default=10, help="steps between clock reads")
ap.add_argument("--chunks-out", default=None, help="write one line per chunk: start_ns end_ns steps (time.time_ns)")
a = ap.parse_args()

if a.workload == "storm":
    x = torch.randn(64, 64, device="cuda")
    y = torch.randn(64, 64, device="cuda")

    def step():
        z = x
        for _ in range(200):
            z = z * y
            z = z + y
        return z
else:
    layer = torch.nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    src = torch.randn(32, 128, 512, device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(src).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

for _ in range(20):
    step()
torch.cuda.synchronize()


chunks = []


def run():
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


if a.profiler:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        mean, best, n = run()
else:
    mean, best, n = run()
if a.chunks_out:
    with open(a.chunks_out, "w") as f:
        for w0, w1 in chunks:
            f.write(f"{w0} {w1} {a.chunk}\n")
print(f"mean_ms_per_step {mean * 1e3:.4f} best_ms_per_step {best * 1e3:.4f} steps {n}")
