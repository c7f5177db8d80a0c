"""LABEL: launch_overhead

A 3-layer MLP 256 wide (256 -> 256 -> 256 -> 10, ~0.13M parameters) trained with Adam on batches
of 8 rows taken from a GPU-resident pool, with no synchronisation at all: every kernel is a few
microseconds, so the step time is the host's time to issue them (Python, autograd, launches).
usage: python3 tiny_mlp.py SECONDS
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 8
WIDTH = 256
CLASSES = 10
POOL = 1024


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(WIDTH, WIDTH, 1, CLASSES).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    xs = torch.randn(POOL, BATCH, WIDTH, device=dev)
    ys = torch.randint(0, CLASSES, (POOL, BATCH), device=dev)
    _oos.log("params %.2fM, batch %d, no sync" % (_oos.n_params(model) / 1e6, BATCH))

    loop = _oos.Loop(seconds)
    i = 0
    while loop.running():
        x, y = xs[i % POOL], ys[i % POOL]
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        i += 1
    loop.finish()
    loop.result("tiny_mlp")


if __name__ == "__main__":
    main()
