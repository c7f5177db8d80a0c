"""input_pipeline: heavy per-sample CPU augmentation starves the GPU.

A DataLoader with two workers builds every 224x224 image on the CPU (random
resized crop by bilinear interpolation, several blur convolutions, colour
jitter, normalisation).  The ResNet-18 on the GPU finishes a batch much faster
than two CPU cores can prepare one, so the GPU waits on the loader.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import common  # noqa: E402


class AugmentedImages(torch.utils.data.Dataset):
    def __init__(self, length, src_size, out_size, blur_passes, seed):
        self.length = length
        self.src = src_size
        self.out = out_size
        self.blur_passes = blur_passes
        self.seed = seed
        k = torch.arange(7, dtype=torch.float32) - 3.0
        g = torch.exp(-(k * k) / (2.0 * 1.5 ** 2))
        g = g / g.sum()
        k2 = (g[:, None] * g[None, :])[None, None].repeat(3, 1, 1, 1)  # (3,1,7,7) depthwise
        self.kernel = k2.contiguous()
        self.mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
        self.std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 1000003 + i)
        img = torch.rand(3, self.src, self.src, generator=g)  # the "decoded" image
        # random resized crop: area 30-100%, aspect 3/4..4/3, resized to out x out
        r = torch.rand(4, generator=g).tolist()
        area = (0.3 + 0.7 * r[0]) * self.src * self.src
        aspect = math.exp(math.log(3 / 4) + r[1] * (math.log(4 / 3) - math.log(3 / 4)))
        w = max(8, min(self.src, int(round(math.sqrt(area * aspect)))))
        h = max(8, min(self.src, int(round(math.sqrt(area / aspect)))))
        y0 = int(r[2] * (self.src - h))
        x0 = int(r[3] * (self.src - w))
        x = img[:, y0:y0 + h, x0:x0 + w].unsqueeze(0)
        x = F.interpolate(x, size=(self.out, self.out), mode="bilinear", align_corners=False)
        # blur passes (depthwise 7x7 Gaussian)
        for _ in range(self.blur_passes):
            x = F.conv2d(x, self.kernel, padding=3, groups=3)
        x = x.squeeze(0)
        # horizontal flip, brightness/contrast jitter, normalise
        if r[0] > 0.5:
            x = torch.flip(x, dims=[2])
        x = (x - x.mean()) * (0.8 + 0.4 * r[1]) + x.mean() * (0.8 + 0.4 * r[2])
        x = x.clamp_(0.0, 1.0)
        x = (x - self.mean) / self.std
        label = int(r[3] * 1000) % 1000
        return x.contiguous(), label


def make_model(num_classes):
    try:
        import torchvision
        return torchvision.models.resnet18(weights=None, num_classes=num_classes), "torchvision.resnet18"
    except Exception as e:  # torchvision missing or mismatched: a plain conv net
        common.log("note: torchvision resnet18 unavailable (%s); using a small conv net" % e)

    def block(cin, cout):
        return [torch.nn.Conv2d(cin, cout, 3, stride=2, padding=1, bias=False),
                torch.nn.BatchNorm2d(cout), torch.nn.ReLU(inplace=True),
                torch.nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                torch.nn.BatchNorm2d(cout), torch.nn.ReLU(inplace=True)]
    layers = block(3, 64) + block(64, 128) + block(128, 256) + block(256, 512)
    layers += [torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(512, num_classes)]
    return torch.nn.Sequential(*layers), "small_convnet"


def main():
    p = common.make_parser(__doc__.splitlines()[0], warmup_steps=3)
    common.add_numeric_options(p, batch_size=128, num_workers=2, blur_passes=2, src_size=256, image_size=224)
    args = common.parse_args(p)
    dev = common.setup_cuda(args.seed)
    torch.backends.cudnn.benchmark = True

    shm = common.shm_free_gib()
    if shm is not None and shm < 2.0:
        common.log("warning: only %.2f GiB free in /dev/shm; batches of %.0f MiB pass through it" % (
            shm, args.batch_size * 3 * args.image_size ** 2 * 4 / 2 ** 20))
    ds = AugmentedImages(10_000_000, args.src_size, args.image_size, args.blur_passes, args.seed)
    batches = common.infinite_loader(ds, args.batch_size, args.num_workers)

    model, model_name = make_model(1000)
    model = model.to(dev).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    step = common.loader_train_step(model, opt, batches, dev)

    params = common.vars_of(args)
    params.update(model=model_name, pin_memory=False, dev_shm_free_gib=shm)
    gt = common.GroundTruth(
        args, "input_cpu_transforms", ["input_pipeline"],
        "A DataLoader with %d workers builds each %dx%d image on the CPU: random resized crop by bilinear "
        "interpolation, %d depthwise 7x7 blur convolutions, flip, colour jitter and normalisation. A %s on "
        "the GPU trains on batches of %d far faster than the workers can produce them, so each step waits "
        "for the next batch: worker CPUs are saturated, the GPU idles between short bursts, SM activity "
        "and power stay low." % (args.num_workers, args.image_size, args.image_size, args.blur_passes,
                                 model_name, args.batch_size),
        params, args.batch_size, args.batch_size)
    common.run(gt, step, on_exit=batches.close)


if __name__ == "__main__":
    main()
