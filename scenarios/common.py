"""Shared helpers for the gpuwhy scenario suite.

Every scenario is a small training loop that reproduces one reason for an
under-used GPU.  This module gives them one argument parser, one step loop and
one ground-truth writer, so that every truth JSON has the same shape:

    {"schema": 1, "scenario": ..., "expected_class": ..., "expected_classes": [...],
     "description": ..., "params": {...}, "batch_size": N, "samples_per_step": N,
     "started_ns": ..., "ended_ns": ..., "steps": [{"i", "start_ns", "end_ns", "kind"}],
     "samples_per_s": ..., "median_step_ms": ..., "torch_version": ..., "device_name": ...}

Times are time.time_ns() (CLOCK_REALTIME, ns).  Each recorded step ends with
torch.cuda.synchronize(), so a step's end is the moment its GPU work finished.
Train steps are wrapped in an NVTX range named "step"; other kinds (eval,
checkpoint, log) in a range named after their kind.
"""

import argparse
import faulthandler
import json
import os
import signal
import statistics
import sys
import time

import torch

SCHEMA = 1
CLASS_IDS = (
    "input_pipeline",
    "small_batch",
    "launch_overhead",
    "multi_gpu_sync",
    "hardware_env",
    "schedule_shape",
    "none",
)
STEP_KINDS = ("train", "eval", "checkpoint", "log")


def log(msg):
    print(msg, flush=True)


