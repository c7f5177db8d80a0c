"""LABEL: none

A 12-layer MLP 8192 wide (about 800M parameters) in bf16 autocast trained with fused AdamW on
batches of 8192 rows already on the GPU, no sync in the loop. Each step is tens of milliseconds of
large matrix products: the GPU is busy and full; nothing is wrong.
usage: python3 healthy_bf16_mlp.py SECONDS
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 8192
WIDTH = 8192
CLASSES = 1000


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(WIDTH, WIDTH, 10, CLASSES).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    xs = torch.randn(4, BATCH, WIDTH, device=dev)
    ys = torch.randint(0, CLASSES, (4, BATCH), device=dev)
    _oos.log("params %.0fM, batch %d" % (_oos.n_params(model) / 1e6, BATCH))
    loop = _oos.Loop(seconds)
    i = 0
    while loop.running():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(xs[i % 4]), ys[i % 4])
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        i += 1
    loop.finish()
    loop.result("healthy_bf16_mlp")


if __name__ == "__main__":
    main()
