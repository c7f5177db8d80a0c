"""Two DDP ranks on one GPU for the Python hook's check (issue 20): gloo (NCCL
refuses two ranks on one device), a small MLP on cuda:0 in both ranks, a
DataLoader of random tensors, SGD. Run under torchrun --nproc_per_node=2.
usage: i20_ddp_tiny.py [--seconds S] [--batch-size B]"""
import argparse
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ap = argparse.ArgumentParser()
ap.add_argument("--seconds", type=float, default=10.0)
ap.add_argument("--batch-size", type=int, default=64)
a = ap.parse_args()

dist.init_process_group("gloo")
rank = dist.get_rank()
dev = torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")
model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)).to(dev)
ddp = DDP(model, device_ids=[0] if dev.type == "cuda" else None)
opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
ds = torch.utils.data.TensorDataset(torch.randn(4096, 256), torch.randint(0, 10, (4096,)))
loader = torch.utils.data.DataLoader(ds, batch_size=a.batch_size, shuffle=True, drop_last=True)
# every rank runs the same number of steps: rank 0's deadline, checked together every 20 steps
steps, t0, done = 0, time.monotonic(), False
while not done:
    for x, y in loader:
        x, y = x.to(dev), y.to(dev)
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        steps += 1
        if steps % 20 == 0:
            flag = torch.tensor([1 if time.monotonic() - t0 > a.seconds else 0])
            dist.broadcast(flag, 0)
            if flag.item():
                done = True
                break
print("rank %d pid %d steps %d batch %d" % (rank, os.getpid(), steps, a.batch_size), flush=True)
dist.destroy_process_group()
