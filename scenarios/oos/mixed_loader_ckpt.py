"""LABEL: input_pipeline schedule_shape

Two causes at once. A DataLoader with 2 workers whose Dataset.__getitem__ waits 3 ms (a
latency-bound store, time.sleep) and returns 2048 floats and a label (batch 16, so the workers
deliver a batch about every 24 ms) feeds a ~25M-parameter fp32 MLP (2048 -> 4096 -> 4096 -> 1000,
Adam) whose step takes a few milliseconds of GPU work: the GPU waits for input most of the time.
And every 3 s of wall time the loop stops for a synchronous checkpoint, torch.save of the model's
and optimizer's state (~300 MB) to a temporary folder with an fsync: a periodic stall.
usage: python3 mixed_loader_ckpt.py SECONDS
"""

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 16
IN_DIM = 2048
EVERY_S = 3.0


class Store(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 30

    def __getitem__(self, index):
        time.sleep(0.003)
        g = torch.Generator().manual_seed(index)
        return torch.randn(IN_DIM, generator=g), index % 1000


def checkpoint(model, opt, folder, n):
    path = os.path.join(folder, "ckpt.pt")
    with open(path, "wb") as f:
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "n": n}, f)
        f.flush()
        os.fsync(f.fileno())


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(IN_DIM, 4096, 1, 1000).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    loader = torch.utils.data.DataLoader(Store(), batch_size=BATCH, num_workers=2, pin_memory=True)
    folder = tempfile.mkdtemp(prefix="oos_ckpt_")
    _oos.log("params %.1fM, 2 workers at 3 ms a sample, checkpoint every %.0f s" % (_oos.n_params(model) / 1e6, EVERY_S))
    loop = _oos.Loop(seconds)
    next_ckpt = EVERY_S
    saves = 0
    for x, y in loader:
        if not loop.running():
            break
        x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        if loop.since_start() >= next_ckpt:
            checkpoint(model, opt, folder, saves)
            saves += 1
            next_ckpt = loop.since_start() + EVERY_S
    loop.finish()
    loop.result("mixed_loader_ckpt", checkpoints=saves)


if __name__ == "__main__":
    main()
