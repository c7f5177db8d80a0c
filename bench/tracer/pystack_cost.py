#!/usr/bin/env python3
"""The Python stack sampler's cost (tracer/python/gpuwhy_hook/_gpuwhy_pystack.py), side by side with the same
program unsampled, in one run.

Each round runs the same training program twice, as `gpuwhy record` would (the start-up hook on PYTHONPATH, a
spool folder): once with GPUWHY_PY_SAMPLE_HZ=0 (the step hook alone) and once at --hz (default 25, the
hook's), in a random order per round (seeded). The program times its own steps (time.perf_counter around each, the first --warmup
left out) and prints their mean; per round the ratio sampled/unsampled - 1. Reported: the mean ratio with its
95% Student's t interval over the rounds (bench/tracer/stats_ci.py), and the sampler's own CPU time per sample
(its E py_sampler line: time.thread_time_ns around each sample) with the share of one core it gives at --hz,
a bound on what it can take from the training thread.

Steps:
  host (default): pure-Python work of --work-ms per step (a loop over a list) and an optimizer step: the
        training thread holds the GIL the whole step, the sampler's worst case. Runs on the tests' fake torch
        when torch is not installed.
  --gpu: a GPU-paced step with torch on CUDA: --matmuls 4096x4096 bf16 matmuls, a backward, an SGD step and a
        .item() at the end (the step waits for the GPU).
  --launch: a host-paced step as training has it: a 3-layer MLP on 8 rows on CUDA, forward, backward and an Adam
        step with no synchronising call, so the GPU waits on the kernel launches (torch releases the interpreter
        lock inside its calls, where the pure-Python step never does).

--blocks N (in one process, the narrower interval): one program and one sampling thread for the whole run, as the
hook keeps one; blocks of --block-steps steps, N rounds of blocks (sampler off: the thread blocked, no wake-up;
and on at each rate of --hz, e.g. 20,50; in a random order per round), per round the ratio of each rate's mean
step to the off block's. Each sample is the hook's own Sampler.sample_timed. Between processes a step's time moves by a
few percent (placement, clocks, the allocator), which hides a cost of a fraction of a percent; within one process
the two arms differ only by the sampler. The sampler writes its lines to a file through a stand-in for the hook's
recorder (its spool write, once per half second, included).

usage: pystack_cost.py [--gpu | --launch] [--rounds 12] [--steps 150] [--warmup 20] [--work-ms 10] [--hz 25] [--seed 1]
                       [--blocks N [--block-steps 40] [--max-seconds S] [--rounds-out FILE]]
(several processes' --rounds-out files pool with bench/tracer/pystack_pool.py)
e.g. on the GPU machine: python3 bench/tracer/pystack_cost.py --gpu --blocks 60"""
import argparse
import importlib.util
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HOOK_DIR = os.path.join(ROOT, "tracer", "python", "gpuwhy_hook")
FAKE_TORCH = os.path.join(ROOT, "tests", "python", "fake_torch")
sys.path.insert(0, HERE)
from stats_ci import mean_ci, median_ci  # noqa: E402


def make_step(a):
    """The step function of the program (GPU-paced or host-paced)."""
    import torch

    if a.launch:
        dev = torch.device("cuda")
        net = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                  torch.nn.ReLU(), torch.nn.Linear(256, 10)).to(dev)
        x = torch.randn(8, 256, device=dev)
        y = torch.randint(0, 10, (8,), device=dev)
        opt = torch.optim.Adam(net.parameters())

        def step():
            loss = torch.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return 0
    elif a.gpu:
        dev = torch.device("cuda")
        w = torch.nn.Parameter(torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16) * 0.01)
        x = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
        opt = torch.optim.SGD([w], lr=1e-6)

        def step():
            y = x
            for _ in range(a.matmuls):
                y = y @ w
            loss = y.float().square().mean()
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss.item()
    else:
        # one parameter: real torch refuses an optimizer with none (the hook's step hooks need a step)
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
        data = list(range(2000))

        def step():
            total = 0
            for _ in range(a.iters):  # a fixed amount of work: the sampler's time shows in the step's
                total += sum(v * v for v in data)
            opt.step()
            return total

    return step


def step_kind(a):
    if a.launch:
        return "launch-bound (3-layer MLP on 8 rows, CUDA)"
    return "gpu" if a.gpu else "host (%.0f ms of Python)" % a.work_ms


