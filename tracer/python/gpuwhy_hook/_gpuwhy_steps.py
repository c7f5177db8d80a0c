"""Training steps seen from inside PyTorch, for `gpuwhy record`.

Installed by this folder's sitecustomize.py when GPUWHY_PY_SPOOL_DIR names a
folder. Nothing is imported from torch here: the hook waits until the program
imports torch itself, then registers torch.optim's global step hooks and wraps
the DataLoader iterator's __next__.

Each process appends lines to SPOOL_DIR/py-PID.steps, one write per line
(line-buffered), so a process killed by SIGKILL or ended by os._exit keeps
every line written before. Fields are tab-separated:

  S  step  t_start_ns  t_end_ns  data_wait_ns  batch_size  samples  rank  kind
  E  t_ns  kind  code  message

t_* are time.time_ns() (CLOCK_REALTIME, the recording's clock). A step ends
when the optimizer's step() returns and starts where the previous one ended
(the first one: when the loop first asked for a batch, else when step()
began). kind is "optim", or "loader" where no optimizer step is ever seen and
each DataLoader iteration is a step. data_wait_ns is -1 for a step in which
no DataLoader batch was seen (the loop gets its data some other way, so its
wait is not known). batch_size is the leading dimension of
the first tensor in the step's first batch (-1 unknown); samples sums it over
the batches fetched in the step. Any error turns the hook off with one line
on stderr; the program never sees it.
"""
import functools
import os
import sys
import time

SPOOL_ENV = "GPUWHY_PY_SPOOL_DIR"
FIXED_BATCHES_ENV = "GPUWHY_PY_FIXED_BATCHES"  # gpuwhy experiment fixed-batch: replay the first K batches
TEST_RAISE_ENV = "GPUWHY_PY_HOOK_TEST_RAISE"  # tests: "install" or "step" makes the hook fail there
MEMORY_EVERY_STEPS = 50  # torch.cuda.memory_stats() costs tens of microseconds: not every step

_now_ns = time.time_ns


def _rank():
    for name in ("RANK", "LOCAL_RANK"):
        v = os.environ.get(name, "")
        if v.isdigit():
            return int(v)
    return -1


def _leading_dim(obj, tensor_type, depth=0):
    """Leading dimension of the first tensor in a batch (tuple, list, dict), -1 when none."""
    if isinstance(obj, tensor_type):
        shape = obj.shape
        return int(shape[0]) if len(shape) > 0 else -1
    if depth >= 3:
        return -1
    if isinstance(obj, (tuple, list)):
        for item in obj[:4]:
            n = _leading_dim(item, tensor_type, depth + 1)
            if n >= 0:
                return n
    elif isinstance(obj, dict):
        for item in list(obj.values())[:4]:
            n = _leading_dim(item, tensor_type, depth + 1)
            if n >= 0:
                return n
    return -1


