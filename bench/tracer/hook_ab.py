#!/usr/bin/env python3
"""The Python step hook's cost, measured inside ONE process (bench/tracer).

A/B: the training step of bench/tracer/storm.py (its workloads, copied here in
small) runs in blocks of --block steps, alternately with gpuwhy's hook
attached (_Recorder.attach: torch.optim's global step hooks and the DataLoader
wrapper, writing its spool lines to a temporary folder) and detached
(_Recorder.detach). The order of the two configs alternates every round, for
--rounds rounds after one warm-up round, so drifts (clocks, thermals, the
allocator) fall on both alike. Per config: the mean of the block means and the
best block (ms/step); then the hook's relative difference of the means with a
bootstrap 95% interval over rounds (the two blocks of a round kept together).

Workloads: train (4-layer transformer encoder, d 512, batch 32 x 128 tokens,
AdamW, bf16 autocast: one optimizer step per step, the hook's full work),
storm (200 x mul+add on 64x64: no optimizer, so the hook has no per-step work:
shows its presence alone), storm_opt (the storm plus an SGD step on one 64x64
parameter, so the hook fires once per launch-bound step), fake (the tests'
fake torch: 1 ms sleep and a fake optimizer step, for a dry run without GPU).

--micro: the hook's own CPU work per step, no GPU: on_optimizer_pre +
on_optimizer_post with a stand-in optimizer, --iterations times, in ns per
step, beside the same loop calling two empty functions (the loop's own cost)
and the DataLoader wrapper's per-batch work (enter + batch).

usage: hook_ab.py [--workload train|storm|storm_opt|fake] [--block 50] [--rounds 20]
       hook_ab.py --micro [--iterations 100000]
Run it with plain python3, not under gpuwhy record (the hook would then be
attached twice)."""
import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HOOK_DIR = os.environ.get("GPUWHY_PYTHON_HOOK_DIR", os.path.join(HERE, "..", "..", "tracer", "python", "gpuwhy_hook"))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workload", choices=("train", "storm", "storm_opt", "fake"), default="train")
    ap.add_argument("--block", type=int, default=50, help="steps per block")
    ap.add_argument("--rounds", type=int, default=20, help="rounds of (hook, plain) blocks after one warm-up round")
    ap.add_argument("--micro", action="store_true", help="the CPU micro-benchmark instead of the A/B")
    ap.add_argument("--iterations", type=int, default=100000)
    ap.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples")
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args()


def load_hook():
    if os.environ.get("GPUWHY_PY_SPOOL_DIR"):
        sys.exit("hook_ab.py: GPUWHY_PY_SPOOL_DIR is set (run under gpuwhy record?); run it with plain python3")
    sys.path.insert(0, HOOK_DIR)
    import _gpuwhy_steps

    return _gpuwhy_steps


def make_step(torch, workload):
    """One training step of the workload and a function that waits for the GPU."""
    if workload == "fake":
        opt = torch.optim.SGD([], lr=0.1)

        def fake_step():
            time.sleep(0.001)
            opt.step()

        return fake_step, lambda: None
    sync = torch.cuda.synchronize
    if workload in ("storm", "storm_opt"):
        x = torch.randn(64, 64, device="cuda")
        y = torch.randn(64, 64, device="cuda")
        w = torch.nn.Parameter(torch.randn(64, 64, device="cuda"))
        opt = torch.optim.SGD([w], lr=1e-3)
        with_opt = workload == "storm_opt"

        def storm_step():
            z = x
            for _ in range(200):
                z = z * y
                z = z + y
            if with_opt:
                w.grad = z
                opt.step()

        return storm_step, sync
    layer = torch.nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    src = torch.randn(32, 128, 512, device="cuda")

    def train_step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(src).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return train_step, sync


def block_ms(step, sync, n):
    sync()
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    sync()
    return (time.perf_counter() - t0) * 1e3 / n


def bootstrap_pct(pairs, resamples, rng):
    """Relative difference of the means (hook against plain), in %, and its
    95% percentile interval over rounds resampled with replacement."""

    def pct(sample):
        plain = statistics.fmean(p for p, _ in sample)
        hook = statistics.fmean(h for _, h in sample)
        return (hook / plain - 1.0) * 100.0

    point = pct(pairs)
    draws = sorted(pct([pairs[rng.randrange(len(pairs))] for _ in pairs]) for _ in range(resamples))
    return point, draws[int(0.025 * resamples)], draws[min(resamples - 1, int(0.975 * resamples))]


def count_spool_lines(folder):
    n = 0
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            n += sum(1 for line in f if line.startswith("S\t"))
    return n


