#!/usr/bin/env python3
"""The Python step hook's cost, measured inside ONE process (bench/tracer).

A/B/A': the training step of bench/tracer/storm.py (its workloads, copied here
in small) runs in short blocks of --block steps: with gpuwhy's hook attached
(_Recorder.attach: torch.optim's global step hooks and the DataLoader wrapper,
writing its spool lines to a temporary folder), detached (_Recorder.detach),
and detached again (the control: plain against plain shows the floor of the
measurement itself). The three blocks of a round run in a random order (seeded),
rounds go on until --seconds have passed (or for --rounds), after
--warmup-rounds that are discarded. The process is pinned to --cpus (default:
the last two CPUs it may use, away from CPU 0 and its interrupts) and Python's
garbage collector runs between blocks, not inside them, for both configs alike.

Per round the paired difference hook/plain - 1 (and plain'/plain - 1 for the
control); reported: their median with a bootstrap 95% interval (resampling
rounds), their mean with its interval, and best-of-N (the best hook block
against the best plain block). Short blocks and many rounds put slow drifts
(clocks, thermals, other load) on both sides of each pair; the interval's
half-width says what the run can resolve ("resolves 0.5%: yes" when it is
below 0.5 points).

Workloads: train (4-layer transformer encoder, d 512, batch 32 x 128 tokens,
AdamW, bf16 autocast: one optimizer step per step, the hook's full work),
storm (200 x mul+add on 64x64: no optimizer, so the hook has no per-step work:
shows its presence alone), storm_opt (the storm plus an SGD step on one 64x64
parameter, so the hook fires once per launch-bound step), fake (the tests'
fake torch: 1 ms sleep and a fake optimizer step, for a dry run without GPU).

--micro: the hook's own CPU work per step, no GPU: on_optimizer_pre +
on_optimizer_post with a stand-in optimizer, --iterations times, in ns per
step, beside the same loop calling two empty functions (the loop's own cost)
the DataLoader wrapper's per-batch work (enter + batch) and the forward
pre-hook's work at a step's first module call (programs without DataLoader).

usage: hook_ab.py [--workload train|storm|storm_opt|fake] [--block 10] [--seconds 120] [--rounds N]
                  [--warmup-rounds 3] [--cpus 2,3]
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
    ap.add_argument("--block", type=int, default=10, help="steps per block (default %(default)s)")
    ap.add_argument("--seconds", type=float, default=120.0, help="time for the measured rounds (default %(default)s)")
    ap.add_argument("--rounds", type=int, default=0, help="a fixed number of measured rounds instead of --seconds")
    ap.add_argument("--warmup-rounds", type=int, default=3, help="rounds run first and discarded")
    ap.add_argument("--cpus", default="", help="CPUs to pin to, e.g. 2,3 (default: the last two allowed); 'none'")
    ap.add_argument("--micro", action="store_true", help="the CPU micro-benchmark instead of the A/B")
    ap.add_argument("--iterations", type=int, default=100000)
    ap.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.block < 1 or a.warmup_rounds < 0 or a.rounds < 0 or a.seconds <= 0:
        ap.error("need --block >= 1, --warmup-rounds >= 0, --rounds >= 0, --seconds > 0")
    return a


def pin_cpus(spec):
    """Pins the process (all its threads) to the CPUs named; returns them, or None when not pinned."""
    if spec == "none" or not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    cpus = [int(c) for c in spec.split(",") if c.strip()] if spec else allowed[-2:]
    os.sched_setaffinity(0, cpus)
    return cpus


def load_hook():
    if os.environ.get("GPUWHY_PY_SPOOL_DIR"):
        sys.exit("hook_ab.py: GPUWHY_PY_SPOOL_DIR is set (run under gpuwhy record?); run it with plain python3")
    sys.path.insert(0, HOOK_DIR)
    # the step hook alone: the stack sampler has its own measurement (pystack_cost.py)
    os.environ["GPUWHY_PY_SAMPLE_HZ"] = "0"
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
    from workloads import transformer_train_step  # beside this file

    return transformer_train_step(torch), sync


def block_ms(step, sync, n):
    """Wall time and the process's CPU time per step over n steps, in ms. The CPU time (every thread: autograd
    runs backward's launches on a thread of its own) leaves out the time the host's vCPUs were not running at all,
    which moves the wall time of the same block by 10-40% on the H200's shared host."""
    sync()
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        step()
    sync()
    return (time.perf_counter() - t0) * 1e3 / n, (time.process_time() - c0) * 1e3 / n