def make_parser(description, duration=30.0, warmup_steps=5):
    """Argument parser with the options every scenario shares."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", default=None, help="write the ground-truth JSON here")
    p.add_argument("--duration", type=float, default=duration,
                   help="seconds of steady state recorded after the warm-up (default %(default)s)")
    p.add_argument("--warmup-steps", type=int, default=warmup_steps,
                   help="steps run before recording starts (default %(default)s)")
    p.add_argument("--scenario-name", default=None,
                   help="override the scenario name written to the truth JSON")
    p.add_argument("--expected-class", default=None,
                   help="override the expected class; a comma-separated list sets all expected classes")
    p.add_argument("--description-extra", default=None,
                   help="sentence appended to the description in the truth JSON")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--report-every", type=float, default=5.0,
                   help="seconds between progress lines (default %(default)s)")
    p.add_argument("--max-setup-s", type=float, default=240.0,
                   help="watchdog: give up if setup + warm-up + duration exceed duration + this (default %(default)s)")
    return p



def add_numeric_options(p, **defaults):
    """One --name option per keyword (batch_size=32 gives --batch-size), typed
    as its default: the plain sizes, counts and rates that need no help text."""
    for name, default in defaults.items():
        p.add_argument("--" + name.replace("_", "-"), type=type(default), default=default)


def add_period_options(p, between):
    """--every and --train-period-s of a scenario that interrupts training for
    `between` (evaluations, checkpoints...) every N train steps (see Periodic)."""
    p.add_argument("--every", type=int, default=0,
                   help="train steps between %s; 0 = choose so training lasts --train-period-s" % between)
    p.add_argument("--train-period-s", type=float, default=2.0)

def parse_args(parser):
    args = parser.parse_args()
    if args.duration <= 0:
        parser.error("--duration must be > 0")
    if args.warmup_steps is not None and args.warmup_steps < 0:
        parser.error("--warmup-steps must be >= 0")
    if args.expected_class:
        for c in args.expected_class.split(","):
            if c.strip() not in CLASS_IDS:
                parser.error("unknown class id %r (known: %s)" % (c, ", ".join(CLASS_IDS)))
    # A hung scenario (for example a DataLoader deadlock) must not eat the
    # suite's device time: dump every thread's stack and exit.
    faulthandler.dump_traceback_later(args.duration + args.max_setup_s, exit=True)
    return args


def setup_cuda(seed=1234):
    """Check the GPU is there, seed the generators, return the device."""
    if not torch.cuda.is_available():
        log("error: CUDA is not available; these scenarios need a GPU")
        sys.exit(2)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    torch.empty(1, device=dev)  # create the context now, not inside the first step
    torch.cuda.synchronize()
    return dev


class _Nvtx:
    """NVTX ranges if this torch build has them, otherwise nothing."""

    def __init__(self):
        self.ok = False
        try:
            torch.cuda.nvtx.range_push("gpuwhy_probe")
            torch.cuda.nvtx.range_pop()
            self.ok = True
        except Exception as e:  # a build without NVTX must still run
            log("note: NVTX ranges unavailable (%s); steps are in the truth JSON only" % e)

    def push(self, name):
        if self.ok:
            torch.cuda.nvtx.range_push(name)

    def pop(self):
        if self.ok:
            torch.cuda.nvtx.range_pop()


class Periodic:
    """Work done every `every` train steps and recorded as its own step.

    every <= 0 means: choose it after the warm-up so that the train steps
    between two occurrences last about period_s seconds.
    """

    def __init__(self, kind, fn, every=0, period_s=2.0, min_every=5, max_every=2000):
        if kind not in STEP_KINDS or kind == "train":
            raise ValueError("bad periodic kind %r" % kind)
        self.kind = kind
        self.fn = fn
        self.every = int(every)
        self.period_s = float(period_s)
        self.min_every = min_every
        self.max_every = max_every

    def plan(self, step_s):
        if self.every > 0:
            return
        if step_s is None or step_s <= 0:
            self.every = 20
        else:
            self.every = int(round(self.period_s / step_s))
        self.every = max(self.min_every, min(self.max_every, self.every))


class GroundTruth:
    """Collects the steps of one run and writes the truth JSON."""

    def __init__(self, args, scenario, expected_classes, description, params,
                 batch_size, samples_per_step, extra=None):
        if isinstance(expected_classes, str):
            expected_classes = [expected_classes]
        expected_classes = list(expected_classes)
        if args.expected_class:
            expected_classes = [c.strip() for c in args.expected_class.split(",") if c.strip()]
        for c in expected_classes:
            if c not in CLASS_IDS:
                raise ValueError("unknown class id %r" % c)
        if not expected_classes:
            raise ValueError("no expected class")
        if args.description_extra:
            description = description.rstrip() + " " + args.description_extra.strip()
        self.args = args
        self.scenario = args.scenario_name or scenario
        self.expected_classes = expected_classes
        self.description = " ".join(description.split())
        self.params = dict(params)
        for k in ("duration", "warmup_steps", "seed"):
            self.params.setdefault(k, getattr(args, k))
        self.batch_size = int(batch_size)
        self.samples_per_step = int(samples_per_step)
        self.extra = dict(extra or {})
        # callables(gt) -> dict, merged into the truth when it is written:
        # figures measured during the run (worker CPU, power, latencies)
        self.late_extra = []
        self.steps = []
        self.started_ns = None
        self.ended_ns = None
        self.status = "running"
        self.error = None
        self.pid = os.getpid()
        self.written = False
        self.nvtx = _Nvtx()
        try:
            self.device_name = torch.cuda.get_device_name(0)
        except Exception:
            self.device_name = None

    # -- steps -------------------------------------------------------------

    def timed(self, fn, kind="train"):
        """Run fn, synchronize, return (start_ns, end_ns)."""
        self.nvtx.push("step" if kind == "train" else kind)
        try:
            t0 = time.time_ns()
            fn()
            torch.cuda.synchronize()
            t1 = time.time_ns()
        finally:
            self.nvtx.pop()
        return t0, t1

    def add_step(self, kind, t0, t1):
        self.steps.append({"i": len(self.steps), "start_ns": int(t0), "end_ns": int(t1), "kind": kind})

    # -- results -----------------------------------------------------------

    def _train_steps(self):
        return [s for s in self.steps if s["kind"] == "train"]

    def summary(self):
        train = self._train_steps()
        busy_ns = sum(s["end_ns"] - s["start_ns"] for s in train)
        samples = len(train) * self.samples_per_step
        sps = samples / (busy_ns / 1e9) if busy_ns > 0 else None
        wall_ns = (self.ended_ns - self.started_ns) if (self.started_ns and self.ended_ns) else 0
        sps_wall = samples / (wall_ns / 1e9) if wall_ns > 0 else None
        med = statistics.median([(s["end_ns"] - s["start_ns"]) / 1e6 for s in train]) if train else None
        return sps, sps_wall, med

    def to_dict(self):
        sps, sps_wall, med = self.summary()
        kinds = {}
        for s in self.steps:
            kinds[s["kind"]] = kinds.get(s["kind"], 0) + 1
        d = {
            "schema": SCHEMA,
            "scenario": self.scenario,
            "expected_class": self.expected_classes[0],
            "expected_classes": self.expected_classes,
            "description": self.description,
            "params": self.params,
            "batch_size": self.batch_size,
            "samples_per_step": self.samples_per_step,
            "started_ns": self.started_ns,
            "ended_ns": self.ended_ns,
            "steps": self.steps,
            "step_counts": kinds,
            # samples per second of train-step time (eval/checkpoint/log steps excluded)
            "samples_per_s": sps,
            # samples per second of steady-state wall time (everything included)
            "samples_per_s_wall": sps_wall,
            "median_step_ms": med,
            "torch_version": torch.__version__,
            "cuda_version": torch.version.cuda,
            "device_name": self.device_name,
            "nvtx": self.nvtx.ok,
            "pid": self.pid,
            "argv": sys.argv,
            "status": self.status,
        }
        if self.error:
            d["error"] = self.error
        d.update(self.extra)
        for fn in self.late_extra:
            try:
                d.update(fn(self))
            except Exception as e:  # a figure that cannot be computed must not lose the truth
                d.setdefault("late_extra_errors", []).append("%s: %s" % (type(e).__name__, e))
        return d

    def write(self):
        if os.getpid() != self.pid or self.written:
            return  # never from a forked DataLoader worker
        self.written = True
        if self.ended_ns is None:
            self.ended_ns = time.time_ns()
        out = self.args.out
        if not out:
            return
        d = os.path.dirname(os.path.abspath(out))
        os.makedirs(d, exist_ok=True)
        tmp = out + ".tmp%d" % os.getpid()
        with open(tmp, "w") as f:
            json.dump(self.to_dict(), f, indent=1)
            f.write("\n")
        os.replace(tmp, out)
        log("[%s] truth written to %s" % (self.scenario, out))


class _ProfileDone(Exception):
    pass


def _profiled_steps(gt, train_step, path, n_steps):
    """GPUWHY_SCN_PROFILE=FILE: run n_steps train steps under torch.profiler
    (CPU and CUDA activities, one ProfilerStep#N per train step) and write its
    Chrome trace to FILE (gzip when FILE ends in .gz), instead of the timed
    loop. For comparing gpuwhy's tracer and importer with torch.profiler on the
    same program: the steps are in the truth JSON as usual."""
    from torch.profiler import ProfilerActivity, profile

    gt.started_ns = time.time_ns()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(n_steps):
            t0, t1 = gt.timed(train_step, "train")
            gt.add_step("train", t0, t1)
            prof.step()
    prof.export_chrome_trace(path)
    log("[%s] torch.profiler trace of %d steps written to %s" % (gt.scenario, n_steps, path))



def warm_up(train_step, n_steps):
    """Run n_steps synchronized train steps; the median step in seconds (the
    first step, which compiles and allocates, left out when there are others),
    or None after no steps."""
    warm = []
    for _ in range(n_steps):
        t0 = time.monotonic()
        train_step()
        torch.cuda.synchronize()
        warm.append(time.monotonic() - t0)
    return statistics.median(warm[1:] if len(warm) > 1 else warm) if warm else None

def run(gt, train_step, periodic=None, on_exit=None, wait_for_work=None):
    """Warm up, then run train steps for args.duration seconds and write the truth.

    train_step(): one training step (fetch the batch, forward, backward,
        optimizer step).  No synchronize needed: the loop does it.
    periodic: optional list of Periodic objects.
    on_exit: optional cleanup called in every case (files, loaders).
    wait_for_work(): optional, steady state only: called before each step,
        outside the step's time; returns False when no work came (the step is
        skipped).  For loops that idle by design between units of work (a
        server waiting for requests), so that steps hold only the work.
    Exits the process: 0 when done, 130/143 on SIGINT/SIGTERM, 1 on error.
    """
    args = gt.args
    periodic = list(periodic or [])
    main_pid = os.getpid()
    caught = {"sig": None}

    def handler(signum, frame):
        if os.getpid() != main_pid:
            os._exit(0)  # a forked worker: leave quietly
        caught["sig"] = signum
        raise KeyboardInterrupt("signal %d" % signum)

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    rc = 0
    try:
        # ---- warm-up: not recorded -------------------------------------
        log("[%s] warm-up: %d steps" % (gt.scenario, args.warmup_steps))
        t_warm = time.monotonic()
        step_s = warm_up(train_step, args.warmup_steps)
        for p in periodic:
            p.plan(step_s)
            gt.params["%s_every_steps" % p.kind] = p.every
        log("[%s] warm-up done in %.1f s (median step %s ms)%s" % (
            gt.scenario, time.monotonic() - t_warm,
            "%.2f" % (step_s * 1e3) if step_s else "?",
            "".join("; %s every %d steps" % (p.kind, p.every) for p in periodic)))

        # ---- steady state ----------------------------------------------
        profile_path = os.environ.get("GPUWHY_SCN_PROFILE")
        if profile_path:
            _profiled_steps(gt, train_step, profile_path, int(os.environ.get("GPUWHY_SCN_PROFILE_STEPS", "5")))
            raise _ProfileDone()
        gt.started_ns = time.time_ns()
        t_start = time.monotonic()
        next_report = t_start + args.report_every
        last_report_t, last_report_n = t_start, 0
        n_train = 0
        while time.monotonic() - t_start < args.duration:
            if wait_for_work is not None and not wait_for_work():
                continue
            t0, t1 = gt.timed(train_step, "train")
            gt.add_step("train", t0, t1)
            n_train += 1
            for p in periodic:
                if p.every > 0 and n_train % p.every == 0:
                    t0, t1 = gt.timed(p.fn, p.kind)
                    gt.add_step(p.kind, t0, t1)
            now = time.monotonic()
            if now >= next_report:
                sps = (n_train - last_report_n) * gt.samples_per_step / max(now - last_report_t, 1e-9)
                log("[%s] t=%5.1fs train_steps=%d samples/s=%.1f" % (gt.scenario, now - t_start, n_train, sps))
                last_report_t, last_report_n = now, n_train
                next_report = now + args.report_every
        gt.ended_ns = time.time_ns()
        gt.status = "ok"
    except _ProfileDone:
        gt.ended_ns = time.time_ns()
        gt.status = "ok"
    except KeyboardInterrupt:
        gt.ended_ns = time.time_ns()
        gt.status = "interrupted"
        rc = 143 if caught["sig"] == signal.SIGTERM else 130
        log("[%s] interrupted" % gt.scenario)
    except BaseException as e:  # record the failure, then report it
        gt.ended_ns = time.time_ns()
        gt.status = "error"
        gt.error = "%s: %s" % (type(e).__name__, e)
        rc = 1
        import traceback
        traceback.print_exc()
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if gt.started_ns is None:
            gt.started_ns = gt.ended_ns
        try:
            gt.write()
        except Exception as e:
            log("[%s] could not write truth: %s" % (gt.scenario, e))
            rc = rc or 1
        if on_exit is not None:
            try:
                on_exit()
            except Exception as e:
                log("[%s] cleanup failed: %s" % (gt.scenario, e))
    sps, sps_wall, med = gt.summary()
    log("[%s] %s: steps=%d samples/s=%s (wall %s) median_step_ms=%s expected=%s" % (
        gt.scenario, gt.status, len(gt.steps),
        "%.1f" % sps if sps else "?", "%.1f" % sps_wall if sps_wall else "?",
        "%.2f" % med if med else "?", ",".join(gt.expected_classes)))
    sys.stdout.flush()
    sys.stderr.flush()
    # os._exit skips interpreter teardown, which can hang on DataLoader workers
    # or CUDA after a signal; everything worth keeping is written by now.
    os._exit(rc)


# ---- small shared pieces of models and data ----------------------------


def infinite_loader(dataset, batch_size, num_workers):
    """An InfiniteLoader over the dataset in order (whole batches only), its
    workers, if any, kept across epochs and each prefetching 2 batches."""
    kw = {}
    if num_workers > 0:
        kw = dict(persistent_workers=True, prefetch_factor=2)
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=False,
                                         num_workers=num_workers, drop_last=True, **kw)
    return InfiniteLoader(loader)


class InfiniteLoader:
    """Iterate a DataLoader forever (restarts at the end of an epoch)."""

    def __init__(self, loader):
        self.loader = loader
        self.it = iter(loader)

    def next(self):
        try:
            return next(self.it)
        except StopIteration:
            self.it = iter(self.loader)
            return next(self.it)

    def close(self):
        it = self.it
        self.it = None
        shutdown = getattr(it, "_shutdown_workers", None)
        if shutdown is not None:
            try:
                shutdown()
            except Exception:
                pass


def make_mlp(in_dim, width, depth, out_dim):
    """in_dim -> depth x (Linear + ReLU) of width -> out_dim."""
    layers = []
    d = in_dim
    for _ in range(depth):
        layers.append(torch.nn.Linear(d, width))
        layers.append(torch.nn.ReLU())
        d = width
    layers.append(torch.nn.Linear(d, out_dim))
    return torch.nn.Sequential(*layers)


class TokenEncoder(torch.nn.Module):
    """Embedding, a pre-norm transformer encoder (no dropout) and a linear head:
    logits per token, or per sequence (mean over its tokens) with pool=True."""

    def __init__(self, vocab, d_model, layers, heads, classes, pool=False):
        super().__init__()
        self.pool = pool
        self.emb = torch.nn.Embedding(vocab, d_model)
        layer = torch.nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.0,
                                                 batch_first=True, norm_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(d_model, classes)

    def forward(self, tokens):
        h = self.enc(self.emb(tokens))
        return self.head(h.mean(dim=1) if self.pool else h)


def shm_free_gib():
    """Free space in /dev/shm (DataLoader workers pass batches through it), or None."""
    try:
        st = os.statvfs("/dev/shm")
        return st.f_bavail * st.f_frsize / 2 ** 30
    except OSError:
        return None


def param_bytes(module):
    return sum(p.numel() * p.element_size() for p in module.parameters())


def vars_of(args, drop=("out", "scenario_name", "expected_class", "description_extra", "report_every", "max_setup_s")):
    """The scenario options worth keeping in the truth's params."""
    return {k: v for k, v in vars(args).items() if k not in drop}