def run_ab(a, hook_mod):
    import torch

    step, sync = make_step(torch, a.workload)
    for _ in range(20):  # warm-up: kernels loaded, allocator grown
        step()
    sync()
    spool = tempfile.mkdtemp(prefix="gpuwhy-hook-ab-")
    rec = hook_mod._Recorder(spool)
    rng = random.Random(a.seed)
    pairs = []  # per round: (plain ms/step, hook ms/step)
    try:
        for r in range(a.rounds + 1):
            got = {}
            for cfg in (("hook", "plain") if r % 2 == 0 else ("plain", "hook")):
                if cfg == "hook":
                    rec.attach(torch)
                got[cfg] = block_ms(step, sync, a.block)
                if cfg == "hook":
                    rec.detach()
            if r > 0:  # round 0 warms both configs up
                pairs.append((got["plain"], got["hook"]))
        if rec.disabled:
            sys.exit("hook_ab.py: the hook disabled itself during the run (see stderr); no figure")
        written = count_spool_lines(spool)
    finally:
        shutil.rmtree(spool, ignore_errors=True)
    plain = [p for p, _ in pairs]
    hook = [h for _, h in pairs]
    point, lo, hi = bootstrap_pct(pairs, a.bootstrap, rng)
    best_pct = (min(hook) / min(plain) - 1.0) * 100.0
    print("workload %s block %d rounds %d (one warm-up round more)" % (a.workload, a.block, a.rounds))
    print("plain mean_ms_per_step %.4f best_ms_per_step %.4f" % (statistics.fmean(plain), min(plain)))
    print("hook  mean_ms_per_step %.4f best_ms_per_step %.4f" % (statistics.fmean(hook), min(hook)))
    print("hook_vs_plain_mean_pct %+.3f ci95 %+.3f %+.3f (bootstrap over rounds, %d resamples)"
          % (point, lo, hi, a.bootstrap))
    print("hook_vs_plain_best_pct %+.3f" % best_pct)
    # Every hook block's optimizer steps must be in the spool: the hook really ran.
    expected = (a.rounds + 1) * a.block if a.workload != "storm" else 0
    print("hook_steps_written %d expected %d" % (written, expected))
    print("blocks_ms plain %s" % " ".join("%.4f" % v for v in plain))
    print("blocks_ms hook %s" % " ".join("%.4f" % v for v in hook))


class _StandInOptimizer:
    pass


def run_micro(a, hook_mod):
    import torch

    spool = tempfile.mkdtemp(prefix="gpuwhy-hook-micro-")
    rec = hook_mod._Recorder(spool)
    rec.attach(torch)  # as in a real process; the calls below go to the hook directly
    opt, args, kwargs = _StandInOptimizer(), (), {}
    batch = (torch.zeros(32, 3), torch.zeros(32))
    n = a.iterations

    def nothing(o, a_, k):
        return None

    try:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            nothing(opt, args, kwargs)
            nothing(opt, args, kwargs)
        empty_ns = (time.perf_counter_ns() - t0) / n
        pre, post = rec.on_optimizer_pre, rec.on_optimizer_post
        t0 = time.perf_counter_ns()
        for _ in range(n):
            pre(opt, args, kwargs)
            post(opt, args, kwargs)
        step_ns = (time.perf_counter_ns() - t0) / n
        enter, got = rec.on_loader_enter, rec.on_loader_batch
        t0 = time.perf_counter_ns()
        for _ in range(n):
            t = time.time_ns()
            enter(t)
            got(t, t, batch)
        loader_ns = (time.perf_counter_ns() - t0) / n
        disabled = rec.disabled
        rec.detach()
        written = count_spool_lines(spool)
    finally:
        shutil.rmtree(spool, ignore_errors=True)
    if disabled:
        sys.exit("hook_ab.py: the hook disabled itself (see stderr); no figure")
    print("micro iterations %d torch %s" % (n, getattr(torch, "__version__", "?")))
    print("micro_ns_per_step_pre_post %.1f (one spool line written per step: %d lines)" % (step_ns, written))
    print("micro_ns_per_step_empty_calls %.1f (the same loop calling two empty functions)" % empty_ns)
    print("micro_ns_per_batch_loader %.1f (DataLoader wrapper's enter + batch, without the loader itself)" % loader_ns)


def main():
    a = parse_args()
    hook_mod = load_hook()
    if a.micro:
        run_micro(a, hook_mod)
    else:
        run_ab(a, hook_mod)


if __name__ == "__main__":
    main()
