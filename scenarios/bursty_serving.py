"""none (demand-limited): an inference server whose requests come in bursts.

A thread plays the clients: bursts of requests arrive as a Poisson process (3
bursts a second on average), each burst 16-96 requests a fraction of a
millisecond apart, each request a sequence of 128-512 tokens.  The server loop
(the main thread) blocks on the request queue, takes up to --max-batch
requests (waiting at most --linger-ms for more), pads them to a common length
and runs a bf16 transformer forward under inference_mode, then hands the
answers back (a copy to the host).  Between bursts there is no request: the
GPU idles and the server sleeps in the queue, with no CPU, disk or PCIe work
going on.  The GPU is under-used because there is no demand, not because
anything is slow: none of the training classes applies, and the fix (if any)
is capacity planning (a smaller GPU, sharing it, batching across more
clients), not the input pipeline.  Steps are served batches (inference).
"""

import os
import queue
import random
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


class Clients(threading.Thread):
    """Bursts of requests as a Poisson process: (arrival time_ns, length) into a queue."""

    def __init__(self, q, burst_rate, burst_min, burst_max, in_burst_rate, min_len, max_len, seed):
        super().__init__(name="clients", daemon=True)
        self.q = q
        self.rng = random.Random(seed)
        self.burst_rate = burst_rate
        self.burst_min, self.burst_max = burst_min, burst_max
        self.in_burst_rate = in_burst_rate
        self.min_len, self.max_len = min_len, max_len
        self.stop = threading.Event()
        self.bursts = []  # (start time_ns, requests)
        self.sent = 0

    def run(self):
        while not self.stop.wait(self.rng.expovariate(self.burst_rate)):
            n = self.rng.randint(self.burst_min, self.burst_max)
            self.bursts.append((time.time_ns(), n))
            for i in range(n):
                self.q.put((time.time_ns(), self.rng.randint(self.min_len, self.max_len)))
                self.sent += 1
                if i + 1 < n:
                    time.sleep(self.rng.expovariate(self.in_burst_rate))


