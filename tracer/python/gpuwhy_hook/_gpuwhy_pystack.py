"""Where the training thread's Python code is, sampled, for `gpuwhy record`.

Started by _gpuwhy_steps.py in the thread that first asks a DataLoader for a
batch, runs a module forward with autograd recording or steps an optimizer
(the training thread), never in a DataLoader worker. A daemon thread reads
that thread's stack with sys._current_frames() GPUWHY_PY_SAMPLE_HZ times a
second (default 25, 0 = off) and appends to the hook's spool file, in one
write every FLUSH_S:

  F  id  file  line  func            the innermost frame of the user's own code, the first time it is seen
  P  t_ns  tid  activity  frame_id   one sample: time.time_ns(), the thread's native id, the activity (enum
                                     gw_py_activity of lib/core/activity.h), the F id (-1: no user frame)

and at exit one line "E t_ns py_sampler total_ns samples=N": the sampler's
own CPU time (time.thread_time_ns around each sample), the bound of its cost.

Classification walks the stack from the innermost frame outwards. A frame of
a known library decides (torch's DataLoader, serialization, optim, nn,
autograd, distributed, compile, logging and metrics writers); a wait of the
standard library (threading, queue, multiprocessing, selectors, socket)
counts as the program's own idle time only when no library frame outside it
claims it. C methods leave no frame, so when the innermost frame is the
user's own code its current source line decides: fsync( fdatasync(
torch.save( save_checkpoint( -> checkpoint, .item() .cpu() .tolist()
.numpy() synchronize( nonzero( -> sync, .to( .cuda( copy_( -> h2d, print( ->
logging, sleep( .wait( .join( -> idle. Then what the training thread told
the hook: inside a compilation (dynamo's callbacks) -> compile; user code,
a wait, a copy or a sync in a user function named for a checkpoint
(checkpoint, ckpt, save_model, save_state ...) -> checkpoint; in an
evaluation pass (the last batch or forward ran without autograd) or in a
user function named like eval/validate -> eval; user code outside any
library in a loop that got no DataLoader batch in its last step -> data made
inline. Each stack's classification is cached by its (code, line) chain, so
a sample costs microseconds.
"""
import os
import re
import sys
import sysconfig
import threading
import time

HZ_ENV = "GPUWHY_PY_SAMPLE_HZ"
DEFAULT_HZ = 25  # record sets the rate; its PY_SAMPLE_HZ_DEFAULT (lib/record/recorder.c) says why 25
MAX_HZ = 1000  # above this the sampler's own time is no longer small against a step
FLUSH_S = 0.5  # one write() per half second, not one per sample
MAX_CHAIN_CACHE = 20000  # distinct stacks kept classified; a program past it starts the cache again
MAX_FRAMES = 200000  # distinct user frames named in F lines; past it samples carry -1

# enum gw_py_activity (lib/core/activity.h)
OTHER, DATA_WAIT, DATA_INLINE, H2D, SYNC, CHECKPOINT, EVAL, LOGGING, COMPILE, OPTIMIZER, FORWARD_BACKWARD, \
    COLLECTIVE, IDLE = range(13)
# resolved at sample time from what the training thread told the hook
_LOADER = 100  # inside the DataLoader's iterator: data_wait with workers, data_inline without
_WAIT = 101  # a wait of the standard library with no library frame outside it: idle
_USER = 102  # user code outside every library: data_inline where the loop has no DataLoader, else other

_LOGGING_PACKAGES = {"tensorboard", "tensorboardX", "wandb", "mlflow", "tqdm", "neptune", "comet_ml", "aim", "clearml",
                     "loguru", "rich", "logging", "swanlab", "dvclive"}
_WAIT_MODULES = {"threading", "queue", "multiprocessing", "selectors", "socket", "subprocess", "concurrent",
                 "asyncio", "ssl"}
# a write made durable (fsync waits for the disk) or a save call: what a checkpoint blocks in; checked before the
# others, since a line that saves state is checkpointing whatever else it calls (x.cpu() inside torch.save)
_CHECKPOINT_LINE = re.compile(r"(^|[^\w])f(data)?sync\(|(^|[^\w])torch\.save\(|save_checkpoint\(")
_SYNC_LINE = re.compile(r"\.(item|cpu|tolist|numpy|nonzero)\(|synchronize\(|\.to\(\s*['\"]cpu['\"]")
_H2D_LINE = re.compile(r"\.(to|cuda|copy_)\(")
_PRINT_LINE = re.compile(r"(^|[^.\w])print\(")
_IDLE_LINE = re.compile(r"sleep\(|\.wait\(|\.join\(|\.acquire\(")
_EVAL_NAME = re.compile(r"(^|_)(eval|evaluate|evaluation|validate|validation|val)(_|$)", re.IGNORECASE)
# a function named for a checkpoint is writing one (the C calls it makes leave its own line innermost, which in a
# loop without a DataLoader would read as data made inline); lib/core/activity.c gw_py_func_names_checkpoint is the
# same rule for recordings made before it
_CHECKPOINT_NAME = re.compile(r"(^|_)(checkpoint|checkpoints|checkpointing|ckpt)(_|$)|^save_(model|state|weights)(_|$)",
                              re.IGNORECASE)
