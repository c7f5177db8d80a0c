"""LABEL: input_pipeline

No DataLoader: a concurrent.futures.ThreadPoolExecutor of 2 threads fetches batches from a
simulated remote store, keeping 4 requests in flight. Each request waits 30 ms (time.sleep: the
store's round trip, no CPU work) and returns 256 x 1024 uint8 values made with numpy; the loop
takes the oldest future's result, copies the batch to the GPU and trains an MLP (1024 -> 4096 ->
4096 -> 10, fp32, Adam) whose step is about a millisecond of GPU work. Two threads deliver a batch
every 15 ms: the GPU waits for input while the fetching threads sleep (latency-bound, in threads).
usage: python3 thread_prefetch_latency.py SECONDS
"""

import collections
import concurrent.futures
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 256
IN_DIM = 1024
LATENCY_S = 0.030
IN_FLIGHT = 4
_local = threading.local()


def fetch(index):
    time.sleep(LATENCY_S)
    rng = getattr(_local, "rng", None)
    if rng is None:
        rng = _local.rng = np.random.default_rng(index)
    x = rng.integers(0, 256, size=(BATCH, IN_DIM), dtype=np.uint8)
    y = rng.integers(0, 10, size=(BATCH,), dtype=np.int64)
    return x, y


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(IN_DIM, 4096, 1, 10).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="store")
    pending = collections.deque(pool.submit(fetch, i) for i in range(IN_FLIGHT))
    issued = IN_FLIGHT
    _oos.log("params %.1fM, 2 fetching threads, %d ms a request" % (_oos.n_params(model) / 1e6, LATENCY_S * 1e3))
    loop = _oos.Loop(seconds)
    while loop.running():
        x, y = pending.popleft().result()
        pending.append(pool.submit(fetch, issued))
        issued += 1
        xb = torch.from_numpy(x).to(dev).float().div_(255.0)
        yb = torch.from_numpy(y).to(dev)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
    loop.finish()
    pool.shutdown(wait=True, cancel_futures=True)
    loop.result("thread_prefetch_latency")


if __name__ == "__main__":
    main()
