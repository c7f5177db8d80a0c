"""LABEL: input_pipeline

No DataLoader: inside the training loop each step builds a batch of 64 images 3x224x224 with
numpy from a pool of 256x256 uint8 images (random crop, random horizontal flip, float conversion,
mean/std normalisation, HWC -> CHW), then torch.from_numpy(...).cuda(); the model is a
ResNet-18-like network (basic blocks [2, 2, 2, 2], fp32, SGD). The single-threaded numpy work
takes longer than the GPU step: the GPU waits for input.
usage: python3 numpy_prep.py SECONDS
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 64
SRC = 256
CROP = 224
POOL = 256
CLASSES = 1000
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32) * 255.0
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32) * 255.0


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


class ResNet18(nn.Module):
    def __init__(self, classes=CLASSES):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        blocks = []
        cin = 64
        for i, w in enumerate((64, 128, 256, 512)):
            for j in range(2):
                blocks.append(BasicBlock(cin, w, 2 if (j == 0 and i > 0) else 1))
                cin = w
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def make_batch(pool, labels, rng):
    """Random crop + flip + normalise, all numpy on the host; returns NCHW float32 and int64 labels."""
    idx = rng.integers(0, len(pool), BATCH)
    oy = rng.integers(0, SRC - CROP + 1, BATCH)
    ox = rng.integers(0, SRC - CROP + 1, BATCH)
    flip = rng.random(BATCH) < 0.5
    out = np.empty((BATCH, CROP, CROP, 3), dtype=np.uint8)
    for j in range(BATCH):
        img = pool[idx[j], oy[j]:oy[j] + CROP, ox[j]:ox[j] + CROP]
        out[j] = img[:, ::-1] if flip[j] else img
    x = out.astype(np.float32)
    x -= MEAN
    x /= STD
    x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    return x, labels[idx]


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = ResNet18().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    rng = np.random.default_rng(5)
    pool = rng.integers(0, 256, (POOL, SRC, SRC, 3), dtype=np.uint8)
    labels = rng.integers(0, CLASSES, POOL, dtype=np.int64)
    _oos.log("params %.1fM, batch %d x 3x%dx%d prepared with numpy" % (
        _oos.n_params(model) / 1e6, BATCH, CROP, CROP))

    loop = _oos.Loop(seconds)
    while loop.running():
        xb, yb = make_batch(pool, labels, rng)
        x = torch.from_numpy(xb).cuda()
        y = torch.from_numpy(yb).cuda()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
    loop.finish()
    loop.result("numpy_prep")


if __name__ == "__main__":
    main()
