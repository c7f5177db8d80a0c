"""Fixes applied to a training program without an edit to its script, for
`gpuwhy experiment try` (docs/FIXES.md).

GPUWHY_PY_FIXES is a comma-separated list of `name` or `name=value`:

  workers=N|auto      DataLoader num_workers (N >= 1; auto: see auto_workers)
  pin_memory          DataLoader pin_memory=True
  persistent_workers  DataLoader persistent_workers=True
  prefetch_factor=N   DataLoader prefetch_factor (N >= 1)
  batch_size=N|xK     DataLoader batch size set to N or multiplied by K
  cudnn_benchmark     torch.backends.cudnn.benchmark = True
  tf32                float32 matmul precision "high", cudnn.allow_tf32 = True
  non_blocking        host-to-device copies from pinned memory non_blocking

Each fix says what it did through the step hook's event line: kind
`fix_applied` or `fix_refused`, code 0, a message that starts with the fix's
name and a colon. Unknown names and bad values are refused the same way; a
DataLoader fix the program never reached is refused at exit. Every patch is
undone by detach() (and at exit): the original functions and flags come
back. Whatever fails in here is reported as a refusal and never reaches the
program. Standard library and torch only; torch is never imported here.
"""
import inspect
import os
import sys

FIXES_ENV = "GPUWHY_PY_FIXES"
# At most this many workers for workers=auto: past it, start-up time and
# memory (one copy of the dataset's Python state per worker) grow while few
# input pipelines scale further.
AUTO_WORKERS_MAX = 16

LOADER_FIXES = ("workers", "pin_memory", "persistent_workers", "prefetch_factor", "batch_size")
FLAG_FIXES = ("cudnn_benchmark", "tf32", "non_blocking")
VALUE_FIXES = ("workers", "prefetch_factor", "batch_size")  # the others take no value


def _positive_int(text):
    return int(text) if text.isdigit() and int(text) >= 1 else None


def usable_cores():
    """The cores this process may run on (its affinity mask: a container's or
    taskset's limit), else the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def local_ranks():
    """Training processes sharing this machine's cores (torchrun's
    LOCAL_WORLD_SIZE; 1 outside a launcher): each builds its own workers."""
    text = os.environ.get("LOCAL_WORLD_SIZE", "")
    return int(text) if text.isdigit() and int(text) >= 1 else 1


def auto_workers():
    """(workers, why) for workers=auto: this process's share of the usable
    cores, less one for its own main thread, at most AUTO_WORKERS_MAX."""
    cores, ranks = usable_cores(), local_ranks()
    share = cores // ranks
    why = "auto: %d usable cores" % cores
    if ranks > 1:
        why += " / %d local ranks" % ranks
    return min(share - 1, AUTO_WORKERS_MAX), why + ", one kept for the main process"


def _in_loader_worker():
    """A DataLoader worker: started by spawn it runs this hook too (the
    environment is inherited), yet the training process reports the fixes."""
    worker = sys.modules.get("torch.utils.data._utils.worker")
    return getattr(worker, "_worker_info", None) is not None


def parse(text):
    """(fixes, refusals): fixes maps a name to its value (None for the flags,
    an int, "auto" or ("x", K)); refusals lists (name, reason) for the items
    that cannot be applied as given."""
    fixes, refusals = {}, []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, has_value, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if name not in LOADER_FIXES and name not in FLAG_FIXES:
            refusals.append((name or item, "refused, unknown fix %r" % item))
            continue
        if name in fixes:
            refusals.append((name, "refused, given twice (%r)" % item))
            continue
        if name not in VALUE_FIXES:
            if has_value:
                refusals.append((name, "refused, takes no value (%r)" % item))
            else:
                fixes[name] = None
            continue
        parsed = None
        if name == "workers" and value == "auto":
            parsed = "auto"
        elif name == "batch_size" and value[:1] == "x":
            k = _positive_int(value[1:])
            parsed = ("x", k) if k is not None else None
        else:
            parsed = _positive_int(value)
        if parsed is None:
            want = {"workers": "N >= 1 or auto", "prefetch_factor": "N >= 1", "batch_size": "N >= 1 or xK, K >= 1"}
            refusals.append((name, "refused, bad value %r (%s=%s)" % (value, name, want[name])))
        else:
            fixes[name] = parsed
    return fixes, refusals


def _caller_site(torch_dir):
    """file:line of the program's line that built the DataLoader: the first
    frame outside torch and this hook."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(2)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(torch_dir + os.sep) and os.path.dirname(path) != here:
            return "%s:%d" % (os.path.basename(path), frame.f_lineno)
        frame = frame.f_back
    return "?"


