"""LABEL: launch_overhead

A per-sample loss written as a Python loop: an MLP (512 -> 1024 -> 1024 -> 100, fp32, Adam) runs
on batches of 64 rows already on the GPU, then the loss is summed over the 64 rows one at a time
(cross_entropy of one row, times that row's weight, added to a running total), so forward and
backward issue several hundred kernels of a few microseconds each step. No synchronisation in the
loop: the host's time to issue the kernels, not the GPU's work, sets the step time.
usage: python3 loss_per_sample.py SECONDS
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 64
POOL = 32


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(512, 1024, 1, 100).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    xs = torch.randn(POOL, BATCH, 512, device=dev)
    ys = torch.randint(0, 100, (POOL, BATCH), device=dev)
    ws = torch.rand(POOL, BATCH, device=dev)
    _oos.log("params %.2fM, batch %d, loss summed row by row" % (_oos.n_params(model) / 1e6, BATCH))
    loop = _oos.Loop(seconds)
    i = 0
    while loop.running():
        x, y, w = xs[i % POOL], ys[i % POOL], ws[i % POOL]
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        total = torch.zeros((), device=dev)
        for r in range(BATCH):
            total = total + F.cross_entropy(logits[r : r + 1], y[r : r + 1]) * w[r]
        (total / BATCH).backward()
        opt.step()
        loop.step_done(BATCH)
        i += 1
    loop.finish()
    loop.result("loss_per_sample")


if __name__ == "__main__":
    main()