def paired_summary(diffs, resamples, rng):
    """diffs: one relative difference (in %) per round. Median and mean with
    bootstrap 95% percentile intervals over rounds."""

    def interval(stat):
        draws = sorted(stat([diffs[rng.randrange(len(diffs))] for _ in diffs]) for _ in range(resamples))
        return draws[int(0.025 * resamples)], draws[min(resamples - 1, int(0.975 * resamples))]

    med_lo, med_hi = interval(statistics.median)
    mean_lo, mean_hi = interval(statistics.fmean)
    return {"median": statistics.median(diffs), "median_lo": med_lo, "median_hi": med_hi,
            "mean": statistics.fmean(diffs), "mean_lo": mean_lo, "mean_hi": mean_hi}


def print_paired(label, d):
    half = max(d["median_hi"] - d["median"], d["median"] - d["median_lo"])
    print("%s_median_pct %+.3f ci95 %+.3f %+.3f  mean_pct %+.3f ci95 %+.3f %+.3f  resolves_0.5pct %s"
          % (label, d["median"], d["median_lo"], d["median_hi"], d["mean"], d["mean_lo"], d["mean_hi"],
             "yes" if half < 0.5 else "no (half-width %.2f)" % half))


def count_spool_lines(folder):
    n = 0
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            n += sum(1 for line in f if line.startswith("S\t"))
    return n


def run_ab(a, hook_mod):
    import gc

    import torch

    cpus = pin_cpus(a.cpus)
    step, sync = make_step(torch, a.workload)
    for _ in range(20):  # warm-up: kernels loaded, allocator grown
        step()
    sync()
    spool = tempfile.mkdtemp(prefix="gpuwhy-hook-ab-")
    rec = hook_mod._Recorder(spool)
    rng = random.Random(a.seed)
    rounds = []  # per measured round: {"plain": ms/step, "plain_cpu": CPU ms/step, "hook": ..., "control": ...}
    hook_blocks = 0
    gc_was_on = gc.isenabled()
    try:
        t_end = None
        r = 0
        while True:
            if r == a.warmup_rounds:
                t_end = time.monotonic() + a.seconds
            measured = r >= a.warmup_rounds
            if measured and (len(rounds) >= a.rounds if a.rounds else time.monotonic() >= t_end):
                break
            order = ["plain", "hook", "control"]
            rng.shuffle(order)
            got = {}
            for cfg in order:
                if cfg == "hook":
                    rec.attach(torch)
                gc.collect()
                gc.disable()
                got[cfg], got[cfg + "_cpu"] = block_ms(step, sync, a.block)
                if gc_was_on:
                    gc.enable()
                if cfg == "hook":
                    rec.detach()
                    hook_blocks += 1
            if measured:
                rounds.append(got)
            r += 1
        if rec.disabled:
            sys.exit("hook_ab.py: the hook disabled itself during the run (see stderr); no figure")
        written = count_spool_lines(spool)
    finally:
        if gc_was_on:
            gc.enable()
        shutil.rmtree(spool, ignore_errors=True)
    if len(rounds) < 5:
        sys.exit("hook_ab.py: %d measured rounds: too few for an interval (more --seconds or --rounds)" % len(rounds))
    plain = [g["plain"] for g in rounds]
    hook = [g["hook"] for g in rounds]
    control = [g["control"] for g in rounds]
    hook_diff = [(g["hook"] / g["plain"] - 1.0) * 100.0 for g in rounds]
    control_diff = [(g["control"] / g["plain"] - 1.0) * 100.0 for g in rounds]
    print("workload %s block %d measured_rounds %d warmup_rounds %d cpus %s torch %s"
          % (a.workload, a.block, len(rounds), a.warmup_rounds, ",".join(map(str, cpus)) if cpus else "not pinned",
             getattr(torch, "__version__", "?")))
    for name, v in (("plain", plain), ("hook", hook), ("control", control)):
        print("%-7s median_ms_per_step %.4f mean %.4f best %.4f" % (name, statistics.median(v), statistics.fmean(v),
                                                                    min(v)))
    print_paired("hook_vs_plain", paired_summary(hook_diff, a.bootstrap, rng))
    print_paired("control_vs_plain", paired_summary(control_diff, a.bootstrap, rng))
    print("hook_vs_plain_best_pct %+.3f control_vs_plain_best_pct %+.3f (best-of-N: the best block of each)"
          % ((min(hook) / min(plain) - 1.0) * 100.0, (min(control) / min(plain) - 1.0) * 100.0))
    print("hook_us_per_step_median %+.2f (the paired difference in microseconds)"
          % statistics.median((g["hook"] - g["plain"]) * 1e3 for g in rounds))
    # Every hook block's optimizer steps must be in the spool: the hook really ran.
    expected = hook_blocks * a.block if a.workload != "storm" else 0
    print("hook_steps_written %d expected %d" % (written, expected))
    # The same pairs in CPU time (block_ms): the hook's cost is host work, and CPU time leaves the host's
    # stolen time out. A round whose plain block used no measurable CPU time (a clock tick too coarse) is skipped.
    cpu_rounds = [g for g in rounds if g["plain_cpu"] > 0]
    if len(cpu_rounds) >= 5:
        hook_cpu = [(g["hook_cpu"] / g["plain_cpu"] - 1.0) * 100.0 for g in cpu_rounds]
        control_cpu = [(g["control_cpu"] / g["plain_cpu"] - 1.0) * 100.0 for g in cpu_rounds]
        for name in ("plain", "hook", "control"):
            v = [g[name + "_cpu"] for g in cpu_rounds]
            print("%-7s cpu_median_ms_per_step %.4f mean %.4f best %.4f" % (name, statistics.median(v),
                                                                           statistics.fmean(v), min(v)))
        print_paired("cpu_hook_vs_plain", paired_summary(hook_cpu, a.bootstrap, rng))
        print_paired("cpu_control_vs_plain", paired_summary(control_cpu, a.bootstrap, rng))
        print("cpu_hook_vs_plain_best_pct %+.3f (best-of-N in CPU time)"
              % ((min(g["hook_cpu"] for g in cpu_rounds) / min(g["plain_cpu"] for g in cpu_rounds) - 1.0) * 100.0))
    print("rounds_pct hook %s" % " ".join("%.2f" % v for v in hook_diff))
    print("rounds_pct control %s" % " ".join("%.2f" % v for v in control_diff))


