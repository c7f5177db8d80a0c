"""LABEL: input_pipeline

No DataLoader: each step fetches its batch inline from a simulated remote store (a 25 ms request,
time.sleep(0.025), returning raw uint8 bytes), decodes it into a float32 CPU tensor with numpy and
copies it to the GPU; the model is a ~35M-parameter fp32 MLP (batch 1024, about 5 ms of GPU work
per step), so the GPU waits for the store most of the time.
usage: python3 fetch_store.py SECONDS
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 1024
IN_DIM = 1024
WIDTH = 3072
CLASSES = 1000
LATENCY_S = 0.025


class RemoteStore:
    """A key-value store whose every request takes LATENCY_S; values are encoded batches."""

    def __init__(self, objects=16, seed=7):
        rng = np.random.default_rng(seed)
        self.blobs = [rng.integers(0, 256, BATCH * IN_DIM, dtype=np.uint8).tobytes() for _ in range(objects)]
        self.labels = [rng.integers(0, CLASSES, BATCH, dtype=np.int64).tobytes() for _ in range(objects)]

    def get(self, key):
        time.sleep(LATENCY_S)  # network round trip and server time
        k = key % len(self.blobs)
        return self.blobs[k], self.labels[k]


def decode(blob, labels):
    x = np.frombuffer(blob, dtype=np.uint8).reshape(BATCH, IN_DIM).astype(np.float32)
    x *= 1.0 / 255.0
    x -= 0.5
    y = np.frombuffer(labels, dtype=np.int64)
    return torch.from_numpy(x), torch.from_numpy(y.copy())


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(IN_DIM, WIDTH, 3, CLASSES).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    store = RemoteStore()
    _oos.log("params %.1fM, batch %d, store latency %.0f ms" % (_oos.n_params(model) / 1e6, BATCH, LATENCY_S * 1e3))

    loop = _oos.Loop(seconds)
    i = 0
    while loop.running():
        blob, labels = store.get(i)
        x, y = decode(blob, labels)
        x, y = x.cuda(), y.cuda()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        i += 1
    loop.finish()
    loop.result("fetch_store")


if __name__ == "__main__":
    main()
