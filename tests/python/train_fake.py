"""A training loop on the fake torch for the hook's tests.

  train_fake.py STEPS BATCH [--delay-ms D] [--no-optim] [--accum K] [--end exit|os_exit|kill] [--no-loader] [--graph]
                [--compile] [--shapes K] [--eval-every K --eval-batch B [--eval-mode no_grad|inference] [--eval-load-ms MS]]
                [--warmup-steps K --warmup-ms W] [--drift-ms D]
                [--print-loader] [--print-flags] [--to-cuda] [--crash-if-workers] [--iterable]
                (FAKE_TORCH_COMPILE_MS: each compilation's time; FAKE_TORCH_CUDA=1: a CUDA device)
--delay-ms D: each batch takes D / max(1, num_workers) ms to load (workers load in parallel); --compute-ms: each
step's compute, whatever the batch size.
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
p.add_argument("--eval-every", type=int, default=0,
               help="an evaluation pass (2 batches of --eval-batch, no autograd) at the start of every K-th step")
p.add_argument("--eval-batch", type=int, default=5)
p.add_argument("--eval-mode", default="no_grad", choices=["no_grad", "inference"])
p.add_argument("--eval-load-ms", type=float, default=0.0, help="the evaluation loader's time per batch")
p.add_argument("--warmup-steps", type=int, default=0, help="the first K steps take --warmup-ms more (a cold start)")
p.add_argument("--warmup-ms", type=float, default=0.0)
p.add_argument("--drift-ms", type=float, default=0.0, help="each step computes this much longer than the one before")
p.add_argument("--flops-per-step", type=int, default=0,
               help="each step runs fake ops of this many FLOPs (torch.utils.flop_counter.fake_op)")
p.add_argument("--print-loader", action="store_true", help="print the DataLoader's settings once it is built")
p.add_argument("--print-flags", action="store_true",
               help="print cudnn.benchmark, cudnn.allow_tf32 and the float32 matmul precision at the end")
p.add_argument("--to-cuda", action="store_true",
               help="copy each batch to CUDA (x.to('cuda')) and the model's weight once (Module.to); print the copies")
p.add_argument("--crash-if-workers", action="store_true", help="raise (exit 1) if the DataLoader has workers")
p.add_argument("--iterable", action="store_true", help="the DataLoader reads an IterableDataset")
p.add_argument("--batch-sampler", action="store_true", help="the DataLoader's batches come from a batch_sampler")
a = p.parse_args()


class Net(torch.nn.Module):
    """A model with submodules, as real ones have."""

    def __init__(self):
        self.layers = [torch.nn.Module(), torch.nn.Module()]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def evaluate(model):
    with torch.no_grad() if a.eval_mode == "no_grad" else torch.inference_mode():
        for _ in range(2):
            if a.no_loader:
                model(torch.zeros(a.eval_batch, 8))
            else:
                for x, y in torch.utils.data.DataLoader(1, batch_size=a.eval_batch, load_s=a.eval_load_ms / 1e3):
                    model(x)


dataset = torch.utils.data.IterableDataset(a.steps * a.accum) if a.iterable else a.steps * a.accum
if a.batch_sampler:
    loader = torch.utils.data.DataLoader(dataset, batch_sampler=[[0] * a.batch], load_s=a.delay_ms / 1e3)
    loader.batch_size = a.batch  # the fake's batches take their size from here
else:
    loader = torch.utils.data.DataLoader(dataset, batch_size=a.batch, load_s=a.delay_ms / 1e3)
if a.print_loader:
    print("loader num_workers=%s pin_memory=%s persistent_workers=%s prefetch_factor=%s batch_size=%s" % (
        loader.num_workers, loader.pin_memory, loader.persistent_workers, loader.prefetch_factor, loader.batch_size),
        flush=True)
if a.crash_if_workers and loader.num_workers > 0:
    raise RuntimeError("this program breaks with DataLoader workers")
if a.to_cuda:
    weight = torch.nn.Parameter((4, 3)).to("cuda")  # the model's weight: moved once, not the input pipeline
opt = torch.optim.SGD([], lr=0.1)
it = iter(loader)
model = Net() if a.eval_every else torch.nn.Module()
if a.compile:
    model = torch.compile(model)
for step in range(a.steps):
    if a.graph and step == 1:
        with torch.cuda.graph(torch.cuda.CUDAGraph()):
            pass
    if a.eval_every and step % a.eval_every == 1:
        evaluate(model)
    for _ in range(a.accum):
        if a.no_loader:
            x = model(torch.zeros(a.batch, 8 * (1 + step % a.shapes)))
        else:
            x, y = next(it)
        if a.to_cuda and not a.no_loader:
            x = x.to("cuda")
        time.sleep((a.compute_ms + a.drift_ms * step + (a.warmup_ms if step < a.warmup_steps else 0)) / 1e3)
    if a.flops_per_step:
        torch.utils.flop_counter.fake_op(a.flops_per_step)
    if not a.no_optim:
        opt.step()
    print("step %d x %s" % (step, x.shape), flush=True)
if a.print_flags:
    print("flags cudnn_benchmark=%s allow_tf32=%s matmul_precision=%s" % (
        torch.backends.cudnn.benchmark, torch.backends.cudnn.allow_tf32, torch.get_float32_matmul_precision()))
if a.to_cuda:
    copies = torch._tensor.copies
    print("copies to cuda %d non_blocking %d pinned %d" % (len(copies), sum(nb for _, nb in copies),
                                                           sum(p for p, _ in copies)))
if a.end == "os_exit":
    os._exit(a.status)
if a.end == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
sys.exit(a.status)
