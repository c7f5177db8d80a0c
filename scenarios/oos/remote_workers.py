"""LABEL: input_pipeline

A DataLoader with 4 workers whose Dataset.__getitem__ waits 8 ms (a latency-bound remote store:
time.sleep, no CPU work) and returns a small tensor (256 floats and a label); batch 32, so the
four workers deliver a batch about every 64 ms while the small MLP (256 -> 1024 -> 1024 -> 10)
needs about a millisecond: the GPU waits for input, and the workers' CPUs are idle.
usage: python3 remote_workers.py SECONDS
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 32
FEATURES = 256
WIDTH = 1024
CLASSES = 10
WORKERS = 4
LATENCY_S = 0.008


class RemoteDataset(torch.utils.data.Dataset):
    def __init__(self, length=10 ** 7, seed=1234):
        self.length = length
        self.seed = seed

    def __len__(self):
        return self.length

    def __getitem__(self, idx):
        time.sleep(LATENCY_S)  # one request to the store
        g = torch.Generator().manual_seed(self.seed * 1000003 + idx)
        return torch.randn(FEATURES, generator=g), idx % CLASSES


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(FEATURES, WIDTH, 1, CLASSES).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = torch.utils.data.DataLoader(RemoteDataset(), batch_size=BATCH, shuffle=False,
                                         num_workers=WORKERS, pin_memory=True)
    _oos.log("params %.2fM, batch %d, %d workers, %.0f ms per sample" % (
        _oos.n_params(model) / 1e6, BATCH, WORKERS, LATENCY_S * 1e3))

    loop = _oos.Loop(seconds)
    it = iter(loader)
    while loop.running():
        x, y = next(it)
        x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
    loop.finish()
    del it
    loop.result("remote_workers")


if __name__ == "__main__":
    main()
