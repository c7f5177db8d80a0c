"""Small real torch.profiler (Kineto) trace for the import tests and the
1 GB benchmark seed: a few training steps of a small MLP with a pageable
host-to-device copy, a .item() sync and, under torchrun, a gloo all_reduce.
usage: python3 capture_trace.py OUT.json [LOAD_SECONDS]"""
import os
import sys
import time

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule

out = sys.argv[1]
load_s = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
distributed = "WORLD_SIZE" in os.environ
if distributed:
    import torch.distributed as tdist

    tdist.init_process_group("gloo")
    out = out.replace(".json", ".rank%d.json" % tdist.get_rank())
dev = torch.device("cuda", 0)
model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x_cpu, y_cpu = torch.randn(256, 512), torch.randint(0, 10, (256,))


def train_step():
    x, y = x_cpu.to(dev), y_cpu.to(dev)  # pageable copies
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    if distributed:
        g = torch.ones(4)
        tdist.all_reduce(g)
    opt.step()
    return loss.item()  # device-to-host copy and a sync


for _ in range(3):
    train_step()
torch.cuda.synchronize()
with profile(
    activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
    schedule=schedule(wait=1, warmup=1, active=6, repeat=1),
    on_trace_ready=lambda p: p.export_chrome_trace(out),
) as prof:
    for _ in range(10):
        train_step()
        prof.step()
# Keep the GPU busy a while so nvidia-smi logs taken beside this show load.
a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
t_end = time.time() + load_s
while time.time() < t_end:
    for _ in range(20):
        a = torch.tanh(a @ a)
    torch.cuda.synchronize()
if distributed:
    tdist.destroy_process_group()
print("torch", torch.__version__, "trace", out)
