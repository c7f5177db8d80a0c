"""Training steps seen from inside PyTorch, for `gpuwhy record`.

Installed by this folder's sitecustomize.py when GPUWHY_PY_SPOOL_DIR names a
folder. Nothing is imported from torch here: the hook waits until the program
imports torch itself, then registers torch.optim's global step hooks and wraps
the DataLoader iterator's __next__.

Each process appends lines to SPOOL_DIR/py-PID.steps, one write per line
(line-buffered), so a process killed by SIGKILL or ended by os._exit keeps
every line written before. Fields are tab-separated:

  S  step  t_start_ns  t_end_ns  data_wait_ns  batch_size  samples  rank  kind  compile_ns  shape
  E  t_ns  kind  code  message
  M  step  flops  dtype_flops_json  batch_size  counted_ns  rank

An M line is the one counted step (see _StepFlops below): its FLOPs from
torch.utils.flop_counter.FlopCounterMode (forward and backward), the FLOPs
per input dtype ({"bfloat16": 1.2e12, ...}; {} when not split), its batch
size (-1 unknown) and its wall time (counted_ns: the counting's cost shows
against its neighbours' times).
  F  id  file  line  func
  P  t_ns  tid  activity  frame_id

t_* are time.time_ns() (CLOCK_REALTIME, the recording's clock). A step ends
when the optimizer's step() returns and starts where the previous one ended
(the first one: when the loop first asked for a batch, else when step()
began). kind is "optim", or "loader" where no optimizer step is ever seen and
each DataLoader iteration is a step. data_wait_ns is the time the loop
waited for its training batches (an evaluation pass's waits are the pass's
own time), -1 for a step in which no DataLoader batch was seen (the loop gets
its data some other way, so its wait is not known). batch_size is the
leading dimension of the first tensor in the step's first training batch (-1 unknown); samples sums it over the
step's training batches. A training batch is one fetched, or a forward run,
while autograd records (torch.is_grad_enabled() and not inference mode): an
evaluation pass inside the step (torch.no_grad, inference_mode) does not set
them, and counts only where the step had no training batch at all. compile_ns is the part of the step spent in
torch.compile (dynamo's compile start/end callbacks); shape is the shape of
that first tensor ("16x128", "-" unknown), the input shape the step ran on.
F and P lines are the training thread's stack samples
(_gpuwhy_pystack.py, started at the first DataLoader batch, training forward
or optimizer step; GPUWHY_PY_SAMPLE_HZ, 0 = off), written every half second.
Each compilation is an E line of kind "compile" (code: its duration in ns,
t_ns: its start); a recompilation of a frame already compiled is also one of
kind "recompile" (code 1) whose message is dynamo's reason. GPUWHY_PY_FIXES
(gpuwhy experiment try) asks for fixes applied to the program, each an E line
of kind "fix_applied" or "fix_refused" (_gpuwhy_fixes.py). Any error turns
the hook off with one line on stderr; the program never sees it.
"""
import functools
import os
import sys
import time

import _gpuwhy_fixes

SPOOL_ENV = "GPUWHY_PY_SPOOL_DIR"
FIXED_BATCHES_ENV = "GPUWHY_PY_FIXED_BATCHES"  # gpuwhy experiment fixed-batch: replay the first K batches
COUNT_FLOPS_ENV = "GPUWHY_PY_COUNT_FLOPS"  # "0": no FLOP count; N: count the step after the N-th (default 10)
COUNT_FLOPS_AFTER_STEPS = 10  # warm-up: cuDNN autotuning, allocator growth and lazy init are over by then
TEST_RAISE_ENV = "GPUWHY_PY_HOOK_TEST_RAISE"  # tests: "install" or "step" makes the hook fail there
MEMORY_EVERY_STEPS = 50  # torch.cuda.memory_stats() costs tens of microseconds: not every step
# A program that compiles without end (a new shape every step) writes one line
# per compilation; each costs a second or more, the line microseconds, yet the
# recording should not grow without bound: past this, only the step's compile_ns.
MAX_COMPILE_EVENTS = 2000
MAX_SHAPE_DIMS = 8

_now_ns = time.time_ns


def _rank():
    for name in ("RANK", "LOCAL_RANK"):
        v = os.environ.get(name, "")
        if v.isdigit():
            return int(v)
    return -1