def child(a):
    """One program: steps timed inside; prints 'step_s_mean X steps N'."""
    step = make_step(a)
    times = []
    for i in range(a.steps + a.warmup):
        t0 = time.perf_counter()
        step()
        if i >= a.warmup:
            times.append(time.perf_counter() - t0)
    print("step_s_mean %.9f steps %d" % (sum(times) / len(times), len(times)), flush=True)




class SpoolStandIn:
    """What the sampler asks of the hook's recorder, writing to a real file; the training thread's flags as a
    plain loop leaves them."""

    def __init__(self, path):
        self.f = open(path, "a")
        self.compile_depth = 0
        self.in_eval = False
        self.loader_workers = -1
        self.loader_recent = False

    def open_spool(self):
        pass

    def write_raw(self, text):
        self.f.write(text)
        self.f.flush()

    def event(self, kind, code, message):
        self.f.write("E\t%d\t%s\t%d\t%s\n" % (time.time_ns(), kind, code, message))

    def sampler_failed(self, e):
        raise e


class ArmedSampler:
    """One sampling thread for the whole run, as the hook keeps one sampler per training thread: starting and
    joining a thread around every block cost the blocks themselves (the thread's start takes the interpreter lock
    from the training thread; a join waits up to a period), which no real run pays. Between blocks the thread
    blocks on a condition (no wake-up at all: the off arm); in a block it samples at the block's rate, each sample
    the hook's own Sampler.sample_timed, as Sampler.run takes it."""

    def __init__(self, pystack, rec, torch):
        import threading

        self.sampler = pystack.Sampler(rec, torch, 1.0)
        self.cond = threading.Condition()
        self.arm = (0, 0)  # (generation, hz); hz 0: blocked
        self.quit = False
        self.late_s = []
        self.phase = random.Random(7)
        self.thread = threading.Thread(target=self.run, name="gpuwhy-pysample", daemon=True)
        self.sampler.recorder.open_spool()
        self.thread.start()

    def set_rate(self, hz):
        with self.cond:
            self.arm = (self.arm[0] + 1, hz)
            self.cond.notify()

    def stop(self):
        with self.cond:
            self.quit = True
            self.cond.notify()
        self.thread.join()

    def run(self):
        s = self.sampler
        while True:
            with self.cond:
                while self.arm[1] == 0 and not self.quit:
                    self.cond.wait()
                if self.quit:
                    return
                arm = self.arm
            period = 1.0 / arm[1]
            # a random phase: a running sampler's samples fall anywhere in a block, so a block of T seconds holds
            # T * hz of them on average; starting a period after the arm gave a block shorter than a period none
            next_t = time.monotonic() - self.phase.random() * period
            while self.arm == arm and not self.quit:
                next_t += period
                delay = next_t - time.monotonic()
                if delay > 0:
                    # Sampler.run sleeps here; waiting on the condition sleeps as long (the lock's timed wait) and
                    # wakes at once when the block ends, so no block starts with a sample of the one before
                    with self.cond:
                        if self.arm == arm and not self.quit:
                            self.cond.wait(delay)
                else:
                    next_t = time.monotonic()
                if self.arm != arm or self.quit:
                    break
                # how late the sample starts against its time: the wait for the interpreter lock and for a core
                self.late_s.append(time.monotonic() - next_t)
                s.sample_timed()