class _StandInOptimizer:
    pass


def mean_ns_of_call_pair(n, first, second, opt, args, kwargs):
    """Mean wall ns of first(opt, args, kwargs) then second(...) over n rounds (the loop's cost included)."""
    t0 = time.perf_counter_ns()
    for _ in range(n):
        first(opt, args, kwargs)
        second(opt, args, kwargs)
    return (time.perf_counter_ns() - t0) / n


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
        # the control runs the very loop of the measured calls, with empty functions
        empty_ns = mean_ns_of_call_pair(n, nothing, nothing, opt, args, kwargs)
        step_ns = mean_ns_of_call_pair(n, rec.on_optimizer_pre, rec.on_optimizer_post, opt, args, kwargs)
        enter, got = rec.on_loader_enter, rec.on_loader_batch
        t0 = time.perf_counter_ns()
        for _ in range(n):
            t = time.time_ns()
            enter(t)
            got(t, t, batch)
        loader_ns = (time.perf_counter_ns() - t0) / n
        # the forward pre-hook's work at a step's first module call (armed, fired, removed)
        module, call_args, arm, fire = torch.nn.Module(), (batch[0],), rec.arm_forward, rec.on_forward
        t0 = time.perf_counter_ns()
        for _ in range(n):
            arm()
            fire(module, call_args)
            rec.forward_batch = -1
        forward_ns = (time.perf_counter_ns() - t0) / n
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
    print("micro_ns_per_step_forward_hook %.1f (the forward pre-hook armed and fired at a step's first module call)"
          % forward_ns)


def main():
    a = parse_args()
    hook_mod = load_hook()
    if a.micro:
        run_micro(a, hook_mod)
    else:
        run_ab(a, hook_mod)


if __name__ == "__main__":
    main()