def bf16_train_on(model, opt):
    """train_on(x, y): one optimizer step of cross-entropy in bf16 autocast on
    a batch already on the GPU, with no host sync."""
    loss_fn = torch.nn.CrossEntropyLoss()

    def train_on(x, y):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return train_on


def bf16_mlp_step(model, opt, dev, batch, in_dim, classes, seed):
    """A compute-bound train step: data made on the GPU, bf16 autocast, no syncs."""
    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)
    train_on = bf16_train_on(model, opt)

    def step():
        x = torch.randn(batch, in_dim, device=dev, generator=gen)
        y = torch.randint(0, classes, (batch,), device=dev, generator=gen)
        train_on(x, y)
    return step


def bf16_mlp_training(args, dev, make_optimizer):
    """(model, opt, step): the healthy compute-bound job of the schedule
    scenarios, an MLP of args.depth x args.width trained by bf16_mlp_step on
    batches of args.batch_size; make_optimizer(parameters) gives the optimizer."""
    model = make_mlp(args.in_dim, args.width, args.depth, args.classes).to(dev)
    opt = make_optimizer(model.parameters())
    step = bf16_mlp_step(model, opt, dev, args.batch_size, args.in_dim, args.classes, args.seed)
    return model, opt, step


def schedule_options(p, between, **sizes):
    """The options every schedule scenario has: its model sizes (numeric
    options), and the period of what interrupts training (`between`)."""
    add_numeric_options(p, **sizes)
    add_period_options(p, between)


