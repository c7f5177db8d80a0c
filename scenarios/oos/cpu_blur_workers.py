"""LABEL: input_pipeline

A DataLoader with 2 worker processes whose dataset blurs every 3x192x192 image on the CPU with a
torch conv2d (a 15x15 Gaussian, one thread per worker) before a random crop to 160; batches of
64 feed a 6-layer conv net in bf16 autocast. Two workers blurring 64 images cannot keep up with
the GPU's step: the workers run flat out and the training loop waits for the next batch.
usage: python3 cpu_blur_workers.py SECONDS
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 64
SRC = 192
CROP = 160
CLASSES = 100
KSIZE = 15


def gaussian_kernel():
    ax = torch.arange(KSIZE, dtype=torch.float32) - KSIZE // 2
    g = torch.exp(-(ax ** 2) / (2 * 3.0 ** 2))
    k2 = torch.outer(g, g)
    k2 /= k2.sum()
    return k2.expand(3, 1, KSIZE, KSIZE).contiguous()


class BlurSet(torch.utils.data.Dataset):
    def __init__(self, n):
        self.n = n
        self.kernel = gaussian_kernel()

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(1, 3, SRC, SRC, generator=g)
        img = F.conv2d(img, self.kernel, padding=KSIZE // 2, groups=3)[0]
        y0, x0 = (i * 7) % (SRC - CROP), (i * 13) % (SRC - CROP)
        return img[:, y0:y0 + CROP, x0:x0 + CROP], i % CLASSES


def worker_init(_):
    torch.set_num_threads(1)


def net():
    layers, cin = [], 3
    for cout in (64, 128, 128, 256, 256, 512):
        layers += [nn.Conv2d(cin, cout, 3, 2 if cout != cin else 1, 1), nn.BatchNorm2d(cout), nn.ReLU()]
        cin = cout
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, CLASSES))


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = net().to(dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loader = torch.utils.data.DataLoader(BlurSet(10**6), batch_size=BATCH, shuffle=True, num_workers=2,
                                         pin_memory=True, worker_init_fn=worker_init, persistent_workers=True)
    _oos.log("2 workers blurring %d images of %d px a batch" % (BATCH, SRC))
    loop = _oos.Loop(seconds)
    for x, y in loader:
        if not loop.running():
            break
        x = x.to(dev, non_blocking=True).to(memory_format=torch.channels_last)
        y = y.to(dev, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
    loop.finish()
    loop.result("cpu_blur_workers")


if __name__ == "__main__":
    main()
