"""A training loop on the fake torch for the hook's tests.

  train_fake.py STEPS BATCH [--delay-ms D] [--no-optim] [--accum K] [--end exit|os_exit|kill] [--no-loader] [--graph]
                [--compile] [--shapes K] (FAKE_TORCH_COMPILE_MS: each compilation's time)
Prints one line per step to stdout (so that the test can compare outputs)."""
import argparse
import os
import signal
import sys
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("steps", type=int)
p.add_argument("batch", type=int)
p.add_argument("--delay-ms", type=float, default=0.0)
p.add_argument("--compute-ms", type=float, default=1.0)
p.add_argument("--no-optim", action="store_true")
p.add_argument("--accum", type=int, default=1)
p.add_argument("--end", default="exit", choices=["exit", "os_exit", "kill"])
p.add_argument("--status", type=int, default=0)
p.add_argument("--no-loader", action="store_true", help="batches made in the loop, fed to a module")
p.add_argument("--graph", action="store_true", help="capture a CUDA graph after the first step")
p.add_argument("--compile", action="store_true", help="torch.compile the module before the loop")
p.add_argument("--shapes", type=int, default=1,
               help="without DataLoader: the second dimension cycles through this many lengths (8, 16, ...)")
a = p.parse_args()

loader = torch.utils.data.DataLoader(a.steps * a.accum, batch_size=a.batch, delay_s=a.delay_ms / 1e3)
opt = torch.optim.SGD([], lr=0.1)
it = iter(loader)
model = torch.nn.Module()
if a.compile:
    model = torch.compile(model)
for step in range(a.steps):
    if a.graph and step == 1:
        with torch.cuda.graph(torch.cuda.CUDAGraph()):
            pass
    for _ in range(a.accum):
        if a.no_loader:
            x = model(torch.zeros(a.batch, 8 * (1 + step % a.shapes)))
        else:
            x, y = next(it)
        time.sleep(a.compute_ms / 1e3)
    if not a.no_optim:
        opt.step()
    print("step %d x %s" % (step, x.shape), flush=True)
if a.end == "os_exit":
    os._exit(a.status)
if a.end == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
sys.exit(a.status)
