"""LABEL: schedule_shape

The GPU-resident training of an MLP (batch 512, 2048 -> 4096 x 2 -> 1000, fp32, AdamW; a few
milliseconds of GPU work a step, the data made on the GPU once) beside a metrics thread of the
same process that builds a report in pure Python every 50 ms: it sorts 60,000 floats for
percentiles, buckets them into a histogram and serialises the record with json, about 40 ms of
interpreter time each round, and writes it to /dev/null. It never touches the GPU. The thread
holds the interpreter lock while it computes, so the training thread waits for the lock and the
GPU for the training thread: logging work in the process, the helper-thread case of periodic
work (its fix: move the metrics into a process of their own, or compute less of them).
--fixed: no metrics thread, for an A/B of the training's steps a second.
usage: python3 metrics_thread_gil.py SECONDS [--fixed]
"""

import json
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = int(os.environ.get("OOS_BATCH", "512"))
IN_DIM = 2048
ROUND_S = 0.050
VALUES = 60000


def metrics_round(rng, sink):
    values = [rng.gauss(0.0, 1.0) for _ in range(VALUES)]
    values.sort()
    pct = {p: values[int(p / 100 * (VALUES - 1))] for p in (1, 5, 25, 50, 75, 95, 99)}
    hist = [0] * 64
    lo, hi = values[0], values[-1]
    width = (hi - lo) / 64 or 1.0
    for v in values:
        hist[min(63, int((v - lo) / width))] += 1
    sink.write(json.dumps({"t": time.time(), "percentiles": pct, "histogram": hist}) + "\n")


def metrics_thread(stop):
    rng = random.Random(7)
    with open(os.devnull, "w") as sink:
        while not stop.is_set():
            started = time.perf_counter()
            metrics_round(rng, sink)
            rest = ROUND_S - (time.perf_counter() - started)
            if rest > 0:
                stop.wait(rest)


def main():
    seconds, fixed = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(IN_DIM, 4096, 2, 1000).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(BATCH, IN_DIM, device=dev)
    y = torch.randint(0, 1000, (BATCH,), device=dev)
    stop = threading.Event()
    helper = threading.Thread(target=metrics_thread, args=(stop,), name="metrics", daemon=True)
    if not fixed:
        helper.start()
    _oos.log("params %.1fM, a metrics thread every %d ms" % (_oos.n_params(model) / 1e6, ROUND_S * 1e3))
    loop = _oos.Loop(seconds)
    while loop.running():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
    loop.finish()
    stop.set()
    if not fixed:
        helper.join()
    loop.result("metrics_thread_gil")


if __name__ == "__main__":
    main()
