"""LABEL: schedule_shape

Training is GPU-bound on GPU-resident random data (a ~50M-parameter fp32 MLP, Adam, batch 4096,
no sync per step). Every 3 s of training an evaluation pass runs under torch.no_grad, fed by its
own DataLoader (2 workers, every sample waits 4 ms, batch 8, 40 batches) that is created anew for
each pass, so each pass also pays for starting the workers: a periodic stall, with the training
loop's own data always on the GPU.
usage: python3 eval_own_loader.py SECONDS
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
EVERY_S = 3.0
EVAL_BATCH = 8
EVAL_BATCHES = 40
EVAL_WORKERS = 2
SAMPLE_S = 0.004


class EvalDataset(torch.utils.data.Dataset):
    def __init__(self, length=EVAL_BATCH * EVAL_BATCHES, seed=999):
        self.length = length
        self.seed = seed

    def __len__(self):
        return self.length

    def __getitem__(self, idx):
        time.sleep(SAMPLE_S)  # reading one held-out sample
        g = torch.Generator().manual_seed(self.seed * 1000003 + idx)
        return torch.randn(IN_DIM, generator=g), idx % CLASSES


def evaluate(model, dev):
    loader = torch.utils.data.DataLoader(EvalDataset(), batch_size=EVAL_BATCH, shuffle=False,
                                         num_workers=EVAL_WORKERS)
    model.eval()
    total = torch.zeros((), device=dev)
    n = 0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(dev), yb.to(dev)
            total += F.cross_entropy(model(xb), yb, reduction="sum")
            n += xb.shape[0]
    mean = total.item() / max(n, 1)
    model.train()
    del loader
    return n, mean


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(IN_DIM, WIDTH, 2, CLASSES).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    xs = torch.randn(POOL, BATCH, IN_DIM, device=dev)
    ys = torch.randint(0, CLASSES, (POOL, BATCH), device=dev)
    _oos.log("params %.1fM, batch %d, eval every %.1f s: %d batches of %d from a new %d-worker DataLoader" % (
        _oos.n_params(model) / 1e6, BATCH, EVERY_S, EVAL_BATCHES, EVAL_BATCH, EVAL_WORKERS))

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
            evaluate(model, dev)
            last_eval = time.perf_counter()
            passes.append(last_eval - t)
    loop.finish()
    if passes:
        _oos.log("%d eval passes, %.3f s each on average" % (len(passes), sum(passes) / len(passes)))
    loop.result("eval_own_loader", eval_passes=len(passes))


if __name__ == "__main__":
    main()
