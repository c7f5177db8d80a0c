"""LABEL: input_pipeline

No DataLoader: the loop gets its batches from a concurrent.futures.ProcessPoolExecutor of 3
worker processes, keeping 6 batches in flight. Each batch is 128 images decoded on the CPU: a
worker builds 128 x 3 x 96 x 96 uint8 pixels from a seed and runs a 5x5 box blur over them
in numpy, about 0.1 s of CPU work a batch; the loop copies the batch to the GPU and trains a
small convolutional network (bf16 autocast, SGD), a few milliseconds of GPU work a step. Three
processes deliver a batch every 35 ms or so: the GPU waits for input (CPU-bound, in processes
the hook does not see as DataLoader workers).
--fixed: the first batch decoded once and trained on at every step, for an A/B of the input's cost.
usage: python3 process_pool_decode.py SECONDS [--fixed]
"""

import collections
import concurrent.futures
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 128
SIDE = 96
IN_FLIGHT = 6
WORKERS = 3


def decode(seed):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, size=(BATCH, 3, SIDE, SIDE), dtype=np.uint8).astype(np.float32)
    out = np.zeros_like(img)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            out += np.roll(np.roll(img, dy, axis=2), dx, axis=3)
    out /= 25.0
    labels = rng.integers(0, 100, size=(BATCH,), dtype=np.int64)
    return out.astype(np.uint8), labels


def net():
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(128, 256, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(256, 100))


def main():
    seconds, fixed = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = net().to(dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=WORKERS)
    pending = collections.deque(pool.submit(decode, i) for i in range(IN_FLIGHT))
    issued = IN_FLIGHT
    _oos.log("params %.1fM, %d decoding processes" % (_oos.n_params(model) / 1e6, WORKERS))
    loop = _oos.Loop(seconds)
    while loop.running():
        if fixed:
            if issued == IN_FLIGHT:
                x, y = pending.popleft().result()
                issued += 1
        else:
            x, y = pending.popleft().result()
            pending.append(pool.submit(decode, issued))
            issued += 1
        xb = torch.from_numpy(x).to(dev).float().div_(255.0).contiguous(memory_format=torch.channels_last)
        yb = torch.from_numpy(y).to(dev)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
    loop.finish()
    pool.shutdown(wait=True, cancel_futures=True)
    loop.result("process_pool_decode")


if __name__ == "__main__":
    main()
