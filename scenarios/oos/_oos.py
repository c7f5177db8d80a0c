"""Shared helpers of the .oos programs (not a program itself: it has no LABEL line).

Every program: `python3 NAME.py SECONDS [--fixed]` builds its model, then runs its
training loop for SECONDS wall seconds and prints one line
`RESULT name=NAME steps=N samples_per_s=X step_ms_median=Y [extra=...]`.
"""

import os
import random
import statistics
import sys
import time

import numpy as np
import torch


def parse_args(default_seconds=12.0):
    """(seconds, fixed): the first positional argument, and whether --fixed was given."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    unknown = [f for f in flags if f != "--fixed"]
    if unknown:
        sys.exit("usage: %s SECONDS [--fixed] (unknown %s)" % (sys.argv[0], " ".join(unknown)))
    seconds = float(args[0]) if args else default_seconds
    return seconds, "--fixed" in flags


def seed_all(seed=1234):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # seeds every CUDA device too
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def device():
    if not torch.cuda.is_available():
        sys.exit("this program needs a CUDA GPU")
    return torch.device("cuda")


class Loop:
    """Wall clock of the training loop and the host time between optimizer steps.

    step_done() is called right after optimizer.step(): its intervals are host times; without a
    sync per step the host runs ahead until CUDA's launch queue is full, after which they follow
    the GPU's step time. finish() synchronises so that the elapsed time covers all queued work.
    """

    def __init__(self, seconds):
        self.seconds = seconds
        self.t0 = time.perf_counter()
        self.last = self.t0
        self.steps = 0
        self.samples = 0
        self.step_s = []
        self.elapsed = None

    def running(self):
        return time.perf_counter() - self.t0 < self.seconds

    def since_start(self):
        return time.perf_counter() - self.t0

    def step_done(self, samples):
        now = time.perf_counter()
        self.step_s.append(now - self.last)
        self.last = now
        self.steps += 1
        self.samples += samples

    def finish(self):
        torch.cuda.synchronize()
        self.elapsed = time.perf_counter() - self.t0
        return self.elapsed

    def result(self, name, **extra):
        if self.elapsed is None:
            self.finish()
        # the first step carries CUDA and library set-up: left out of the median when there are others
        steps = self.step_s[1:] if len(self.step_s) > 1 else self.step_s
        med_ms = statistics.median(steps) * 1e3 if steps else float("nan")
        fields = [
            "name=%s" % name,
            "steps=%d" % self.steps,
            "samples_per_s=%.2f" % (self.samples / self.elapsed),
            "step_ms_median=%.3f" % med_ms,
        ]
        for k, v in extra.items():
            fields.append("%s=%s" % (k, ("%.2f" % v) if isinstance(v, float) else v))
        fields.append("elapsed_s=%.2f" % self.elapsed)
        print("RESULT " + " ".join(fields), flush=True)


def mlp(in_dim, width, hidden_layers, out_dim):
    """Linear(in, width), ReLU, hidden_layers x (Linear(width, width), ReLU), Linear(width, out)."""
    layers = [torch.nn.Linear(in_dim, width), torch.nn.ReLU()]
    for _ in range(hidden_layers):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    layers.append(torch.nn.Linear(width, out_dim))
    return torch.nn.Sequential(*layers)


def n_params(model):
    return sum(p.numel() for p in model.parameters())


def log(msg):
    print("[%s] %s" % (os.path.basename(sys.argv[0]), msg), flush=True)
