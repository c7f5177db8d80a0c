"""LABEL: small_batch

A VGG-like conv net (10 conv layers 64-512 channels at 96x96, bf16 autocast, channels_last)
trained on batches of 2 images already on the GPU, with no sync in the loop. Each convolution
covers a few thousand output pixels: its kernels occupy a fraction of the SMs, so the GPU is
always busy yet does little work; a larger batch would use the idle SMs.
usage: python3 small_batch_conv.py SECONDS
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 2
SIZE = 96
CLASSES = 100
PLAN = (64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512)


def net():
    layers, cin = [], 3
    for v in PLAN:
        if v == "M":
            layers.append(nn.MaxPool2d(2))
        else:
            layers += [nn.Conv2d(cin, v, 3, 1, 1), nn.ReLU()]
            cin = v
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, CLASSES))


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = net().to(dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    xs = [torch.randn(BATCH, 3, SIZE, SIZE, device=dev).to(memory_format=torch.channels_last) for _ in range(64)]
    ys = torch.randint(0, CLASSES, (64, BATCH), device=dev)
    _oos.log("params %.1fM, batch %d at %d px" % (_oos.n_params(model) / 1e6, BATCH, SIZE))
    loop = _oos.Loop(seconds)
    i = 0
    while loop.running():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(xs[i % 64]), ys[i % 64])
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        i += 1
    loop.finish()
    loop.result("small_batch_conv")


if __name__ == "__main__":
    main()