def _first_shape(obj, tensor_type, depth=0):
    """Shape of the first tensor with at least one dimension in a batch
    (tuple, list, dict), None when none."""
    if isinstance(obj, tensor_type):
        shape = obj.shape
        return shape if len(shape) > 0 else None
    if depth >= 3:
        return None
    if isinstance(obj, (tuple, list)):
        items = obj[:4]
    elif isinstance(obj, dict):
        items = list(obj.values())[:4]
    else:
        return None
    for item in items:
        shape = _first_shape(item, tensor_type, depth + 1)
        if shape is not None:
            return shape
    return None


def _leading_dim(obj, tensor_type):
    """Leading dimension of the first tensor in a batch, -1 when none."""
    shape = _first_shape(obj, tensor_type)
    return int(shape[0]) if shape is not None else -1


def _shape_text(shape):
    """"16x128" for torch.Size([16, 128]); "-" when unknown."""
    if shape is None:
        return "-"
    return "x".join(str(int(d)) for d in tuple(shape)[:MAX_SHAPE_DIMS])


def _compile_id_text(args):
    """dynamo's compile id ("0/3": frame 0, its fourth compilation) and the
    trigger's name from the callbacks' argument (torch 2.6+: CallbackArgs);
    ("", "") from older releases, whose callbacks take no argument."""
    if not args:
        return "", ""
    trigger = getattr(args[0], "callback_trigger", None)
    return str(getattr(args[0], "compile_id", "") or ""), str(getattr(trigger, "name", trigger or ""))


def _is_recompile(compile_id):
    """A compile id "F/N" (or "!A/F/N", compiled autograd; "F/N_k", a retry)
    with N >= 1 is a recompilation of frame F."""
    last = compile_id.rsplit("/", 1)[-1].split("_", 1)[0]
    return "/" in compile_id and last.isdigit() and int(last) >= 1