def in_process(a):
    """Rounds of blocks in one process: the sampler off and at each rate of --hz (module docstring)."""
    sys.path.insert(0, HOOK_DIR)
    import torch
    import _gpuwhy_pystack as pystack

    rates = [int(v) for v in str(a.hz).split(",")]
    step = make_step(a)
    for _ in range(a.warmup):
        step()
    rng = random.Random(a.seed)
    spool = tempfile.mkdtemp(prefix="gpuwhy-pystack-cost-")
    rec = SpoolStandIn(os.path.join(spool, "spool.txt"))
    arms = [0] + rates
    ratios = {hz: [] for hz in rates}
    means = {hz: [] for hz in arms}
    own_ns = {hz: 0 for hz in rates}
    samples = {hz: 0 for hz in rates}
    armed = ArmedSampler(pystack, rec, torch)
    s = armed.sampler
    t_start = time.monotonic()
    try:
        for _ in range(a.blocks):
            if a.max_seconds and time.monotonic() - t_start > a.max_seconds:
                break  # a device call's time limit: the rounds done so far, their count printed below
            got = {}
            order = arms[:]
            rng.shuffle(order)
            for hz in order:
                own0, n0 = s.own_ns, s.samples
                armed.set_rate(hz)
                t0 = time.perf_counter()
                for _ in range(a.block_steps):
                    step()
                t_end = time.perf_counter()
                armed.set_rate(0)
                got[hz] = (t_end - t0) / a.block_steps
                # No pause between blocks: the thread wakes at the change of arm and samples no more (a pause let
                # the host's cores idle and start the next block at other clocks, which widened the interval of
                # the host-paced step five-fold on an H100 host)
                with s.lock:
                    s.flush()
                if hz:
                    own_ns[hz] += s.own_ns - own0
                    samples[hz] += s.samples - n0
            for hz in arms:
                means[hz].append(got[hz])
            for hz in rates:
                ratios[hz].append(100.0 * (got[hz] / got[0] - 1.0))
    finally:
        armed.stop()
        shutil.rmtree(spool, ignore_errors=True)
    if a.rounds_out:  # each round's ratios and its blocks' mean steps, for pooling runs (pystack_pool.py)
        with open(a.rounds_out, "w") as f:
            f.write("round\t" + "\t".join("pct_%d_hz" % hz for hz in rates) + "\toff_ms\t" +
                    "\t".join("on_%d_hz_ms" % hz for hz in rates) + "\n")
            for r in range(len(ratios[rates[0]])):
                f.write("%d\t" % r + "\t".join("%.4f" % ratios[hz][r] for hz in rates) + "\t%.6f\t" % (1e3 * means[0][r]) +
                        "\t".join("%.6f" % (1e3 * means[hz][r]) for hz in rates) + "\n")
    print("step %s  %d rounds of %d blocks x %d steps in one process, one sampling thread  mean step off %.3f ms" % (
        step_kind(a), len(means[0]), len(arms), a.block_steps,
        1e3 * sum(means[0]) / len(means[0])))
    for hz in rates:
        m, h = mean_ci(ratios[hz])
        print("hz %d  sampler_vs_off_pct %+.3f ci95 %+.3f %+.3f  (half-width %.3f)" % (hz, m, m - h, m + h, h))
        med, lo, hi = median_ci(ratios[hz])
        print("hz %d  median_round_pct %+.3f ci95 %+.3f %+.3f  (distribution-free)" % (hz, med, lo, hi))
        d, dh, off = paired_cost([1e3 * v for v in means[hz]], [1e3 * v for v in means[0]])
        print("hz %d  paired_cost_pct %+.3f ci95 %+.3f %+.3f  (mean of the rounds' differences over the mean off step)" % (
            hz, 100 * d / off, 100 * (d - dh) / off, 100 * (d + dh) / off))
        if samples[hz]:
            ns = own_ns[hz] / samples[hz]
            print("hz %d  sampler_ns_per_sample %.0f  samples %d (%.1f a second of its blocks)  bound_pct_of_a_core %.3f" % (
                hz, ns, samples[hz], samples[hz] / (sum(means[hz]) * a.block_steps), 100.0 * ns * hz / 1e9))
    late = sorted(armed.late_s)
    if late:
        print("sample start late against its time (the interpreter lock and a core): median %.2f ms  p90 %.2f ms  "
              "max %.1f ms  (%d samples, all rates)" % (1e3 * late[len(late) // 2], 1e3 * late[int(0.9 * (len(late) - 1))],
                                                      1e3 * late[-1], len(late)))


def paired_cost(on_ms, off_ms):
    """The sampler's cost in mean step time: the mean of the rounds' paired differences (on - off) with its 95% t
    half-width, and the mean off step. The mean of the rounds' ratios (on / off - 1) is biased upward wherever the
    off block is noisy (a ratio is bounded below by -100% and not above: a hiccup in the off arm lowers it less than
    the same hiccup in the on arm raises it); a difference is not, so its mean estimates the cost with either arm's
    hiccups in it, and the median round (median_ci) is the figure that leaves rare stalls out."""
    diffs = [x - y for x, y in zip(on_ms, off_ms)]
    d, dh = mean_ci(diffs)
    return d, dh, sum(off_ms) / len(off_ms)


def calibrate(work_ms):
    """Iterations of the host step's unit of work that take about work_ms here."""
    data = list(range(2000))
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 0.2:
        sum(v * v for v in data)
        n += 1
    return max(1, int(n * work_ms / 200.0))


def run_one(a, hz, spool):
    for f in os.listdir(spool):
        os.remove(os.path.join(spool, f))
    path = [HOOK_DIR]
    try:
        import importlib.util

        if importlib.util.find_spec("torch") is None:
            path.append(FAKE_TORCH)
    except Exception:
        path.append(FAKE_TORCH)
    env = dict(os.environ, GPUWHY_PY_SPOOL_DIR=spool, GPUWHY_PY_SAMPLE_HZ=str(hz),
               PYTHONPATH=os.pathsep.join(path + [os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    args = [sys.executable, os.path.abspath(__file__), "--child", "--steps", str(a.steps), "--warmup", str(a.warmup),
            "--iters", str(a.iters), "--matmuls", str(a.matmuls)] + (["--gpu"] if a.gpu else []) + (
                ["--launch"] if a.launch else [])
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit("pystack_cost.py: the program failed (hz %s): %s" % (hz, out.stderr[-2000:]))
    step_s = float(out.stdout.split()[1])
    own_ns = samples = 0
    for name in os.listdir(spool):
        with open(os.path.join(spool, name)) as f:
            for line in f:
                v = line.rstrip("\n").split("\t")
                if v[0] == "E" and len(v) == 5 and v[2] == "py_sampler":
                    own_ns += int(v[3])
                    samples += int(v[4].split("=")[1])
    if "gpuwhy:" in out.stderr:
        sys.exit("pystack_cost.py: the hook said: %s" % out.stderr)
    return step_s, own_ns, samples


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--gpu", action="store_true")
    p.add_argument("--launch", action="store_true")
    p.add_argument("--rounds", type=int, default=12)
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--work-ms", type=float, default=10.0)
    p.add_argument("--matmuls", type=int, default=8)
    p.add_argument("--iters", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--hz", default="25", help="the sampling rate; with --blocks, a list (20,50) for one arm each")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--blocks", type=int, default=0)
    p.add_argument("--block-steps", type=int, default=40)
    p.add_argument("--rounds-out", default="", help="with --blocks: write each round's ratios here (TSV)")
    p.add_argument("--max-seconds", type=float, default=0, help="with --blocks: start no round after this many seconds")
    a = p.parse_args()
    if a.child:
        return child(a)
    if a.blocks:
        if not (a.gpu or a.launch):
            a.iters = calibrate(a.work_ms)
        if importlib.util.find_spec("torch") is None:
            sys.path.insert(0, FAKE_TORCH)
        return in_process(a)
    a.hz = int(a.hz)
    if os.environ.get("GPUWHY_PY_SPOOL_DIR"):
        sys.exit("pystack_cost.py: run it with plain python3, not under gpuwhy record")
    if not (a.gpu or a.launch):
        a.iters = calibrate(a.work_ms)
    rng = random.Random(a.seed)
    spool = tempfile.mkdtemp(prefix="gpuwhy-pystack-cost-")
    ratios, off_steps, on_steps = [], [], []
    own_ns = samples = 0
    try:
        for r in range(a.rounds):
            order = [0, a.hz] if rng.random() < 0.5 else [a.hz, 0]
            got = {}
            for hz in order:
                got[hz] = run_one(a, hz, spool)
            off, on = got[0][0], got[a.hz][0]
            own_ns += got[a.hz][1]
            samples += got[a.hz][2]
            ratios.append(100.0 * (on / off - 1.0))
            off_steps.append(off)
            on_steps.append(on)
            print("round %2d  off %.3f ms  on %.3f ms  %+.3f%%  (%s first)" % (r + 1, 1e3 * off, 1e3 * on,
                                                                              ratios[-1], "off" if order[0] == 0
                                                                              else "on"), flush=True)
    finally:
        shutil.rmtree(spool, ignore_errors=True)
    m, h = mean_ci(ratios)
    print("step %s  %d rounds x %d steps  mean step off %.3f ms on %.3f ms" % (
        step_kind(a), a.rounds, a.steps,
        1e3 * sum(off_steps) / len(off_steps), 1e3 * sum(on_steps) / len(on_steps)))
    print("sampler_vs_off_pct %+.3f ci95 %+.3f %+.3f  (half-width %.3f)" % (m, m - h, m + h, h))
    if samples:
        ns = own_ns / samples
        print("sampler_ns_per_sample %.0f  samples %d  bound_pct_of_a_core_at_%d_hz %.3f" % (
            ns, samples, a.hz, 100.0 * ns * a.hz / 1e9))
    else:
        print("sampler_ns_per_sample unknown (no py_sampler line: the sampler did not start)")


if __name__ == "__main__":
    main()