_NAMED_EVAL, _NAMED_CHECKPOINT = 1, 2  # what the user frames' names say, a bit each
_DATALOADER_WAIT = {"_get_data", "_try_get_data", "_process_data"}  # _MultiProcessingDataLoaderIter only


def sample_hz():
    """Samples per second asked by the environment: 0 off."""
    v = os.environ.get(HZ_ENV, "")
    try:
        hz = float(v) if v else DEFAULT_HZ
    except ValueError:
        return DEFAULT_HZ
    return min(max(hz, 0.0), MAX_HZ)


def _dir_prefix(path):
    return os.path.join(os.path.realpath(path), "") if path else None


class Classifier:
    """Stack -> (activity, user frame); pure, given the library roots (tests build one directly)."""

    def __init__(self, torch_dir, hook_dir=None, stdlib_dirs=None):
        self.torch_dir = _dir_prefix(torch_dir)
        self.hook_dir = _dir_prefix(hook_dir or os.path.dirname(__file__))
        paths = sysconfig.get_paths()
        dirs = stdlib_dirs if stdlib_dirs is not None else {paths.get("stdlib"), paths.get("platstdlib")}
        self.stdlib_dirs = tuple(sorted({_dir_prefix(d) for d in dirs if d}, key=len, reverse=True))
        self.code_kind = {}  # code object -> (kind, detail) of its file
        self.chains = {}
        self.lines = {}  # (code, line) -> source text

    # ---- one code object ---------------------------------------------------
    def kind_of(self, code):
        """("torch", path below torch/), ("lib", top package), ("std", top module), ("hook", ""),
        ("user", "")."""
        k = self.code_kind.get(code)
        if k is None:
            k = self.code_kind[code] = self._kind_of_file(code.co_filename)
        return k

    def _kind_of_file(self, filename):
        if filename.startswith("<"):
            return ("user", "") if filename in ("<stdin>", "<string>") else ("std", "")
        path = os.path.realpath(filename)
        if self.torch_dir and path.startswith(self.torch_dir):
            return ("torch", path[len(self.torch_dir):].replace(os.sep, "/"))
        if self.hook_dir and path.startswith(self.hook_dir):
            return ("hook", "")
        parts = path.replace(os.sep, "/").split("/")
        for marker in ("site-packages", "dist-packages"):
            if marker in parts:
                i = len(parts) - 1 - parts[::-1].index(marker)
                top = parts[i + 1] if i + 1 < len(parts) else ""
                return ("lib", os.path.splitext(top)[0])
        for d in self.stdlib_dirs:
            if path.startswith(d):
                top = path[len(d):].replace(os.sep, "/").split("/", 1)[0]
                return ("std", os.path.splitext(top)[0])
        return ("user", "")

    def library_class(self, code):
        """The activity a library frame decides, _LOADER/_WAIT, or None (no say)."""
        kind, where = self.kind_of(code)
        name = code.co_name
        if kind == "torch":
            return self._torch_class(where, name)
        if kind == "lib":
            if where in _LOGGING_PACKAGES:
                return LOGGING
            if where == "triton":
                return COMPILE if "/triton/compiler/" in code.co_filename.replace(os.sep, "/") else None
            return None
        if kind == "std":
            if where == "logging":
                return LOGGING
            if where in _WAIT_MODULES:
                return _WAIT
        return None

    @staticmethod
    def _torch_class(where, name):
        if where.startswith("utils/data/"):
            if where.startswith("utils/data/_utils/fetch") or where.startswith("utils/data/_utils/collate"):
                return DATA_INLINE  # the single-process iterator makes the batch here
            if name in _DATALOADER_WAIT:
                return DATA_WAIT
            return _LOADER
        if where.startswith("serialization") or where.startswith("distributed/checkpoint/"):
            return CHECKPOINT
        if name in ("state_dict", "_save_to_state_dict") and where.startswith(("nn/", "optim/")):
            return CHECKPOINT
        if where.startswith("distributed/"):
            return COLLECTIVE
        if where.startswith(("optim/", "amp/grad_scaler", "cuda/amp/grad_scaler", "nn/utils/clip_grad")):
            return OPTIMIZER
        if where.startswith("utils/tensorboard/"):
            return LOGGING
        if where.startswith(("_dynamo/convert_frame", "_dynamo/symbolic_convert", "_dynamo/output_graph",
                             "_inductor/compile_fx", "_inductor/codecache", "_inductor/async_compile",
                             "_inductor/codegen/", "_inductor/scheduler", "_inductor/graph", "_functorch/aot_")):
            return COMPILE
        if where.startswith("_tensor_str"):
            return SYNC  # printing a tensor copies it to the host
        if where.startswith("_tensor"):
            if name == "backward":
                return FORWARD_BACKWARD
            return SYNC if name in ("__array__", "__format__", "__repr__", "numpy", "tolist") else None
        if where.startswith("cuda/") and name in ("synchronize", "wait_event", "wait_stream", "query"):
            return SYNC
        if where.startswith(("nn/", "autograd/", "utils/checkpoint", "functional")) and \
                not where.startswith("autograd/grad_mode") and not where.startswith("autograd/profiler"):
            return FORWARD_BACKWARD
        return None

    def line_class(self, code, line):
        """What the source line of a user frame with no Python frame inside it is doing (C methods)."""
        key = (code, line)
        text = self.lines.get(key)
        if text is None:
            import linecache

            text = self.lines[key] = linecache.getline(code.co_filename, line).strip()
        if not text or text.startswith("#"):
            return None
        if _CHECKPOINT_LINE.search(text):
            return CHECKPOINT
        if _SYNC_LINE.search(text):
            return SYNC
        if _H2D_LINE.search(text):
            return H2D
        if _PRINT_LINE.search(text):
            return LOGGING
        if _IDLE_LINE.search(text):
            return _WAIT
        return None

    # ---- one stack -----------------------------------------------------------
    def classify(self, frames):
        """frames: [(code, line)] innermost first -> (activity or pseudo, user (code, line) or None, names: the
        _NAMED_* bits of the user frames' names)."""
        user = None
        found = None
        waiting = False
        names = 0
        for depth, (code, line) in enumerate(frames):
            kind = self.kind_of(code)[0]
            if kind == "hook":
                continue
            if kind == "user":
                if user is None:
                    user = (code, line)
                if _EVAL_NAME.search(code.co_name):
                    names |= _NAMED_EVAL
                if _CHECKPOINT_NAME.search(code.co_name):
                    names |= _NAMED_CHECKPOINT
                if found is None and depth == 0:
                    c = self.line_class(code, line)
                    if c == _WAIT:
                        waiting = True
                    elif c is not None:
                        found = c  # a C call of the user's own line: what blocks now
                continue
            if found is not None:
                continue
            c = self.library_class(code)
            if c == _WAIT:
                waiting = True
            elif c is not None:
                found = c
        if found is None:
            found = _WAIT if waiting else (_USER if user is not None else OTHER)
        return found, user, names