def _is_cuda_target(args, kwargs):
    """Whether Tensor.to's arguments name a CUDA device: a device, its name,
    an index, or a tensor whose device it takes."""
    for arg in list(args[:1]) + [kwargs.get("device")]:
        if arg is None or isinstance(arg, bool):
            continue
        if isinstance(arg, int):
            return True  # to(0): CUDA device 0
        if isinstance(arg, str):
            return arg.startswith("cuda")
        kind = getattr(arg, "type", None)  # torch.device
        if isinstance(kind, str):
            return kind == "cuda"
        dev = getattr(arg, "device", None)  # another tensor
        if dev is not None:
            return getattr(dev, "type", None) == "cuda"
    return False


class Fixes:
    """The fixes asked by GPUWHY_PY_FIXES, for one process. report(kind, message) writes an event line."""

    def __init__(self, report, text=None):
        self.report = report
        self.fixes, self.refusals = parse(os.environ.get(FIXES_ENV, "") if text is None else text)
        self.torch = None
        self.told = set()  # (name, message) already written: one line per distinct outcome
        self.loader_applied = {}  # name -> DataLoaders changed
        self.loader_refused = set()  # names refused on at least one DataLoader
        self.loader_init = None  # (DataLoader class, original __init__, our wrapper)
        self.tensor_methods = []  # (Tensor class, name, original, whether the class had its own, our wrapper)
        self.flags = []  # (object, attribute, value before) and (None, setter, value before)
        self.batch_sizes_made = set()  # (id of the dataset, batch size) of the loaders batch_size=xK made
        self.copies_made_non_blocking = 0
        self.copies_pageable = 0
        self.summarized = False
        self.silent = False  # a forked child (a DataLoader worker): the parent reports

    # ---- reporting ----------------------------------------------------------
    def tell(self, kind, name, text):
        if self.silent or _in_loader_worker():
            return
        message = "%s: %s" % (name, text)
        if (kind, message) in self.told:
            return
        self.told.add((kind, message))
        try:
            self.report(kind, message)
        except Exception:
            pass  # the spool cannot be written: the fix still stands, unreported

    def applied(self, name, text):
        self.tell("fix_applied", name, text)

    def refused(self, name, text):
        self.tell("fix_refused", name, text if text.startswith("refused") else "refused, " + text)

    # ---- attach / detach ----------------------------------------------------
    def attach(self, torch):
        if not self.fixes and not self.refusals:
            return
        self.torch = torch
        for name, reason in self.refusals:
            self.refused(name, reason)
        self.refusals = []
        for name, apply in (("cudnn_benchmark", self.apply_cudnn_benchmark), ("tf32", self.apply_tf32),
                            ("non_blocking", self.wrap_copies)):
            if name in self.fixes:
                self.guarded(name, apply)
        if any(name in self.fixes for name in LOADER_FIXES):
            try:
                self.wrap_loader_init()
            except Exception as e:
                for name in LOADER_FIXES:
                    if name in self.fixes:
                        self.refused(name, "the DataLoader could not be wrapped: %s: %s" % (type(e).__name__, e))
                        self.loader_refused.add(name)

    def guarded(self, name, apply):
        try:
            apply()
        except Exception as e:
            self.refused(name, "%s: %s" % (type(e).__name__, e))

    def detach(self):
        """Undoes every patch, newest first: flags and functions as they were.
        A function that someone wrapped again over ours is left in place (its
        wrapper would lose its own patch); ours then passes calls through."""
        try:
            self.summarize()
        except Exception:
            pass
        loader_init, self.loader_init = self.loader_init, None
        tensor_methods, self.tensor_methods = self.tensor_methods, []
        flags, self.flags = self.flags, []
        patched = ([(cls, "__init__", original, True, wrapper) for cls, original, wrapper in [loader_init]]
                   if loader_init else []) + tensor_methods
        for cls, name, original, own, wrapper in reversed(patched):
            try:
                if cls.__dict__.get(name) is not wrapper:
                    continue
                if own:
                    setattr(cls, name, original)
                else:
                    delattr(cls, name)  # inherited (torch._C.TensorBase's): the class's lookup again
            except Exception:
                pass
        for obj, attr, before in reversed(flags):
            try:
                if obj is None:
                    attr(before)
                else:
                    setattr(obj, attr, before)
            except Exception:
                pass

    def at_exit(self):
        """The fixes never reached are said once, then everything is undone."""
        if self.silent:
            return
        if self.torch is None:  # never attached: the program did not import torch
            for name, reason in self.refusals:
                self.refused(name, reason)
            for name in self.fixes:
                self.refused(name, "the program never imported torch")
            return
        for name in LOADER_FIXES:
            if name in self.fixes and not self.loader_applied.get(name) and name not in self.loader_refused:
                self.refused(name, "no DataLoader built by exit")
        self.detach()

    def forked(self):
        self.silent = True

    # ---- global flags -------------------------------------------------------
    def cudnn(self):
        import importlib

        return importlib.import_module("torch.backends.cudnn")

    def apply_cudnn_benchmark(self):
        """cuDNN times the algorithms for each new convolution shape and keeps
        the fastest. Numerics: another algorithm may be picked, so results may
        differ in the last bits and from run to run (not deterministic)."""
        cudnn = self.cudnn()
        before = bool(cudnn.benchmark)
        if before:
            self.refused("cudnn_benchmark", "torch.backends.cudnn.benchmark is already True")
            return
        self.flags.append((cudnn, "benchmark", before))
        cudnn.benchmark = True
        self.applied("cudnn_benchmark", "torch.backends.cudnn.benchmark False -> True")

    def apply_tf32(self):
        """float32 matmuls and convolutions on tensor cores as TF32.
        Numerics: their inputs are rounded to a 10-bit mantissa (about 3
        decimal digits, float32 has 23 bits); sums stay float32. Other
        dtypes are not touched."""
        torch, cudnn = self.torch, self.cudnn()
        precision = torch.get_float32_matmul_precision()
        allow = bool(cudnn.allow_tf32)
        if precision != "highest" and allow:
            self.refused("tf32", "float32 matmul precision is already %s and cudnn.allow_tf32 True" % precision)
            return
        changes = []
        if precision == "highest":  # "medium" is lower already: never raised back
            self.flags.append((None, torch.set_float32_matmul_precision, precision))
            torch.set_float32_matmul_precision("high")
            changes.append("float32 matmul precision highest -> high")
        if not allow:
            self.flags.append((cudnn, "allow_tf32", allow))
            cudnn.allow_tf32 = True
            changes.append("cudnn.allow_tf32 False -> True")
        self.applied("tf32", ", ".join(changes))

    # ---- host-to-device copies ----------------------------------------------
    def wrap_copies(self):
        """Tensor.to / Tensor.cuda: a copy from pinned host memory to CUDA is
        asked non_blocking=True where the program did not say; it then
        overlaps with the GPU's work instead of holding the CPU thread.
        Numerics: none, as long as the program does not write into that
        pinned tensor again before the copy ran (a staging buffer refilled
        in place each step); a batch from the DataLoader is a fresh tensor
        each time. An explicit non_blocking=False is kept. Copies from
        pageable memory are counted (pin_memory is needed for those)."""
        torch = self.torch
        cls = torch.Tensor
        parameter = getattr(getattr(torch, "nn", None), "Parameter", None)
        fixes = self

        def host_to_cuda(tensor, cuda_target):
            """'pinned', 'pageable' or None (not a host-to-CUDA copy, or a
            model's parameter: moved once, not the input pipeline)."""
            if not cuda_target or getattr(tensor, "is_cuda", False):
                return None
            if parameter is not None and isinstance(tensor, parameter):
                return None
            return "pinned" if tensor.is_pinned() else "pageable"

        def wrap(name, original, cuda_target):
            def method(tensor, *args, **kwargs):
                if not fixes.tensor_methods:  # detached, yet still reached (wrapped over by someone else)
                    return original(tensor, *args, **kwargs)
                try:
                    kind = None
                    # non_blocking given (by name, or as the one bool among the positional
                    # arguments: to(device, dtype, False), cuda(0, True)): the program's choice
                    if "non_blocking" not in kwargs and not any(isinstance(a, bool) for a in args):
                        kind = host_to_cuda(tensor, cuda_target(args, kwargs))
                    if kind == "pinned":
                        kwargs["non_blocking"] = True
                        fixes.copies_made_non_blocking += 1
                    elif kind == "pageable":
                        fixes.copies_pageable += 1
                except Exception:
                    pass  # a call this wrapper does not understand goes to torch as it came
                return original(tensor, *args, **kwargs)

            method.__wrapped__ = original
            method.__name__ = name
            return method

        def to_target(args, kwargs):
            return _is_cuda_target(args, kwargs)

        def cuda_target(args, kwargs):
            return True  # Tensor.cuda always copies to a CUDA device

        for name, target in (("to", to_target), ("cuda", cuda_target)):
            own = name in cls.__dict__
            # restored as it was found (a descriptor of the class's own, else inherited); called as looked up
            wrapper = wrap(name, getattr(cls, name), target)
            self.tensor_methods.append((cls, name, cls.__dict__[name] if own else None, own, wrapper))
            setattr(cls, name, wrapper)

    def summarize(self):
        """non_blocking's one line: how many copies it changed, how many it
        could not (pageable)."""
        if "non_blocking" not in self.fixes or self.summarized or not self.tensor_methods:
            return
        self.summarized = True
        made, pageable = self.copies_made_non_blocking, self.copies_pageable
        if made + pageable == 0:
            self.refused("non_blocking", "no host-to-device copy seen")
            return
        self.applied("non_blocking", "%d host-to-device copies made non-blocking, %d from pageable memory left "
                     "blocking%s" % (made, pageable, " (pin_memory would let them overlap)" if pageable else ""))

    # ---- DataLoader -----------------------------------------------------------
    def wrap_loader_init(self):
        torch = self.torch
        cls = torch.utils.data.DataLoader
        original = cls.__dict__["__init__"]
        signature = inspect.signature(original)
        iterable = getattr(torch.utils.data, "IterableDataset", None)
        torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
        fixes = self

        def __init__(loader, *args, **kwargs):
            if fixes.loader_init is None:  # detached, yet still reached (wrapped over by someone else)
                return original(loader, *args, **kwargs)
            plan = None
            try:
                bound = signature.bind(loader, *args, **kwargs)
                plan = fixes.plan_loader(bound, signature, iterable, _caller_site(torch_dir))
            except Exception as e:
                for name in LOADER_FIXES:
                    if name in fixes.fixes:
                        fixes.refused(name, "internal error: %s: %s" % (type(e).__name__, e))
                        fixes.loader_refused.add(name)
            if not plan:
                return original(loader, *args, **kwargs)
            bound, told = plan
            try:
                result = original(*bound.args, **bound.kwargs)
            except Exception as e:
                # torch turned the changed arguments down: the loader as the program asked for it
                for name, _ in told:
                    fixes.refused(name, "DataLoader raised %s: %s" % (type(e).__name__, e))
                    fixes.loader_refused.add(name)
                return original(loader, *args, **kwargs)
            for name, text in told:
                fixes.loader_applied[name] = fixes.loader_applied.get(name, 0) + 1
                if fixes.loader_applied[name] == 1:  # one line per fix: the first DataLoader it changed
                    fixes.applied(name, text)
            return result

        __init__.__wrapped__ = original
        cls.__init__ = __init__
        self.loader_init = (cls, original, __init__)

    def plan_loader(self, bound, signature, iterable, site):
        """The changed arguments of one DataLoader and what each fix says:
        (bound, [(name, message)]), or None when nothing changes. Refusals
        are written here. What each changes in the program's numerics:
        workers, pin_memory, persistent_workers, prefetch_factor: nothing
        (the data order is the sampler's; random augmentations inside the
        dataset draw from each worker's own seed, as with any worker count).
        batch_size: the optimisation itself (the learning rate per sample,
        optimizer steps per epoch, batch-norm statistics, memory): measured
        in samples per second, not steps."""
        params = signature.parameters

        def current(arg):
            if arg in bound.arguments:
                return bound.arguments[arg]
            return params[arg].default if arg in params else None

        changes, told = {}, []

        def refuse(name, reason):
            self.refused(name, "%s (%s)" % (reason, site))
            self.loader_refused.add(name)

        def change(name, arg, value, extra=""):
            if arg not in params:  # an __init__ replaced by a library, (*args, **kwargs)
                refuse(name, "this DataLoader's __init__ takes no %s argument by name" % arg)
                return
            before = current(arg)
            if before == value:
                # a DataLoader rebuilt from one this fix changed (accelerate's prepare, Lightning's
                # distributed sampler) has the fixed value already: nothing to say
                if not self.loader_applied.get(name):
                    refuse(name, "DataLoader %s is already %s" % (arg, value))
                return
            changes[arg] = value
            told.append((name, "DataLoader %s %s -> %s%s (%s)" % (arg, before, value, extra, site)))

        dataset = current("dataset")
        var_positional = [p for p in params.values() if p.kind == p.VAR_POSITIONAL]
        if dataset is None and var_positional and bound.arguments.get(var_positional[0].name):
            dataset = bound.arguments[var_positional[0].name][0]
        fixes = self.fixes
        if "workers" in fixes:
            n, extra = fixes["workers"], ""
            if n == "auto":
                n, why = auto_workers()
                extra = ", " + why
            if iterable is not None and isinstance(dataset, iterable):
                refuse("workers", "IterableDataset: each worker would replay the whole stream")
            elif n < 1:
                refuse("workers", "workers=auto: no core to spare for a worker (%s)" % auto_workers()[1])
            else:
                change("workers", "num_workers", n, extra)
        workers_after = changes.get("num_workers", current("num_workers"))
        for name, arg, value in (("persistent_workers", "persistent_workers", True),
                                 ("prefetch_factor", "prefetch_factor", fixes.get("prefetch_factor"))):
            if name not in fixes:
                continue
            if not workers_after:
                refuse(name, "the DataLoader has 0 workers and %s" % (
                    "the workers fix was refused on it" if "workers" in fixes else "no workers fix"))
            else:
                change(name, arg, value)
        if "pin_memory" in fixes:
            cuda = getattr(self.torch, "cuda", None)
            if cuda is None or not cuda.is_available():
                refuse("pin_memory", "no CUDA device")
            else:
                change("pin_memory", "pin_memory", True)
        if "batch_size" in fixes:
            size = current("batch_size")
            if current("batch_sampler") is not None:
                refuse("batch_size", "the DataLoader has a batch_sampler: its batches are the sampler's")
            elif size is None:
                refuse("batch_size", "the DataLoader has batch_size=None: it does not batch")
            else:
                want = fixes["batch_size"]
                if isinstance(want, tuple):
                    if (id(dataset), size) in self.batch_sizes_made:
                        want = size  # rebuilt from a loader this fix made (accelerate's prepare): not again
                    else:
                        want = size * want[1]
                        self.batch_sizes_made.add((id(dataset), want))
                change("batch_size", "batch_size", want)
        if not changes:
            return None
        for arg, value in changes.items():
            bound.arguments[arg] = value
        return bound, told
