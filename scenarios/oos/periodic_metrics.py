"""LABEL: schedule_shape

A GPU-bound loop (an 8-layer MLP 4096 wide, batch 4096, bf16 autocast, data on the GPU) that
every 2 s computes validation metrics on the host: it copies 4 batches of logits to the CPU with
.cpu() and ranks them with numpy (argsort per row, top-5 accuracy, a 1000-bin histogram), which
takes a few hundred milliseconds during which no kernel is queued. The GPU idles in periodic
stalls, not on every step.
usage: python3 periodic_metrics.py SECONDS
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 4096
WIDTH = 4096
CLASSES = 1000
METRIC_EVERY_S = 2.0
METRIC_BATCHES = 4


def host_metrics(model, xv, yv):
    logits, labels = [], []
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        for k in range(METRIC_BATCHES):
            logits.append(model(xv[k % len(xv)]).float().cpu().numpy())
            labels.append(yv[k % len(yv)].cpu().numpy())
    logits, labels = np.concatenate(logits), np.concatenate(labels)
    order = np.argsort(-logits, axis=1)[:, :5]
    top5 = float(np.mean(np.any(order == labels[:, None], axis=1)))
    hist, _ = np.histogram(logits, bins=1000)
    return top5, int(hist.argmax())


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(WIDTH, WIDTH, 6, CLASSES).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    xs = torch.randn(8, BATCH, WIDTH, device=dev)
    ys = torch.randint(0, CLASSES, (8, BATCH), device=dev)
    _oos.log("params %.1fM, metrics on the host every %.1f s" % (_oos.n_params(model) / 1e6, METRIC_EVERY_S))
    loop = _oos.Loop(seconds)
    last_metric = time.perf_counter()
    i, metric_s, passes = 0, 0.0, 0
    while loop.running():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(xs[i % 8]), ys[i % 8])
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        i += 1
        if time.perf_counter() - last_metric >= METRIC_EVERY_S:
            t0 = time.perf_counter()
            host_metrics(model, xs, ys)
            metric_s += time.perf_counter() - t0
            passes += 1
            last_metric = time.perf_counter()
    loop.finish()
    loop.result("periodic_metrics", metric_passes=passes, metric_s=metric_s)


if __name__ == "__main__":
    main()