class _Recorder:
    def __init__(self, spool_dir):
        self.spool_dir = spool_dir
        self.disabled = False
        self.raise_at = os.environ.get(TEST_RAISE_ENV, "")
        self.rank = _rank()
        self.fd = -1  # the spool file, opened at the first line (os.write: one system call a line)
        self.torch = None
        self.tensor_type = ()
        self.steps = {"optim": 0, "loader": 0}  # numbered apart: the collector keeps one kind per process
        self.primary_optimizer = None  # id() of the optimizer whose steps are the steps
        self.seen_optimizer = False
        self.period_start_ns = 0  # where the current step began (0: not yet)
        self.wait_ns = 0
        self.batch_size = -1
        self.batch_shape = "-"
        self.samples = 0
        self.batches = 0  # every DataLoader batch of the step (its data wait is known)
        self.train_batches = 0  # those fetched with autograd recording
        # the step's batches fetched without autograd (an evaluation pass):
        # its batch size, shape and samples only where it had no training batch
        self.eval_batch_size = -1
        self.eval_batch_shape = "-"
        self.eval_samples = 0
        self.is_grad_enabled = None
        self.is_inference_mode_enabled = None
        self.loader_prev_enter_ns = 0
        self.loader_prev_wait_ns = 0
        self.loader_prev_batch = -1
        self.loader_prev_shape = None
        self.mem_retries = 0
        self.mem_ooms = 0
        self.graphs = 0
        # Programs without a DataLoader: the leading dimension of the first
        # tensor given to the first module call of a step (a global forward
        # pre-hook that removes itself when it has seen one call).
        self.register_forward_pre = None
        self.forward_handle = None
        self.forward_batch = -1
        self.forward_shape = "-"
        # a forward without autograd (evaluation) seen before any with it:
        # the step's batch only when it had no training forward
        self.eval_forward_batch = -1
        self.eval_forward_shape = "-"
        self.rearm_handle = None  # the one-shot hook that re-arms after an evaluation forward
        self.forward_off = False  # torch.compile seen: no more forward hooks
        self.is_compiling = None
        self.graphs_told = False
        # torch.compile: dynamo's compile start/end callbacks
        self.compile_handler = None  # torch._dynamo.callback.callback_handler, once registered
        self.compile_depth = 0
        self.compile_t0 = 0
        self.compile_ns = 0  # compile time inside the current step
        self.compile_pending = []  # (t0, duration, compile id, trigger): written at the step's end
        self.compile_events = 0
        self.optimized_call = None  # (class, original __call__) of the wrapped OptimizedModule
        self.hook_handles = []  # the optimizer hooks' RemovableHandles, for detach()
        self.iter_cls = None  # the DataLoader iterator class whose __next__ is wrapped
        self.original_next = None
        # The stack sampler (_gpuwhy_pystack.py) and what it reads of this
        # thread: 0 not started, 1 running, 2 never here (off, failed, a
        # forked child such as a DataLoader worker)
        self.sampler = None
        self.sampler_state = 0
        self.in_eval = False  # the last batch or forward ran without autograd
        self.loader_workers = -1  # the current DataLoader iterator's workers (-1 unknown)
        self.loader_recent = False  # a DataLoader batch in this step or the last one
        fixed = os.environ.get(FIXED_BATCHES_ENV, "")
        self.fixed_batches = int(fixed) if fixed.isdigit() else 0
        self.replay_said = False
        self.flops = _StepFlops(self)
        # GPUWHY_PY_FIXES (gpuwhy experiment try): what each fix did goes out as an event line
        self.fixes = _gpuwhy_fixes.Fixes(lambda kind, message: self.event(kind, 0, message))

    # ---- output ----------------------------------------------------------
    def _write(self, line):
        # One os.write per line, O_APPEND: a process killed right after keeps
        # it, and no buffer layer or getpid() call is paid per step (a forked
        # child is told by os.register_at_fork, see install()).
        if self.fd < 0:
            path = os.path.join(self.spool_dir, "py-%d.steps" % os.getpid())
            self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        os.write(self.fd, line.encode("utf-8", "replace"))

    def open_spool(self):
        if self.fd < 0:
            self._write("")

    def write_raw(self, text):
        """Lines of the stack sampler, many at once (its own thread)."""
        os.write(self.fd, text.encode("utf-8", "replace"))

    def forked(self):
        """In a forked child (a DataLoader worker): its lines go to its own file,
        and no stack sampler: its thread did not follow, and a worker is not
        the training thread."""
        self.sampler, self.sampler_state = None, 2
        self.fixes.forked()  # the parent reports the fixes
        fd, self.fd = self.fd, -1
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass

    # ---- the stack sampler -------------------------------------------------
    def start_sampler(self):
        """Called by the training thread's first DataLoader batch, training
        forward or optimizer step: samples that thread from now on."""
        self.sampler_state = 2
        worker = sys.modules.get("torch.utils.data._utils.worker")
        if getattr(worker, "_worker_info", None) is not None:
            return  # a DataLoader worker (spawned) running a module: not the training thread
        try:
            import _gpuwhy_pystack

            hz = _gpuwhy_pystack.sample_hz()
            if hz <= 0:
                return
            self.sampler = _gpuwhy_pystack.Sampler(self, self.torch, hz)
            self.sampler.start()
            self.sampler_state = 1
        except Exception as e:
            self.sampler = None
            self.sampler_failed(e)

    def sampler_failed(self, e):
        self.sampler_state = 2
        try:
            sys.stderr.write("gpuwhy: Python stack sampler disabled: %s: %s\n" % (type(e).__name__, e))
        except Exception:
            pass

    def stop_sampler(self):
        sampler, self.sampler = self.sampler, None
        if sampler is not None:
            sampler.stop()

    def fail(self, where, e):
        if self.disabled:
            return
        self.disabled = True
        try:
            handle, self.forward_handle = self.forward_handle, None
            if handle is not None:
                handle.remove()
            self.drop_rearm()
        except Exception:
            pass
        flops = getattr(self, "flops", None)
        if flops is not None:
            flops.leave()
        try:
            self.stop_sampler()
        except Exception:
            pass
        try:
            sys.stderr.write("gpuwhy: Python step hook disabled (%s): %s: %s\n" % (where, type(e).__name__, e))
        except Exception:
            pass

    def event(self, kind, code, message):
        self._write_event(_now_ns(), kind, code, message)

    def _write_event(self, t_ns, kind, code, message):
        message = str(message).replace("\t", " ").replace("\n", " ").replace("\r", " ")[:400]
        self._write("E\t%d\t%s\t%d\t%s\n" % (t_ns, kind, code, message))

    def emit_step(self, t_start, t_end, wait_ns, batch_size, samples, kind, compile_ns=0, shape="-"):
        self.steps[kind] += 1
        self._write("S\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%s\n" % (self.steps[kind], t_start, t_end, wait_ns, batch_size,
                                                                   samples, self.rank, kind, compile_ns, shape))

    # ---- torch -----------------------------------------------------------
    def attach(self, torch):
        self.fixes.attach(torch)  # first: a step hook that fails below leaves the asked fixes in place
        self.torch = torch
        self.tensor_type = torch.Tensor
        self.is_grad_enabled = getattr(torch, "is_grad_enabled", None)
        self.is_inference_mode_enabled = getattr(torch, "is_inference_mode_enabled", None)
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
        self.watch_dynamo()
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
                recorder.on_loader_enter(t0, self)
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
        # twice), so the hook stays out of programs that compile (forward_off:
        # torch.compile was called, or a compiled module): the program's
        # output must not change. Not "torch._dynamo is imported": torch.optim
        # imports it in every step() (torch 2.x), compiling or not.
        if self.forward_off:
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
            result = original(*args, **kwargs)
            if not recorder.disabled:
                try:
                    recorder.watch_dynamo()  # torch.compile imported torch._dynamo
                except Exception as e:
                    recorder.fail("torch.compile", e)
            return result

        functools.update_wrapper(compile, original)
        compile._gpuwhy_wrapped = True
        torch.compile = compile

    def training(self):
        """Whether autograd records here: a training forward or batch, not an
        evaluation pass (torch.no_grad, inference_mode). Inference mode turns
        grad mode off as well (c10/core/InferenceMode.h), so the second call
        is made only for an enable_grad inside inference_mode. A torch
        without these functions: everything counts as training."""
        grad = self.is_grad_enabled
        if grad is None:
            return True
        if not grad():
            return False
        inference = self.is_inference_mode_enabled
        return inference is None or not inference()

    def on_forward(self, module, args):
        """Runs at the step's first module call with autograd recording, then
        removes itself (torch copies the hooks before calling them), so the
        rest of the step's module calls take torch's path without hooks. A
        call without autograd (an evaluation pass) is kept aside as the
        step's fallback; the hook stays out of that call's submodules and
        comes back when the call returns (a one-shot hook on its module)."""
        try:
            if self.is_compiling is not None and self.is_compiling():
                return None  # being traced by torch.compile: stay out of its graph
            handle, self.forward_handle = self.forward_handle, None
            if handle is not None:
                handle.remove()
            if self.disabled:
                return None
            training = self.training()
            self.in_eval = not training
            if training:
                if self.sampler_state == 0:
                    self.start_sampler()
                if self.forward_batch < 0:
                    self.forward_batch, self.forward_shape = self.batch_of(args)
            else:
                if self.eval_forward_batch < 0:
                    self.eval_forward_batch, self.eval_forward_shape = self.batch_of(args)
                self.rearm_after(module)
        except Exception as e:
            self.fail("forward", e)
        return None

    def batch_of(self, args):
        """(leading dimension, shape text) of the first tensor in a module
        call's arguments; (-1, "-") when there is none."""
        shape = _first_shape(args, self.tensor_type)
        return (int(shape[0]), _shape_text(shape)) if shape is not None else (-1, "-")

    def rearm_after(self, module):
        register = getattr(module, "register_forward_hook", None)
        if register is None or self.rearm_handle is not None:
            return
        try:
            self.rearm_handle = register(self.on_eval_forward_done)
        except Exception:
            self.rearm_handle = None  # a module that takes no hooks: the step's end arms it again

    def on_eval_forward_done(self, module, args, output):
        try:
            handle, self.rearm_handle = self.rearm_handle, None
            if handle is not None:
                handle.remove()
            self.arm_forward()
        except Exception as e:
            self.fail("forward", e)
        return None

    def drop_rearm(self):
        handle, self.rearm_handle = self.rearm_handle, None
        if handle is not None:
            handle.remove()

    # ---- torch.compile ------------------------------------------------------
    def watch_dynamo(self):
        """Registers dynamo's compile start/end callbacks and wraps
        OptimizedModule.__call__ (the input shape of compiled modules, where
        the global forward hook stays off). Nothing is imported: only what the
        program loaded already."""
        self.wrap_optimized_module()
        if self.compile_handler is not None:
            return
        handler = getattr(sys.modules.get("torch._dynamo.callback"), "callback_handler", None)
        if handler is None or not hasattr(handler, "register_start_callback"):
            return
        handler.register_start_callback(self.on_compile_start)
        handler.register_end_callback(self.on_compile_end)
        self.compile_handler = handler

    def wrap_optimized_module(self):
        cls = getattr(sys.modules.get("torch._dynamo.eval_frame"), "OptimizedModule", None)
        original = getattr(cls, "__call__", None)
        if original is None or getattr(original, "_gpuwhy_wrapped", False):
            return
        recorder, is_compiling = self, self.is_compiling or (lambda: False)

        def __call__(module, *args, **kwargs):
            # is_compiling first: inside a region dynamo traces, nothing of the
            # recorder is read, so dynamo guards on none of it.
            if not is_compiling():
                recorder.on_compiled_call(args)
            return original(module, *args, **kwargs)  # after on_compiled_call took any global hook away

        __call__.__wrapped__ = original
        __call__._gpuwhy_wrapped = True
        cls.__call__ = __call__
        self.optimized_call = (cls, original)

    def on_compiled_call(self, args):
        if self.disabled:
            return
        try:
            if not self.forward_off:
                self.stop_forward()  # a compiled module (torch._dynamo.optimize, not torch.compile): no global hook
            training = self.training()
            self.in_eval = not training
            if self.forward_batch < 0:
                if training:
                    self.forward_batch, self.forward_shape = self.batch_of(args)
                elif self.eval_forward_batch < 0:
                    self.eval_forward_batch, self.eval_forward_shape = self.batch_of(args)
        except Exception as e:
            self.fail("compiled module", e)

    def on_compile_start(self, *args):
        # dynamo runs these around its outermost compilation; older releases
        # around each, hence the depth
        if self.disabled:
            return
        try:
            self.compile_depth += 1
            if self.compile_depth == 1:
                self.compile_t0 = _now_ns()
        except Exception as e:
            self.fail("compile start", e)

    def on_compile_end(self, *args):
        if self.disabled or self.compile_depth <= 0:
            return
        try:
            self.compile_depth -= 1
            if self.compile_depth > 0:
                return
            t1 = _now_ns()
            t0 = self.compile_t0
            if self.period_start_ns:  # the part inside the current step
                self.compile_ns += max(0, t1 - max(t0, self.period_start_ns))
            compile_id, trigger = _compile_id_text(args)
            self.compile_pending.append((t0, t1 - t0, compile_id, trigger))
        except Exception as e:
            self.fail("compile end", e)

    def write_compiles(self):
        """The compilations since the last step: one "compile" line each, and
        a "recompile" line with dynamo's reason (its compilation metrics,
        recorded just after the end callback) for each recompilation."""
        pending, self.compile_pending = self.compile_pending, []
        reasons = {}
        if any(_is_recompile(c[2]) and c[3] in ("DYNAMO", "") for c in pending):
            utils = sys.modules.get("torch._dynamo.utils")
            get_metrics = getattr(utils, "get_compilation_metrics", None)
            for m in get_metrics() if get_metrics is not None else ():
                reason = getattr(m, "recompile_reason", None)
                if reason:
                    reasons[str(getattr(m, "compile_id", ""))] = reason
        for t0, duration, compile_id, trigger in pending:
            if self.compile_events >= MAX_COMPILE_EVENTS:
                return
            self.compile_events += 1
            self._write_event(t0, "compile", duration, "%s %s" % (compile_id or "?", trigger or "?"))
            # a recompiled frame's backward graph (compiled at its first
            # backward, trigger LAZY_BACKWARD) has the same id: one
            # recompilation, two compile lines
            if _is_recompile(compile_id) and trigger in ("DYNAMO", ""):
                self._write_event(t0, "recompile", 1, "%s: %s" % (compile_id, reasons.get(compile_id, "reason unknown")))

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
        attach() again re-installs it. The step in progress is dropped. The
        fixes (GPUWHY_PY_FIXES) are undone too: flags and functions as they were."""
        for handle in self.hook_handles:
            handle.remove()
        self.hook_handles = []
        handle, self.forward_handle = self.forward_handle, None
        if handle is not None:
            handle.remove()
        if self.iter_cls is not None:
            self.iter_cls.__next__ = self.original_next
            self.iter_cls = self.original_next = None
        handler, self.compile_handler = self.compile_handler, None
        if handler is not None:
            handler.remove_start_callback(self.on_compile_start)
            handler.remove_end_callback(self.on_compile_end)
        if self.optimized_call is not None:
            cls, original = self.optimized_call
            cls.__call__ = original
            self.optimized_call = None
        self.drop_rearm()
        self.flops.leave()
        self.fixes.detach()
        self.period_start_ns = self.wait_ns = self.samples = self.batches = self.train_batches = self.eval_samples = 0
        self.compile_ns = self.compile_depth = 0
        self.compile_pending = []
        self.batch_size = self.forward_batch = self.eval_batch_size = self.eval_forward_batch = -1
        self.batch_shape = self.forward_shape = self.eval_batch_shape = self.eval_forward_shape = "-"
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

    def on_loader_enter(self, t0, it=None):
        if self.sampler_state == 0:
            self.start_sampler()
        self.loader_workers = getattr(it, "_num_workers", -1)
        self.loader_recent = True
        self.in_eval = not self.training()
        if self.period_start_ns == 0:
            self.period_start_ns = t0
        if not self.seen_optimizer and self.loader_prev_enter_ns:
            # No optimizer yet: the previous DataLoader iteration was a step.
            self.emit_step(self.loader_prev_enter_ns, t0, self.loader_prev_wait_ns, self.loader_prev_batch,
                           max(self.loader_prev_batch, 0), "loader", 0, _shape_text(self.loader_prev_shape))

    def on_loader_batch(self, t0, t1, batch):
        shape = _first_shape(batch, self.tensor_type)
        n = int(shape[0]) if shape is not None else -1
        self.batches += 1
        if self.training():
            # The step's data wait is the training loader's: a wait for an evaluation pass's batch is that pass's
            # time (its slow loader is fixed in the evaluation, not with more training workers)
            self.wait_ns += t1 - t0
            if self.train_batches == 0:
                self.batch_size = n
                self.batch_shape = _shape_text(shape)
            self.train_batches += 1
            if n > 0:
                self.samples += n
        else:
            if self.batches == self.train_batches + 1:  # the step's first batch without autograd
                self.eval_batch_size = n
                self.eval_batch_shape = _shape_text(shape)
            if n > 0:
                self.eval_samples += n
        self.loader_prev_enter_ns, self.loader_prev_wait_ns, self.loader_prev_batch = t0, t1 - t0, n
        self.loader_prev_shape = shape  # formatted only if this iteration becomes a step

    def on_optimizer_pre(self, optimizer, args, kwargs):
        if self.disabled:
            return
        try:
            if self.raise_at == "step":
                raise RuntimeError("test failure asked by %s" % TEST_RAISE_ENV)
            if self.sampler_state == 0:
                self.start_sampler()
            self.in_eval = False
            if self.primary_optimizer is None:
                self.primary_optimizer = id(optimizer)
            if self.period_start_ns == 0 and id(optimizer) == self.primary_optimizer:
                self.period_start_ns = _now_ns()
            if id(optimizer) == self.primary_optimizer:
                self.flops.on_step_begin()
        except Exception as e:
            self.fail("optimizer", e)

    def on_optimizer_post(self, optimizer, args, kwargs):
        if self.disabled or id(optimizer) != self.primary_optimizer:
            return
        try:
            t_end = _now_ns()
            self.seen_optimizer = True
            start = self.period_start_ns or t_end
            batch_size, samples, shape = self.batch_size, self.samples, self.batch_shape
            loader_fed = self.batches > 0  # its data wait is known
            self.loader_recent = loader_fed
            loader_trained = self.train_batches > 0
            if not loader_trained:
                # No DataLoader batch with autograd: the training forward's
                # batch (one batch per step assumed: gradient accumulation
                # without a DataLoader undercounts), else the evaluation
                # pass's batches, else its forward.
                if self.forward_batch > 0:
                    batch_size = samples = self.forward_batch
                    shape = self.forward_shape
                elif loader_fed:
                    batch_size, samples, shape = self.eval_batch_size, self.eval_samples, self.eval_batch_shape
                elif self.eval_forward_batch > 0:
                    batch_size = samples = self.eval_forward_batch
                    shape = self.eval_forward_shape
            # no DataLoader batch in the step: its data wait is not known (-1), not zero
            self.emit_step(start, t_end, self.wait_ns if loader_fed else -1, batch_size, samples, "optim",
                           min(self.compile_ns, t_end - start), shape)
            self.flops.on_step_end(start, t_end, batch_size)
            self.period_start_ns = t_end
            self.wait_ns = self.samples = self.batches = self.train_batches = self.eval_samples = self.compile_ns = 0
            self.batch_size = self.forward_batch = self.eval_batch_size = self.eval_forward_batch = -1
            self.batch_shape = self.forward_shape = self.eval_batch_shape = self.eval_forward_shape = "-"
            if self.rearm_handle is not None:
                self.drop_rearm()  # an evaluation forward that raised: its one-shot hook never ran
            if self.compile_pending:
                self.write_compiles()
            elif self.compile_handler is None and "torch._dynamo.callback" in sys.modules:
                self.watch_dynamo()  # dynamo came in by another way than torch.compile
            if not loader_trained:
                # the forward hook only serves steps without training batches
                # from a DataLoader: a loop fed by one is not charged its
                # arming every step
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
        # Without dynamo's callbacks (older releases): its graph counter; a
        # rise after the first reading is a recompilation.
        dyn = sys.modules.get("torch._dynamo.utils")
        counters = getattr(dyn, "counters", None)
        if counters is not None and self.compile_handler is None:
            graphs = int(counters["stats"]["unique_graphs"])
            if graphs > self.graphs and self.graphs > 0:
                self.event("recompile", graphs - self.graphs, "torch.compile graphs: %d" % graphs)
            self.graphs = graphs

    def finish_loader_steps(self):
        # The last DataLoader iteration of a program without an optimizer.
        if not self.seen_optimizer and self.loader_prev_enter_ns and not self.disabled:
            self.emit_step(self.loader_prev_enter_ns, _now_ns(), self.loader_prev_wait_ns, self.loader_prev_batch,
                           max(self.loader_prev_batch, 0), "loader", 0, _shape_text(self.loader_prev_shape))
            self.loader_prev_enter_ns = 0
        if self.compile_pending and not self.disabled:
            self.write_compiles()


# ---- FLOPs of one step ---------------------------------------------------
def _dtype_tally_mode(torch, flop_counter):
    """A dispatch mode that splits the FLOPs of the ops FlopCounterMode
    counts by the dtype of their first tensor input, with the same formulas
    (flop_counter's flop_registry); None where this torch has no such
    registry. It runs beside FlopCounterMode (entered above it), which stays
    the authority for the total."""
    registry = getattr(flop_counter, "flop_registry", None)
    dispatch = sys.modules.get("torch.utils._python_dispatch")
    base = getattr(dispatch, "TorchDispatchMode", None)
    if not registry or base is None:
        return None
    tensor_type = torch.Tensor
    backends = getattr(torch, "backends", None)
    precision = getattr(torch, "get_float32_matmul_precision", None)
    # float32 matrices run on tensor cores as TF32 where torch allows it:
    # matmuls per torch.set_float32_matmul_precision, convolutions per
    # torch.backends.cudnn.allow_tf32 (on by default)
    tf32_matmul = precision is not None and precision() != "highest"
    tf32_conv = bool(getattr(getattr(backends, "cudnn", None), "allow_tf32", False))

    class _DtypeTally(base):
        def __init__(self):
            super().__init__()
            self.by_dtype = {}

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            formula = registry.get(getattr(func, "_overloadpacket", None))
            if formula is not None:
                try:
                    n = formula(*args, **kwargs, out_val=out)
                    first = next((a for a in args if isinstance(a, tensor_type)), None)
                    name = str(first.dtype).replace("torch.", "") if first is not None else "unknown"
                    if name == "float32" and (tf32_conv if "conv" in str(func) else tf32_matmul):
                        name = "tf32"
                    self.by_dtype[name] = self.by_dtype.get(name, 0) + int(n)
                except Exception:
                    # the formula failed on these arguments: the op's FLOPs stay in FlopCounterMode's
                    # total only, and the split says that part of it is of unknown dtype
                    self.by_dtype.setdefault("unknown", 0)
            return out

    return _DtypeTally()


class _StepFlops:
    """Counts the FLOPs of exactly one training step, once: FlopCounterMode
    is entered at the post hook of the primary optimizer's N-th step and left
    at the next one, so the window holds one forward, one backward and one
    optimizer step. TorchDispatchMode state travels with at::ThreadLocalState
    to the autograd engine's device threads (aten/src/ATen/ThreadLocalState.h:
    "preserved across thread boundaries (e.g. at::launch/JIT fork,
    autograd)"), so the backward is counted. A step that raises leaves the
    window open: the next step's end, detach(), the hook's failure or the
    program's exit leaves the mode, and a window that saw more than one
    optimizer step (one raised before its end) is not reported. Programs that
    torch.compile are not counted: a dispatch mode changes what dynamo
    compiles (one M-less E line "flop_count" says so)."""

    def __init__(self, recorder):
        self.rec = recorder
        text = os.environ.get(COUNT_FLOPS_ENV, "")
        self.after_steps = int(text) if text.isdigit() else COUNT_FLOPS_AFTER_STEPS
        self.done = self.after_steps <= 0  # GPUWHY_PY_COUNT_FLOPS=0: never
        self.modes = []  # the entered modes, innermost last
        self.counter = None
        self.tally = None
        self.begins = 0  # optimizer steps begun inside the window
        self.step_after = 0

    def on_step_begin(self):
        if self.modes:
            self.begins += 1

    def on_step_end(self, t_start, t_end, batch_size):
        if self.modes:
            self.finish(t_start, t_end, batch_size)
        elif not self.done and self.rec.steps["optim"] >= self.after_steps:
            self.start()

    def start(self):
        self.done = True  # once, whatever happens
        rec = self.rec
        # torch.compile called, or dynamo compiled something (its callbacks are
        # registered in every program: torch.optim imports dynamo)
        if rec.forward_off or rec.compile_events > 0 or rec.compile_pending:
            rec.event("flop_count", 0, "torch.compile in use: FLOPs not counted")
            return
        import importlib

        flop_counter = importlib.import_module("torch.utils.flop_counter")
        counter = flop_counter.FlopCounterMode(display=False)
        counter.__enter__()
        self.modes, self.counter, self.begins = [counter], counter, 0
        self.step_after = rec.steps["optim"]
        try:
            tally = _dtype_tally_mode(rec.torch, flop_counter)
            if tally is not None:
                tally.__enter__()
                self.modes.append(tally)
                self.tally = tally
        except Exception:
            self.tally = None

    def leave(self):
        """Leaves the modes (innermost first); safe to call at any time."""
        modes, self.modes = self.modes, []
        for mode in reversed(modes):
            try:
                mode.__exit__(None, None, None)
            except Exception:
                pass

    def finish(self, t_start, t_end, batch_size):
        counter, tally, begins = self.counter, self.tally, self.begins
        self.leave()
        self.counter = self.tally = None
        if begins != 1:
            self.rec.event("flop_count", 0, "a step raised inside the counted window: FLOPs not counted")
            return
        flops = int(counter.get_total_flops())
        mix = tally.by_dtype if tally is not None else {}
        mix_text = "{" + ",".join('"%s":%d' % (k.replace('"', ""), v) for k, v in sorted(mix.items()) if v > 0) + "}"
        self.rec._write("M\t%d\t%d\t%s\t%d\t%d\t%d\n" % (self.rec.steps["optim"], flops, mix_text, batch_size,
                                                          t_end - t_start, self.rec.rank))


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


def _after_fork():
    if _recorder is not None:
        try:
            _recorder.forked()
        except Exception as e:
            _recorder.fail("fork", e)


def _at_exit():
    if _recorder is None:
        return
    try:
        _stop_pm_sampling()
    except Exception as e:
        _recorder.fail("PM sampling stop", e)
    try:
        _recorder.flops.leave()  # a counted step that raised out of the program
    except Exception:
        pass
    try:
        _recorder.finish_loader_steps()
    except Exception as e:
        _recorder.fail("exit", e)
    try:
        _recorder.stop_sampler()
    except Exception as e:
        _recorder.sampler_failed(e)
    try:
        _recorder.fixes.at_exit()  # the fixes never reached said so; every patch undone
    except Exception:
        pass


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
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork)
    torch = sys.modules.get("torch")
    if torch is not None:
        _attach(torch)
    else:
        sys.meta_path.insert(0, _TorchWatcher())
