"""LABEL: launch_overhead

A 24-block residual MLP 192 wide with LayerNorm and GELU (about 1.8M parameters) trained with
AdamW (foreach off) on batches of 16 rows already on the GPU; every step logs loss.item(). Each
step issues several hundred kernels of a few microseconds: the host's issuing of them, not the
GPU's work, sets the step time.
usage: python3 many_layers_item.py SECONDS
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 16
WIDTH = 192
BLOCKS = 24
CLASSES = 10


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(WIDTH)
        self.fc1 = nn.Linear(WIDTH, 2 * WIDTH)
        self.fc2 = nn.Linear(2 * WIDTH, WIDTH)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = nn.Sequential(*[Block() for _ in range(BLOCKS)], nn.Linear(WIDTH, CLASSES)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=False)
    xs = torch.randn(256, BATCH, WIDTH, device=dev)
    ys = torch.randint(0, CLASSES, (256, BATCH), device=dev)
    _oos.log("params %.2fM, batch %d, loss.item() every step" % (_oos.n_params(model) / 1e6, BATCH))
    loop = _oos.Loop(seconds)
    i, total = 0, 0.0
    while loop.running():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(xs[i % 256]), ys[i % 256])
        loss.backward()
        opt.step()
        total += loss.item()
        loop.step_done(BATCH)
        i += 1
    loop.finish()
    loop.result("many_layers_item", mean_loss=total / max(i, 1))


if __name__ == "__main__":
    main()