class _Recorder:
    def __init__(self, spool_dir):
        self.spool_dir = spool_dir
        self.disabled = False
        self.raise_at = os.environ.get(TEST_RAISE_ENV, "")
        self.rank = _rank()
        self.pid = None
        self.out = None
        self.torch = None
        self.tensor_type = ()
        self.steps = {"optim": 0, "loader": 0}  # numbered apart: the collector keeps one kind per process
        self.primary_optimizer = None  # id() of the optimizer whose steps are the steps
        self.seen_optimizer = False
        self.period_start_ns = 0  # where the current step began (0: not yet)
        self.wait_ns = 0
        self.batch_size = -1
        self.samples = 0
        self.batches = 0
        self.loader_prev_enter_ns = 0
        self.loader_prev_wait_ns = 0
        self.loader_prev_batch = -1
        self.mem_retries = 0
        self.mem_ooms = 0
        self.graphs = 0
        # Programs without a DataLoader: the leading dimension of the first
        # tensor given to the first module call of a step (a global forward
        # pre-hook that removes itself when it has seen one call).
        self.register_forward_pre = None
        self.forward_handle = None
        self.forward_batch = -1
        self.forward_off = False  # torch.compile seen: no more forward hooks
        self.is_compiling = None
        self.graphs_told = False
        self.hook_handles = []  # the optimizer hooks' RemovableHandles, for detach()
        self.iter_cls = None  # the DataLoader iterator class whose __next__ is wrapped
        self.original_next = None
        fixed = os.environ.get(FIXED_BATCHES_ENV, "")
        self.fixed_batches = int(fixed) if fixed.isdigit() else 0
        self.replay_said = False

    # ---- output ----------------------------------------------------------
    def _write(self, line):
        pid = os.getpid()
        if self.out is None or pid != self.pid:
            # A forked child (a DataLoader worker) writes its own file.
            self.pid = pid
            self.out = open(os.path.join(self.spool_dir, "py-%d.steps" % pid), "a", buffering=1, encoding="utf-8")
        self.out.write(line)

    def fail(self, where, e):
        if self.disabled:
            return
        self.disabled = True
        try:
            handle, self.forward_handle = self.forward_handle, None
            if handle is not None:
                handle.remove()
        except Exception:
            pass
        try:
            sys.stderr.write("gpuwhy: Python step hook disabled (%s): %s: %s\n" % (where, type(e).__name__, e))
        except Exception:
            pass

    def event(self, kind, code, message):
        message = str(message).replace("\t", " ").replace("\n", " ")[:400]
        self._write("E\t%d\t%s\t%d\t%s\n" % (_now_ns(), kind, code, message))

    def emit_step(self, t_start, t_end, wait_ns, batch_size, samples, kind):
        self.steps[kind] += 1
        self._write("S\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n" % (self.steps[kind], t_start, t_end, wait_ns, batch_size, samples,
                                                           self.rank, kind))

    # ---- torch -----------------------------------------------------------
    def attach(self, torch):
        self.torch = torch
        self.tensor_type = torch.Tensor
        # torch.optim deletes its submodule names (`del optimizer` at the end of
        # its __init__), so the module is taken from sys.modules, not as an
        # attribute of torch.optim.
        import importlib

        optimizer_mod = sys.modules.get("torch.optim.optimizer") or importlib.import_module("torch.optim.optimizer")
        register_pre = getattr(optimizer_mod, "register_optimizer_step_pre_hook", None)
        register_post = getattr(optimizer_mod, "register_optimizer_step_post_hook", None)
        if register_pre is not None and register_post is not None:
            self.hook_handles = [register_pre(self.on_optimizer_pre), register_post(self.on_optimizer_post)]
        module_mod = sys.modules.get("torch.nn.modules.module")
        self.register_forward_pre = getattr(module_mod, "register_module_forward_pre_hook", None)
        compiler = getattr(torch, "compiler", None)
        self.is_compiling = getattr(compiler, "is_compiling", None)
        self.wrap_compile(torch)
        self.arm_forward()
        self.wrap_graph_capture()
        iter_cls = torch.utils.data.dataloader._BaseDataLoaderIter
        original_next = iter_cls.__next__
        self.iter_cls, self.original_next = iter_cls, original_next
        if self.fixed_batches > 0:
            original_next = self.replaying(original_next)
        recorder = self

        def __next__(self):
            if recorder.disabled:
                return original_next(self)
            t0 = _now_ns()
            try:
                recorder.on_loader_enter(t0)
            except Exception as e:
                recorder.fail("DataLoader", e)
            batch = original_next(self)  # StopIteration and errors pass through untouched
            try:
                recorder.on_loader_batch(t0, _now_ns(), batch)
            except Exception as e:
                recorder.fail("DataLoader", e)
            return batch

        __next__.__wrapped__ = original_next
        iter_cls.__next__ = __next__

    # ---- batch size without a DataLoader -----------------------------------
    def arm_forward(self):
        # torch.compile warns about global module hooks (and makes them fire
        # twice), so the hook stays out of programs that compile: the
        # program's output must not change.
        if self.forward_off or "torch._dynamo" in sys.modules:
            return
        if self.register_forward_pre is not None and self.forward_handle is None and not self.disabled:
            self.forward_handle = self.register_forward_pre(self.on_forward)

    def stop_forward(self):
        self.forward_off = True
        handle, self.forward_handle = self.forward_handle, None
        if handle is not None:
            handle.remove()

    def wrap_compile(self, torch):
        original = getattr(torch, "compile", None)
        if original is None or getattr(original, "_gpuwhy_wrapped", False):
            return
        recorder = self

        def compile(*args, **kwargs):
            try:
                recorder.stop_forward()
            except Exception as e:
                recorder.fail("torch.compile", e)
            return original(*args, **kwargs)

        functools.update_wrapper(compile, original)
        compile._gpuwhy_wrapped = True
        torch.compile = compile

    def on_forward(self, module, args):
        """Runs once per step, at its first module call, then removes itself
        (torch copies the hooks before calling them), so the rest of the
        step's module calls take torch's path without hooks."""
        try:
            if self.is_compiling is not None and self.is_compiling():
                return None  # being traced by torch.compile: stay out of its graph
            handle, self.forward_handle = self.forward_handle, None
            if handle is not None:
                handle.remove()
            if self.forward_batch < 0 and not self.disabled:
                self.forward_batch = _leading_dim(args, self.tensor_type)
        except Exception as e:
            self.fail("forward", e)
        return None

    # ---- CUDA graphs ------------------------------------------------------
    def wrap_graph_capture(self):
        """Tells the gpuwhy tracer (when it is in the process) that the
        program captures CUDA graphs: it must then keep CUPTI in the process
        (taking CUPTI out and back in while graphs exist crashes replays)."""
        graphs_mod = sys.modules.get("torch.cuda.graphs")
        graph_cls = getattr(graphs_mod, "CUDAGraph", None)
        original = getattr(graph_cls, "capture_begin", None)
        if original is None or getattr(original, "_gpuwhy_wrapped", False):
            return  # no graphs API, or wrapped by an earlier attach()
        recorder = self

        def capture_begin(graph, *args, **kwargs):
            if not recorder.graphs_told:
                try:
                    recorder.tell_tracer_graphs()
                except Exception as e:
                    recorder.fail("CUDA graph", e)
            return original(graph, *args, **kwargs)

        capture_begin.__wrapped__ = original
        capture_begin._gpuwhy_wrapped = True
        graph_cls.capture_begin = capture_begin

    def tell_tracer_graphs(self):
        self.graphs_told = True
        import ctypes

        tell = getattr(ctypes.CDLL(None), "gpuwhy_tracer_cuda_graphs_in_use", None)
        if tell is not None:
            tell()
        self.event("cuda_graph", 1, "CUDA graph capture began%s" % ("" if tell is not None else " (no tracer)"))

    def detach(self):
        """Undoes attach(): the optimizer hooks removed, __next__ restored. For
        measuring the hook's cost in one process (bench/tracer/hook_ab.py);
        attach() again re-installs it. The step in progress is dropped."""
        for handle in self.hook_handles:
            handle.remove()
        self.hook_handles = []
        handle, self.forward_handle = self.forward_handle, None
        if handle is not None:
            handle.remove()
        if self.iter_cls is not None:
            self.iter_cls.__next__ = self.original_next
            self.iter_cls = self.original_next = None
        self.period_start_ns = self.wait_ns = self.samples = self.batches = 0
        self.batch_size = -1
        self.loader_prev_enter_ns = 0

    def replaying(self, original_next):
        """gpuwhy experiment fixed-batch: each iterator hands out its first K
        batches as the loader made them, then those same batches again, in
        turn, for as many batches as the epoch has; the input pipeline drops
        out of the step and what remains is the GPU's own speed."""
        k, recorder = self.fixed_batches, self

        def replay_next(it):
            state = it.__dict__.setdefault("_gpuwhy_replay", {"cache": [], "served": 0})
            cache = state["cache"]
            if len(cache) < k:
                batch = original_next(it)
                cache.append(batch)
            else:
                try:
                    total = len(it)
                except TypeError:
                    total = None
                if total is not None and state["served"] >= total:
                    raise StopIteration
                batch = cache[state["served"] % k]
                if state["served"] == k and not recorder.replay_said:
                    recorder.replay_said = True
                    recorder.event("fixed_batch", k, "replaying the first %d DataLoader batches" % k)
            state["served"] += 1
            return batch

        return replay_next

    def on_loader_enter(self, t0):
        if self.period_start_ns == 0:
            self.period_start_ns = t0
        if not self.seen_optimizer and self.loader_prev_enter_ns:
            # No optimizer yet: the previous DataLoader iteration was a step.
            self.emit_step(self.loader_prev_enter_ns, t0, self.loader_prev_wait_ns, self.loader_prev_batch,
                           max(self.loader_prev_batch, 0), "loader")

    def on_loader_batch(self, t0, t1, batch):
        n = _leading_dim(batch, self.tensor_type)
        self.wait_ns += t1 - t0
        if self.batches == 0:
            self.batch_size = n
        self.batches += 1
        if n > 0:
            self.samples += n
        self.loader_prev_enter_ns, self.loader_prev_wait_ns, self.loader_prev_batch = t0, t1 - t0, n

    def on_optimizer_pre(self, optimizer, args, kwargs):
        if self.disabled:
            return
        try:
            if self.raise_at == "step":
                raise RuntimeError("test failure asked by %s" % TEST_RAISE_ENV)
            if self.primary_optimizer is None:
                self.primary_optimizer = id(optimizer)
            if self.period_start_ns == 0 and id(optimizer) == self.primary_optimizer:
                self.period_start_ns = _now_ns()
        except Exception as e:
            self.fail("optimizer", e)

    def on_optimizer_post(self, optimizer, args, kwargs):
        if self.disabled or id(optimizer) != self.primary_optimizer:
            return
        try:
            t_end = _now_ns()
            self.seen_optimizer = True
            start = self.period_start_ns or t_end
            batch_size, samples = self.batch_size, self.samples
            if self.batches == 0 and self.forward_batch > 0:
                # no DataLoader batch in this step: one batch per step assumed
                # (gradient accumulation without a DataLoader undercounts)
                batch_size = samples = self.forward_batch
            # no DataLoader batch in the step: its data wait is not known (-1), not zero
            self.emit_step(start, t_end, self.wait_ns if self.batches else -1, batch_size, samples, "optim")
            self.period_start_ns = t_end
            self.wait_ns = self.samples = self.batches = 0
            self.batch_size = self.forward_batch = -1
            self.arm_forward()
            if self.steps["optim"] % MEMORY_EVERY_STEPS == 0:
                self.check_memory_and_compiles()
        except Exception as e:
            self.fail("optimizer", e)

    def check_memory_and_compiles(self):
        torch = self.torch
        cuda = getattr(torch, "cuda", None)
        if cuda is not None and cuda.is_available() and cuda.is_initialized():
            stats = cuda.memory_stats()
            retries, ooms = stats.get("num_alloc_retries", 0), stats.get("num_ooms", 0)
            if retries > self.mem_retries:
                self.event("cuda_alloc_retry", retries - self.mem_retries, "caching allocator retries: %d" % retries)
            if ooms > self.mem_ooms:
                self.event("cuda_oom", ooms - self.mem_ooms, "caching allocator out-of-memory: %d" % ooms)
            self.mem_retries, self.mem_ooms = retries, ooms
        # torch.compile: dynamo counts the graphs it made; a rise after the first is a recompilation.
        dyn = sys.modules.get("torch._dynamo.utils")
        counters = getattr(dyn, "counters", None)
        if counters is not None:
            graphs = int(counters["stats"]["unique_graphs"])
            if graphs > self.graphs and self.graphs > 0:
                self.event("recompile", graphs - self.graphs, "torch.compile graphs: %d" % graphs)
            self.graphs = graphs

    def finish_loader_steps(self):
        # The last DataLoader iteration of a program without an optimizer.
        if not self.seen_optimizer and self.loader_prev_enter_ns and not self.disabled:
            self.emit_step(self.loader_prev_enter_ns, _now_ns(), self.loader_prev_wait_ns, self.loader_prev_batch,
                           max(self.loader_prev_batch, 0), "loader")
            self.loader_prev_enter_ns = 0


