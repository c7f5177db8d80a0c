"""LABEL: input_pipeline

Each step copies a 256x3x224x224 float32 batch (154 MB) from ordinary pageable host memory (not
pinned) to the GPU with .to('cuda'); the model is small (two strided convolutions, pooling and a
linear layer), so the synchronous staged copy dominates the step and the SMs mostly wait.
usage: python3 pageable_h2d.py SECONDS
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 256
SIDE = 224
CLASSES = 1000
HOST_BATCHES = 2


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = nn.Sequential(
        nn.Conv2d(3, 32, kernel_size=4, stride=4), nn.ReLU(),
        nn.Conv2d(32, 64, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, CLASSES),
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(3)
    # ordinary (pageable) host tensors: numpy memory wrapped by torch.from_numpy
    xs = [torch.from_numpy(rng.standard_normal((BATCH, 3, SIDE, SIDE), dtype=np.float32))
          for _ in range(HOST_BATCHES)]
    ys = [torch.from_numpy(rng.integers(0, CLASSES, BATCH, dtype=np.int64)) for _ in range(HOST_BATCHES)]
    assert not xs[0].is_pinned()
    _oos.log("batch %s float32 = %.0f MB pageable per step; params %.2fM" % (
        tuple(xs[0].shape), xs[0].numel() * 4 / 1e6, _oos.n_params(model) / 1e6))

    loop = _oos.Loop(seconds)
    i = 0
    while loop.running():
        x = xs[i % HOST_BATCHES].to("cuda")
        y = ys[i % HOST_BATCHES].to("cuda")
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        i += 1
    loop.finish()
    loop.result("pageable_h2d", h2d_gb_per_s=loop.steps * xs[0].numel() * 4 / 1e9 / loop.elapsed)


if __name__ == "__main__":
    main()
