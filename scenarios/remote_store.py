"""input_pipeline: workers wait on a slow remote store (latency, not CPU).

Every batch is one request to a simulated object store: the DataLoader worker
sleeps for the request's round trip (20-40 ms by default, uniform, fixed by the
seed), then copies the payload out of a buffer already in memory, which costs
almost no CPU.  Two workers, so at most two requests are in flight: the loader
delivers a batch about every 15 ms while the GPU needs a few milliseconds per
step.  The GPU waits on input whose workers are asleep, not busy; more requests
in flight (more workers, or asynchronous reads) would fix it, faster CPUs would
not.  Each worker reports the wall and CPU time of every batch it made, so the
truth holds the measured proof that the loader is latency-bound.
"""

import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402

PAYLOAD_POOL_BYTES = 64 << 20  # one buffer of random bytes, shared copy-on-write by the forked workers


class IndexRange(torch.utils.data.Sampler):
    """0, 1, 2, ... up to n (a plain range; the dataset is virtual)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


class RemoteStore(torch.utils.data.Dataset):
    """Batches of (features, labels, [wall_ns, cpu_ns]) fetched with one simulated round trip each."""

    def __init__(self, features, latency_ms_lo, latency_ms_hi, seed):
        self.features = features
        self.lo = latency_ms_lo / 1e3
        self.hi = latency_ms_hi / 1e3
        self.seed = seed
        self.pool = bytearray(random.Random(seed).randbytes(PAYLOAD_POOL_BYTES))

    def __len__(self):
        return 1 << 40

    def __getitem__(self, indices):
        # indices: the list a BatchSampler gives, one request for the whole batch
        t0, c0 = time.monotonic_ns(), time.thread_time_ns()
        first = indices[0]
        rng = random.Random(self.seed * 1000003 + first)
        time.sleep(rng.uniform(self.lo, self.hi))  # the round trip: nothing to do but wait
        n = len(indices) * self.features
        off = rng.randrange(0, PAYLOAD_POOL_BYTES - n) if n < PAYLOAD_POOL_BYTES else 0
        x = torch.frombuffer(self.pool, dtype=torch.uint8, count=n, offset=off).clone().view(len(indices), -1)
        y = torch.tensor([i % 100 for i in indices], dtype=torch.int64)
        cost = torch.tensor([time.monotonic_ns() - t0, time.thread_time_ns() - c0], dtype=torch.int64)
        return x, y, cost


def main():
    p = common.make_parser(__doc__.splitlines()[0], warmup_steps=10)
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--features", type=int, default=3072, help="bytes per sample (default 3x32x32)")
    common.add_numeric_options(p, latency_ms_lo=20.0, latency_ms_hi=40.0, num_workers=2, prefetch_factor=2, width=4096,
                            depth=6)
    args = common.parse_args(p)
    if not (0 <= args.latency_ms_lo <= args.latency_ms_hi):
        p.error("need 0 <= --latency-ms-lo <= --latency-ms-hi")
    if args.num_workers < 1:
        p.error("--num-workers must be >= 1: the scenario is about workers waiting")
    if args.batch_size * args.features >= PAYLOAD_POOL_BYTES:
        p.error("--batch-size x --features must stay under %d bytes" % PAYLOAD_POOL_BYTES)
    dev = common.setup_cuda(args.seed)

    ds = RemoteStore(args.features, args.latency_ms_lo, args.latency_ms_hi, args.seed)
    batches_of = torch.utils.data.BatchSampler(IndexRange(1 << 40), args.batch_size, drop_last=True)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, sampler=batches_of, num_workers=args.num_workers,
                                         pin_memory=True, persistent_workers=True,
                                         prefetch_factor=args.prefetch_factor)
    batches = common.InfiniteLoader(loader)

    model = common.make_mlp(args.features, args.width, args.depth, 100).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loss_fn = torch.nn.CrossEntropyLoss()
    waits_ns, costs = [], []  # per steady step: time blocked on the loader; per batch: worker wall, cpu

    def step():
        t0 = time.monotonic_ns()
        x, y, cost = batches.next()
        waits_ns.append(time.monotonic_ns() - t0)
        costs.append((int(cost[0]), int(cost[1])))
        x = x.to(dev, non_blocking=True)
        y = y.to(dev, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(model(x.float().div_(255.0)), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    def measured(gt):
        train = [s for s in gt.steps if s["kind"] == "train"]
        n = len(train)
        w = waits_ns[-n:] if n else []
        c = costs[-n:] if n else []
        step_ns = sum(s["end_ns"] - s["start_ns"] for s in train)
        wall = [a for a, _ in c]
        cpu = [b for _, b in c]
        return {"latency_bound": {
            "data_wait_share": round(sum(w) / step_ns, 3) if step_ns else None,
            "data_wait_median_ms": round(statistics.median(w) / 1e6, 2) if w else None,
            "worker_batch_wall_median_ms": round(statistics.median(wall) / 1e6, 2) if wall else None,
            "worker_batch_cpu_median_ms": round(statistics.median(cpu) / 1e6, 2) if cpu else None,
            # CPU time over wall time of the worker while making a batch: near 0 when it only waits
            "worker_cpu_share": round(sum(cpu) / sum(wall), 3) if wall and sum(wall) else None,
            "loader_batches_per_s_max": round(args.num_workers / ((args.latency_ms_lo + args.latency_ms_hi) / 2e3), 1),
        }}

    params = common.vars_of(args)
    params.update(param_bytes=common.param_bytes(model), requests_in_flight_max=args.num_workers,
                  cpu_count=os.cpu_count())
    gt = common.GroundTruth(
        args, "remote_store", ["input_pipeline"],
        "Each batch of %d samples (%d bytes each) is one request to a simulated remote object store: the "
        "DataLoader worker sleeps for the round trip (uniform %.0f-%.0f ms), then copies the payload out of "
        "memory, which costs almost no CPU. With %d workers at most %d requests are in flight, so the loader "
        "delivers a batch about every %.0f ms while the %d-layer MLP (width %d, bf16 autocast) needs only a "
        "few. The GPU waits on input, and the input is latency-bound: the workers sleep (state S, a few "
        "percent of a core), disk and CPU are idle. More requests in flight (more workers on the %s cores, "
        "or asynchronous reads) would fix it; faster CPUs or lighter transforms would not. The truth's "
        "latency_bound block holds the measured data wait and the workers' CPU share." % (
            args.batch_size, args.features, args.latency_ms_lo, args.latency_ms_hi, args.num_workers,
            args.num_workers, (args.latency_ms_lo + args.latency_ms_hi) / 2 / args.num_workers, args.depth,
            args.width, os.cpu_count()),
        params, args.batch_size, args.batch_size)
    gt.late_extra.append(measured)
    common.run(gt, step, on_exit=batches.close)


if __name__ == "__main__":
    main()