_recorder = None


class _TorchWatcher:
    """A finder that lets `import torch` happen as usual, then attaches."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        import importlib.machinery

        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        original_exec = spec.loader.exec_module

        def exec_module(module):
            original_exec(module)
            _attach(module)

        spec.loader.exec_module = exec_module
        return spec


def _attach(torch):
    if _recorder is None or _recorder.disabled:
        return
    try:
        _recorder.attach(torch)
    except Exception as e:
        _recorder.fail("attach", e)


def _stop_pm_sampling():
    """The tracer's CUPTI PM sampler ends here, from Python's atexit, while
    CUDA, CUPTI and torch are whole: stopped from a C exit handler it met
    libraries already torn down (tracer/pm_sampling.c)."""
    if os.environ.get("GPUWHY_TRACE_PM_SAMPLING") != "1":
        return
    import ctypes

    stop = getattr(ctypes.CDLL(None), "gpuwhy_tracer_pm_stop", None)
    if stop is not None:
        stop()


def _at_exit():
    if _recorder is None:
        return
    try:
        _stop_pm_sampling()
    except Exception as e:
        _recorder.fail("PM sampling stop", e)
    try:
        _recorder.finish_loader_steps()
    except Exception as e:
        _recorder.fail("exit", e)


def install():
    global _recorder
    spool_dir = os.environ.get(SPOOL_ENV)
    if not spool_dir:
        return
    if os.environ.get(TEST_RAISE_ENV) == "install":
        raise RuntimeError("test failure asked by %s" % TEST_RAISE_ENV)
    _recorder = _Recorder(spool_dir)
    import atexit

    atexit.register(_at_exit)
    torch = sys.modules.get("torch")
    if torch is not None:
        _attach(torch)
    else:
        sys.meta_path.insert(0, _TorchWatcher())
