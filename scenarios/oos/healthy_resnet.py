"""LABEL: none

A healthy convolutional job: a ResNet-50-like network (bottleneck blocks [3, 4, 6, 3], widths
256-2048, written here, no torchvision) in bf16 autocast and channels_last, trained with SGD and
momentum on batches of 128 GPU-resident random 160x160 images; no synchronisation in the loop
except one loss.item() every 100 steps for a log line. Each step is tens of milliseconds of large
convolutions: the GPU is busy and full; nothing is wrong.
usage: python3 healthy_resnet.py SECONDS
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = int(os.environ.get("OOS_BATCH", "128"))
SIZE = 160
CLASSES = 1000


class Bottleneck(nn.Module):
    def __init__(self, cin, mid, stride):
        super().__init__()
        cout = mid * 4
        self.c1 = nn.Conv2d(cin, mid, 1, bias=False)
        self.b1 = nn.BatchNorm2d(mid)
        self.c2 = nn.Conv2d(mid, mid, 3, stride, 1, bias=False)
        self.b2 = nn.BatchNorm2d(mid)
        self.c3 = nn.Conv2d(mid, cout, 1, bias=False)
        self.b3 = nn.BatchNorm2d(cout)
        self.skip = None
        if stride != 1 or cin != cout:
            self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        h = F.relu(self.b1(self.c1(x)))
        h = F.relu(self.b2(self.c2(h)))
        h = self.b3(self.c3(h))
        return F.relu(h + (x if self.skip is None else self.skip(x)))


def net():
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for i, (mid, n) in enumerate(((64, 3), (128, 4), (256, 6), (512, 3))):
        for j in range(n):
            layers.append(Bottleneck(cin, mid, 2 if (j == 0 and i > 0) else 1))
            cin = mid * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, CLASSES)]
    return nn.Sequential(*layers)


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = net().to(dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    xs = [torch.randn(BATCH, 3, SIZE, SIZE, device=dev).to(memory_format=torch.channels_last) for _ in range(4)]
    ys = torch.randint(0, CLASSES, (4, BATCH), device=dev)
    _oos.log("params %.1fM, batch %d at %d px" % (_oos.n_params(model) / 1e6, BATCH, SIZE))
    loop = _oos.Loop(seconds)
    i = 0
    while loop.running():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(xs[i % 4]), ys[i % 4])
        loss.backward()
        opt.step()
        if i % 100 == 99:
            _oos.log("step %d loss %.3f" % (i + 1, loss.item()))
        loop.step_done(BATCH)
        i += 1
    loop.finish()
    loop.result("healthy_resnet")


if __name__ == "__main__":
    main()