def schedule_training(p, make_optimizer):
    """(args, dev, model, opt, step) of a schedule scenario once all its options
    are on p: the arguments parsed, CUDA set up, and bf16_mlp_training."""
    args = parse_args(p)
    dev = setup_cuda(args.seed)
    model, opt, step = bf16_mlp_training(args, dev, make_optimizer)
    return args, dev, model, opt, step


def run_schedule(args, name, kind, hook, train_step, description, extra, on_exit=None, **params):
    """Runs a schedule_shape scenario: the healthy train_step, interrupted every
    N steps (--every, --train-period-s) by hook, whose passes are the steps of
    `kind`; the batch is args.batch_size samples. The truth's params are the
    options and the keywords given."""
    per = Periodic(kind, hook, every=args.every, period_s=args.train_period_s)
    all_params = vars_of(args)
    all_params.update(params)
    gt = GroundTruth(args, name, ["schedule_shape"], description, all_params, args.batch_size, args.batch_size,
                     extra=extra)
    run(gt, train_step, periodic=[per], on_exit=on_exit)


def loader_train_step(model, opt, batches, dev):
    """A plain train step on the next (x, y) batch of an InfiniteLoader: the
    batch is copied to dev (blocking), then one cross-entropy optimizer step."""
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        x, y = batches.next()
        x = x.to(dev)
        y = y.to(dev)
        loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


