"""LABEL: schedule_shape

Training is GPU-bound on GPU-resident random data (a ~50M-parameter fp32 MLP, Adam, batch 4096,
no sync per step). Every 2 s of training the loop runs an evaluation pass of about 0.5 s under
torch.no_grad whose batches are made on the host one at a time (torch.randn on the CPU, then
.cuda()), so the GPU mostly waits during the pass: a periodic stall.
usage: python3 eval_host.py SECONDS
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 4096
IN_DIM = 2048
WIDTH = 4096
CLASSES = 2048
POOL = 8
EVERY_S = 2.0
EVAL_S = 0.5
EVAL_BATCH = 1024
EVAL_MAX_BATCHES = 400


def evaluate(model, gen, dev):
    """Host-made batches one by one until EVAL_S has passed; returns (batches, mean loss)."""
    model.eval()
    t0 = time.perf_counter()
    n = 0
    total = torch.zeros((), device=dev)
    with torch.no_grad():
        while n < EVAL_MAX_BATCHES and (n == 0 or time.perf_counter() - t0 < EVAL_S):
            xb = torch.randn(EVAL_BATCH, IN_DIM, generator=gen)  # made on the host
            yb = torch.randint(0, CLASSES, (EVAL_BATCH,), generator=gen)
            xb, yb = xb.cuda(), yb.cuda()
            total += F.cross_entropy(model(xb), yb, reduction="sum")
            n += 1
    mean = total.item() / (n * EVAL_BATCH)
    model.train()
    return n, mean


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(IN_DIM, WIDTH, 2, CLASSES).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    xs = torch.randn(POOL, BATCH, IN_DIM, device=dev)
    ys = torch.randint(0, CLASSES, (POOL, BATCH), device=dev)
    gen = torch.Generator().manual_seed(4321)
    _oos.log("params %.1fM, batch %d, eval every %.1f s for about %.1f s" % (
        _oos.n_params(model) / 1e6, BATCH, EVERY_S, EVAL_S))

    loop = _oos.Loop(seconds)
    last_eval = time.perf_counter()
    passes = []
    i = 0
    while loop.running():
        x, y = xs[i % POOL], ys[i % POOL]
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        i += 1
        if time.perf_counter() - last_eval >= EVERY_S:
            t = time.perf_counter()
            n, _ = evaluate(model, gen, dev)
            last_eval = time.perf_counter()
            passes.append((n, last_eval - t))
    loop.finish()
    if passes:
        _oos.log("%d eval passes, %.0f batches and %.3f s each on average" % (
            len(passes), sum(p[0] for p in passes) / len(passes), sum(p[1] for p in passes) / len(passes)))
    loop.result("eval_host", eval_passes=len(passes))


if __name__ == "__main__":
    main()
