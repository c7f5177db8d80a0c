"""LABEL: schedule_shape

Changing image sizes under cudnn.benchmark: a ResNet-34-like network (basic blocks [3, 4, 6, 3],
written here, no torchvision; bf16 autocast, channels_last, SGD with momentum) with
torch.backends.cudnn.benchmark=True, fed batches of 32 GPU-resident random images whose square
side is drawn from 160..415 at every step, so cuDNN re-runs its algorithm search for most steps.
--fixed: the side stays at 288 for an A/B comparison of throughput (pixels_per_s in RESULT).
usage: python3 conv_sizes.py SECONDS [--fixed]
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 32
MIN_SIDE, MAX_SIDE = 160, 415
FIXED_SIDE = 288
CLASSES = 1000
MEM_CAP_GB = 20


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (x if self.down is None else self.down(x)))


class ResNet(nn.Module):
    def __init__(self, blocks=(3, 4, 6, 3), widths=(64, 128, 256, 512), classes=CLASSES):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        stages = []
        cin = 64
        for i, (n, w) in enumerate(zip(blocks, widths)):
            for j in range(n):
                stages.append(BasicBlock(cin, w, 2 if (j == 0 and i > 0) else 1))
                cin = w
        self.stages = nn.Sequential(*stages)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def main():
    seconds, fixed = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    torch.backends.cudnn.benchmark = True
    total = torch.cuda.get_device_properties(dev).total_memory
    # cuDNN's search tries algorithms with large workspaces: keep the process under the cap
    torch.cuda.set_per_process_memory_fraction(min(1.0, MEM_CAP_GB * 2 ** 30 / total), 0)
    model = ResNet().to(dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    pool = torch.randn(BATCH, 3, MAX_SIDE, MAX_SIDE, device=dev)
    ys = torch.randint(0, CLASSES, (BATCH,), device=dev)
    sides = random.Random(77)
    _oos.log("params %.1fM, batch %d, side %s, cudnn.benchmark on" % (
        _oos.n_params(model) / 1e6, BATCH, FIXED_SIDE if fixed else "%d..%d" % (MIN_SIDE, MAX_SIDE)))

    loop = _oos.Loop(seconds)
    pixels = 0
    seen = set()
    while loop.running():
        s = FIXED_SIDE if fixed else sides.randint(MIN_SIDE, MAX_SIDE)
        seen.add(s)
        x = pool[:, :, :s, :s].contiguous(memory_format=torch.channels_last)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = model(x)
        loss = F.cross_entropy(out.float(), ys)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        pixels += BATCH * s * s
    loop.finish()
    loop.result("conv_sizes", pixels_per_s=pixels / loop.elapsed, shapes=len(seen),
                max_mem_gb=torch.cuda.max_memory_reserved(dev) / 2 ** 30, mode="fixed" if fixed else "varsize")


if __name__ == "__main__":
    main()