def main():
    p = common.make_parser(__doc__.splitlines()[0], warmup_steps=3)
    p.add_argument("--burst-rate", type=float, default=3.0, help="bursts per second (Poisson)")
    p.add_argument("--burst-min", type=int, default=16, help="fewest requests in a burst")
    p.add_argument("--burst-max", type=int, default=96, help="most requests in a burst")
    p.add_argument("--in-burst-rate", type=float, default=4000.0, help="requests per second within a burst")
    common.add_numeric_options(p, min_len=128, max_len=512, max_batch=32)
    p.add_argument("--linger-ms", type=float, default=2.0, help="longest wait for more requests once one came")
    common.add_numeric_options(p, d_model=2048, layers=12, heads=16, vocab=8192, classes=16)
    args = common.parse_args(p)
    if args.burst_rate <= 0 or args.in_burst_rate <= 0 or not (1 <= args.burst_min <= args.burst_max):
        p.error("need --burst-rate > 0, --in-burst-rate > 0, 1 <= --burst-min <= --burst-max")
    if not (1 <= args.min_len <= args.max_len) or args.max_batch < 1 or args.linger_ms < 0:
        p.error("need 1 <= --min-len <= --max-len, --max-batch >= 1, --linger-ms >= 0")
    dev = common.setup_cuda(args.seed)

    model = common.TokenEncoder(args.vocab, args.d_model, args.layers, args.heads, args.classes, pool=True)
    model = model.to(dev, torch.bfloat16).eval()
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    requests = queue.Queue()
    clients = Clients(requests, args.burst_rate, args.burst_min, args.burst_max, args.in_burst_rate,
                      args.min_len, args.max_len, args.seed)
    state = {"pending": [], "started": False}
    served = []  # per served batch: (requests, padded length, [latency ns per request])

    def wait_for_work():
        """Block until a request comes (at most 0.25 s, so the loop sees its end), then batch what follows."""
        if not state["started"]:  # clients start with the steady state: no backlog from the warm-up
            state["started"] = True
            clients.start()
        try:
            first = requests.get(timeout=0.25)
        except queue.Empty:
            return False
        pending = [first]
        deadline = time.monotonic() + args.linger_ms / 1e3
        while len(pending) < args.max_batch:
            left = deadline - time.monotonic()
            try:
                pending.append(requests.get(timeout=left) if left > 0 else requests.get_nowait())
            except queue.Empty:
                break
        state["pending"] = pending
        return True

    def step():
        pending = state["pending"]
        state["pending"] = []
        if pending:
            B = len(pending)
            L = -(-max(n for _, n in pending) // 64) * 64  # pad to a multiple of 64 tokens
        else:  # warm-up: a full batch of the longest requests
            B, L = args.max_batch, -(-args.max_len // 64) * 64
        tokens = torch.randint(0, args.vocab, (B, L), device=dev, generator=gen)
        with torch.inference_mode():
            answer = model(tokens).argmax(dim=-1).cpu()  # back to the clients
        if pending:
            now = time.time_ns()
            served.append((B, L, [now - t for t, _ in pending]))
        return answer

    def measured(gt):
        train = [s for s in gt.steps if s["kind"] == "train"]
        busy_ns = sum(s["end_ns"] - s["start_ns"] for s in train)
        wall_ns = (gt.ended_ns or 0) - (gt.started_ns or 0)
        nreq = sum(b for b, _, _ in served)
        lat = sorted(x for _, _, ls in served for x in ls)
        bursts = [(t, n) for t, n in clients.bursts if gt.started_ns <= t <= gt.ended_ns]
        gaps = [(b[0] - a[0]) / 1e6 for a, b in zip(bursts, bursts[1:])]
        d = {
            "step_unit": "served batch (inference: forward only, no backward, no optimizer)",
            "demand_limited": True,
            "serving": {
                "requests_sent": clients.sent,
                "requests_served": nreq,
                "batches_served": len(served),
                "mean_batch": round(nreq / len(served), 2) if served else None,
                # the share of the window in which the GPU had a batch to run: the demand
                "busy_share": round(busy_ns / wall_ns, 3) if wall_ns > 0 else None,
                "bursts_in_window": len(bursts),
                "burst_gap_median_ms": round(statistics.median(gaps), 1) if gaps else None,
                "latency_p50_ms": round(lat[len(lat) // 2] / 1e6, 2) if lat else None,
                "latency_p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))] / 1e6, 2) if lat else None,
            },
        }
        # requests, not batches, are this server's samples
        if served:
            d["samples_per_step"] = round(nreq / len(served), 3)
            d["samples_per_s"] = nreq / (busy_ns / 1e9) if busy_ns > 0 else None
            d["samples_per_s_wall"] = nreq / (wall_ns / 1e9) if wall_ns > 0 else None
        return d

    def cleanup():
        clients.stop.set()

    params = common.vars_of(args)
    params.update(param_bytes=common.param_bytes(model), precision="bf16 weights, inference_mode",
                  offered_requests_per_s=args.burst_rate * (args.burst_min + args.burst_max) / 2)
    gt = common.GroundTruth(
        args, "bursty_serving", ["none"],
        "An inference server: a client thread sends bursts of requests as a Poisson process (%.1f bursts a "
        "second, %d-%d requests each, %d-%d tokens per request); the main thread blocks on the request "
        "queue, batches up to %d requests (waiting at most %.0f ms for more), pads them and runs an %d-layer "
        "bf16 transformer (d_model %d) forward under inference_mode, then copies the answers to the host. "
        "Steps are served batches (inference, no backward). Between bursts nobody asks for anything: the "
        "GPU idles and the server sleeps in the queue, with CPU, disk and PCIe quiet. The job is "
        "demand-limited: the GPU is under-used for lack of requests, not because input, launches, batch "
        "size, communication, hardware or the schedule hold it back, so none of the training classes "
        "applies (expected none; the truth's serving block holds the busy share, bursts and latencies). A "
        "report should say the GPU waits on demand, not blame the input pipeline." % (
            args.burst_rate, args.burst_min, args.burst_max, args.min_len, args.max_len, args.max_batch,
            args.linger_ms, args.layers, args.d_model),
        params, args.max_batch, args.max_batch)
    gt.late_extra.append(measured)
    common.run(gt, step, on_exit=cleanup, wait_for_work=wait_for_work)


if __name__ == "__main__":
    main()