class Sampler:
    """The sampling thread of one training thread."""

    def __init__(self, recorder, torch, hz):
        self.recorder = recorder
        self.hz = hz
        self.classifier = Classifier(os.path.dirname(getattr(torch, "__file__", "") or ""))
        self.target_ident = threading.get_ident()
        self.target_tid = threading.get_native_id() if hasattr(threading, "get_native_id") else self.target_ident
        self.lock = threading.Lock()
        self.pending = []
        self.last_flush = time.monotonic()
        self.frame_ids = {}  # user (code, line) -> F id
        self.samples = 0
        self.own_ns = 0
        self.stopped = False
        self.thread = threading.Thread(target=self.run, name="gpuwhy-pysample", daemon=True)

    def start(self):
        self.recorder.open_spool()  # in this thread: the sampler never races the first open
        self.thread.start()

    # ---- the thread ----------------------------------------------------------
    def run(self):
        period = 1.0 / self.hz
        next_t = time.monotonic()
        while not self.stopped:
            next_t += period
            delay = next_t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            else:
                next_t = time.monotonic()  # fell behind (a long GIL hold): no burst to catch up
            try:
                if not self.sample_timed():
                    return
            except Exception as e:
                self.stopped = True
                self.recorder.sampler_failed(e)
                return

    def sample_timed(self, thread_ns=time.thread_time_ns):  # bound once: a local, not a lookup per sample
        """One sample under the lock, its CPU time added to own_ns (the bound of the sampler's cost); False once
        stopped. Also what bench/tracer/pystack_cost.py times."""
        t0 = thread_ns()
        with self.lock:
            if self.stopped:
                return False
            self.sample_once()
        self.own_ns += thread_ns() - t0
        return True

    def sample_once(self):
        frame = sys._current_frames().get(self.target_ident)
        if frame is None:
            self.stopped = True  # the training thread ended
            return
        t_ns = time.time_ns()
        # The key is (code id, instruction offset) per frame: f_lasti is read directly where f_lineno scans the
        # code's line table, and ints hash at once where a code object hashes its names and constants on every
        # lookup. The sampler wakes with cold caches, so each object touched costs; a cached chain holds its code
        # objects (below), so no id in a key can be reused by another code object while the key is cached.
        top, key = frame, []
        while frame is not None:
            key.append(id(frame.f_code))
            key.append(frame.f_lasti)
            frame = frame.f_back
        key = tuple(key)
        cached = self.classifier.chains.get(key)
        if cached is None:
            cached = self.classify_new_chain(top, key)
        activity = self.resolve(cached[0], cached[2])
        # a tuple, formatted at flush: %-formatting four ints on the cold caches a sampler wakes to took about
        # 13 us of a sample's 85 (bench/RESULTS.md), all of it with the training thread locked out
        self.pending.append((t_ns, activity, cached[1]))
        self.samples += 1
        now = time.monotonic()
        if now - self.last_flush >= FLUSH_S:
            self.flush()
            self.last_flush = now

    def classify_new_chain(self, top, key):
        """A stack not seen before, classified and cached with its code objects. Its codes come from walking the
        frames again from the innermost one: a frame's callers never change, so the walk meets the same code
        objects even where the thread has moved on; the lines come from the offsets in the key."""
        chain = []
        frame = top
        for i in range(0, len(key), 2):
            code = frame.f_code
            chain.append((code, _line_of_offset(code, key[i + 1])))
            frame = frame.f_back
        if len(self.classifier.chains) >= MAX_CHAIN_CACHE:
            self.classifier.chains.clear()
        activity, user, names = self.classifier.classify(chain)
        cached = (activity, self.frame_id(user), names, tuple(code for code, _ in chain))
        self.classifier.chains[key] = cached
        return cached

    def resolve(self, activity, names):
        """The pseudo classes, the user frames' names and the training thread's flags, at this sample."""
        r = self.recorder
        if r.compile_depth > 0 and activity not in (CHECKPOINT, LOGGING, COLLECTIVE):
            return COMPILE
        if activity == _LOADER:
            activity = DATA_INLINE if r.loader_workers == 0 else DATA_WAIT  # unknown (-1): a worker queue
        elif activity == _WAIT:
            activity = IDLE
        elif activity == _USER:
            activity = OTHER if r.loader_recent else DATA_INLINE
        # before the evaluation's test: a checkpoint written after an evaluation pass finds in_eval still set
        if names & _NAMED_CHECKPOINT and activity in (OTHER, DATA_INLINE, IDLE, H2D, SYNC):
            return CHECKPOINT
        if (r.in_eval or names & _NAMED_EVAL) and activity in (OTHER, DATA_WAIT, DATA_INLINE, H2D, SYNC,
                                                                FORWARD_BACKWARD):
            return EVAL
        return activity

    def frame_id(self, user):
        if user is None:
            return -1
        fid = self.frame_ids.get(user)
        if fid is None:
            if len(self.frame_ids) >= MAX_FRAMES:
                return -1
            code, line = user
            fid = self.frame_ids[user] = len(self.frame_ids)
            name = getattr(code, "co_qualname", code.co_name)
            self.pending.append("F\t%d\t%s\t%d\t%s\n" % (fid, _field(code.co_filename), line, _field(name)))
        return fid

    def flush(self):
        if self.pending:
            tid = self.target_tid
            text = "".join(item if item.__class__ is str else "P\t%d\t%d\t%d\t%d\n" % (item[0], tid, item[1], item[2])
                           for item in self.pending)
            self.pending = []
            self.recorder.write_raw(text)

    # ---- from the training thread ----------------------------------------------
    def stop(self):
        """At exit: the last samples and the sampler's own time, written by the caller's thread."""
        with self.lock:
            if self.stopped and not self.pending and self.samples == 0:
                return
            self.stopped = True
            self.flush()
            self.recorder.event("py_sampler", self.own_ns, "samples=%d" % self.samples)
            self.samples = 0


def _line_of_offset(code, offset):
    """The source line of the instruction at byte offset `offset` of `code` (what f_lineno gives), or the
    code's first line where the table has none."""
    if hasattr(code, "co_lines"):
        for start, end, line in code.co_lines():
            if start <= offset < end:
                return line if line is not None else code.co_firstlineno
        return code.co_firstlineno
    import dis  # before Python 3.10: the line starts, each line running to the next start

    line = code.co_firstlineno
    for start, start_line in dis.findlinestarts(code):
        if start > offset:
            break
        line = start_line
    return line


def _field(s):
    return str(s).replace("\t", " ").replace("\n", " ").replace("\r", " ")[:300]