def remove_files(*paths, ignore=FileNotFoundError):
    """Delete the scenario's scratch files; a file that is not there (or, with
    ignore=OSError, cannot be removed) is not an error at cleanup."""
    for path in paths:
        try:
            os.unlink(path)
        except ignore:
            pass


class PowerProbe:
    """Board power of one GPU, read once a second by a background thread, for
    the truth only (read-only NVML queries: no GPU setting is touched).

    Reads through torch.cuda.power_draw (it needs the pynvml package) or else
    libnvidia-ml through ctypes; the enforced power limit always through
    ctypes.  Either may be missing: the summary then says why.
    """

    def __init__(self, index=0, period_s=1.0):
        import threading
        self.index = index
        self.period_s = period_s
        self.samples = []  # (time.time_ns(), watts)
        self.source = None
        self.errors = []
        self.limit_w = None
        self._nvml = None
        self._handle = None
        self._stop = threading.Event()
        self._thread = None
        self._open_nvml()
        draw = getattr(torch.cuda, "power_draw", None)
        if draw is not None:
            try:
                draw(index)
                self._read = lambda: draw(index) / 1000.0  # mW -> W
                self.source = "torch.cuda.power_draw"
            except Exception as e:
                self.errors.append("torch.cuda.power_draw: %s: %s" % (type(e).__name__, e))
        else:
            self.errors.append("torch.cuda.power_draw: not in this torch")
        if self.source is None and self._handle is not None:
            self._read = self._nvml_power_w
            self.source = "nvml (ctypes)"

    def _open_nvml(self):
        import ctypes
        try:
            lib = ctypes.CDLL("libnvidia-ml.so.1")
            if lib.nvmlInit_v2() != 0:
                raise OSError("nvmlInit_v2 failed")
            handle = ctypes.c_void_p()
            if lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(self.index), ctypes.byref(handle)) != 0:
                raise OSError("nvmlDeviceGetHandleByIndex_v2(%d) failed" % self.index)
            self._nvml, self._handle = lib, handle
            mw = ctypes.c_uint()
            if lib.nvmlDeviceGetEnforcedPowerLimit(handle, ctypes.byref(mw)) == 0:
                self.limit_w = mw.value / 1000.0
        except Exception as e:
            self.errors.append("nvml: %s: %s" % (type(e).__name__, e))

    def _nvml_power_w(self):
        import ctypes
        mw = ctypes.c_uint()
        if self._nvml.nvmlDeviceGetPowerUsage(self._handle, ctypes.byref(mw)) != 0:
            raise OSError("nvmlDeviceGetPowerUsage failed")
        return mw.value / 1000.0

    def start(self):
        import threading
        if self.source is None:
            return self

        def loop():
            while not self._stop.wait(self.period_s):
                try:
                    self.samples.append((time.time_ns(), float(self._read())))
                except Exception as e:
                    self.errors.append("read: %s: %s" % (type(e).__name__, e))
                    return
        self._thread = threading.Thread(target=loop, name="power_probe", daemon=True)
        self._thread.start()
        return self

    def summary(self, t0_ns=None, t1_ns=None):
        """Median, min and max watts over [t0_ns, t1_ns], and against the limit."""
        self._stop.set()
        w = [v for t, v in self.samples if (t0_ns is None or t >= t0_ns) and (t1_ns is None or t <= t1_ns)]
        d = {"source": self.source, "samples": len(w), "limit_w": self.limit_w}
        if w:
            med = statistics.median(w)
            d.update(median_w=round(med, 1), min_w=round(min(w), 1), max_w=round(max(w), 1))
            if self.limit_w:
                d["median_frac_of_limit"] = round(med / self.limit_w, 3)
        if self.errors:
            d["errors"] = self.errors[:5]
        return d
