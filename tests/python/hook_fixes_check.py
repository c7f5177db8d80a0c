"""The hook's fixes (_gpuwhy_fixes.Fixes) on the fake torch, in one process
(tests/cli/python_hook_fixes.sh): each fix changes what it says, reports it,
and detach() gives back the original functions and flags; what fails inside
the fix code is a refusal, never an exception in the program.
usage: hook_fixes_check.py HOOK_DIR"""
import os
import re
import sys

sys.path.insert(0, sys.argv[1])
import _gpuwhy_fixes  # noqa: E402
import torch  # noqa: E402

os.environ["FAKE_TORCH_CUDA"] = "1"
DataLoader = torch.utils.data.DataLoader
cudnn = torch.backends.cudnn
original_init = DataLoader.__dict__["__init__"]
original_to, original_cuda = torch.Tensor.__dict__["to"], torch.Tensor.__dict__["cuda"]
ALL = "workers=3,pin_memory,persistent_workers,prefetch_factor=4,cudnn_benchmark,tf32,non_blocking,batch_size=x2"


class Events:
    def __init__(self):
        self.rows = []

    def __call__(self, kind, message):
        self.rows.append((kind, message))

    def of(self, kind):
        """The messages of that kind, the site that built the DataLoader (this file's line) written SITE."""
        rows = [m for k, m in self.rows if k == kind]
        assert all(re.search(r"\(hook_fixes_check\.py:\d+\)$", m) for m in rows if "DataLoader" in m
                   and "by exit" not in m and "raised" not in m), rows
        return sorted(re.sub(r"\(hook_fixes_check\.py:\d+\)$", "(SITE)", m) for m in rows)


def originals_back(what):
    assert DataLoader.__dict__["__init__"] is original_init, what + ": DataLoader.__init__ not restored"
    assert torch.Tensor.__dict__["to"] is original_to, what + ": Tensor.to not restored"
    assert torch.Tensor.__dict__["cuda"] is original_cuda, what + ": Tensor.cuda not restored"


# ---- every fix applied, reported, undone ----------------------------------
cudnn.allow_tf32 = False  # so that tf32 has both flags to change
ev = Events()
fixes = _gpuwhy_fixes.Fixes(ev, ALL)
fixes.attach(torch)
assert cudnn.benchmark is True and cudnn.allow_tf32 is True, (cudnn.benchmark, cudnn.allow_tf32)
assert torch.get_float32_matmul_precision() == "high"
assert DataLoader.__dict__["__init__"] is not original_init and torch.Tensor.__dict__["to"] is not original_to
loader = DataLoader(10, batch_size=8)
assert (loader.num_workers, loader.pin_memory, loader.persistent_workers, loader.prefetch_factor, loader.batch_size) \
    == (3, True, True, 4, 16), vars(loader)
loader2 = DataLoader(10, 4, num_workers=3)  # positional batch size; workers already 3
assert (loader2.num_workers, loader2.batch_size) == (3, 8), vars(loader2)
x, _ = next(iter(loader))
assert x.is_pinned()
y = x.to("cuda")
assert y.is_cuda and y.non_blocking, "a copy from pinned memory is not non_blocking"
assert x.to("cuda", non_blocking=False).non_blocking is False, "an explicit non_blocking=False was overridden"
assert x.to("cuda", None, False).non_blocking is False, "a positional non_blocking=False was overridden"
assert x.cuda().non_blocking, "Tensor.cuda from pinned memory is not non_blocking"
pageable = torch.zeros(4, 3)
assert pageable.to(torch.device("cuda")).non_blocking is False, "a pageable copy was made non_blocking"
torch.nn.Parameter((2, 2)).to("cuda")  # a model's weight: not counted
assert x.to("cpu") is x
rebuilt = DataLoader(10, batch_size=16, num_workers=3)  # rebuilt from the fixed loader (accelerate's prepare)
assert (rebuilt.num_workers, rebuilt.batch_size) == (3, 16), "batch_size=x2 applied twice: %r" % vars(rebuilt)
fixes.detach()
originals_back("detach")
assert cudnn.benchmark is False and cudnn.allow_tf32 is False and torch.get_float32_matmul_precision() == "highest"
assert DataLoader(10, batch_size=8).num_workers == 0, "the DataLoader still changed after detach"
# loader2 already had the 3 workers the fix asks, after the fix changed another one: nothing to say
assert ev.of("fix_refused") == [], ev.of("fix_refused")
applied = ev.of("fix_applied")
# one line per fix, from the first DataLoader it changed (loader2's changes are not told again)
expect = ["batch_size: DataLoader batch_size 8 -> 16 (SITE)",
          "cudnn_benchmark: torch.backends.cudnn.benchmark False -> True",
          "non_blocking: 2 host-to-device copies made non-blocking, 1 from pageable memory left blocking "
          "(pin_memory would let them overlap)",
          "persistent_workers: DataLoader persistent_workers False -> True (SITE)",
          "pin_memory: DataLoader pin_memory False -> True (SITE)",
          "prefetch_factor: DataLoader prefetch_factor None -> 4 (SITE)",
          "tf32: float32 matmul precision highest -> high, cudnn.allow_tf32 False -> True",
          "workers: DataLoader num_workers 0 -> 3 (SITE)"]
assert applied == sorted(expect), applied
fixes.detach()  # twice is harmless
originals_back("second detach")
cudnn.allow_tf32 = True

# ---- at exit: the fixes never reached, then undone --------------------------
ev = Events()
fixes = _gpuwhy_fixes.Fixes(ev, "workers=2,batch_size=4,non_blocking,cudnn_benchmark")
fixes.attach(torch)
assert DataLoader(10, batch_size=3, num_workers=2).batch_size == 4, "batch_size=N"
fixes.at_exit()
originals_back("at_exit")
assert cudnn.benchmark is False
# the loader already had the 2 workers asked: refused, as no loader was changed by this fix
assert ev.of("fix_refused") == ["non_blocking: refused, no host-to-device copy seen",
                                "workers: refused, DataLoader num_workers is already 2 (SITE)"], ev.rows
assert ev.of("fix_applied") == ["batch_size: DataLoader batch_size 3 -> 4 (SITE)",
                                "cudnn_benchmark: torch.backends.cudnn.benchmark False -> True"], ev.rows
ev = Events()
fixes = _gpuwhy_fixes.Fixes(ev, "workers=2,batch_size=4")
fixes.attach(torch)
fixes.at_exit()
assert ev.of("fix_refused") == ["batch_size: refused, no DataLoader built by exit",
                                "workers: refused, no DataLoader built by exit"], ev.rows
ev = Events()
_gpuwhy_fixes.Fixes(ev, "tf32,bogus").at_exit()  # torch never imported: no attach
assert ev.of("fix_refused") == ["bogus: refused, unknown fix 'bogus'",
                                "tf32: refused, the program never imported torch"], ev.rows

# ---- refusals ---------------------------------------------------------------
os.environ["FAKE_TORCH_CUDA"] = "0"
cudnn.benchmark = True
torch.set_float32_matmul_precision("medium")
ev = Events()
fixes = _gpuwhy_fixes.Fixes(ev, "cudnn_benchmark,tf32,pin_memory,workers=2,batch_size=x2,prefetch_factor=2,"
                            "persistent_workers,workers=1,tf32=1,nope=3,,")
fixes.attach(torch)
stream = DataLoader(torch.utils.data.IterableDataset(5), batch_size=None)
assert (stream.num_workers, stream.batch_size) == (0, None), vars(stream)
fixes.detach()
originals_back("refusals")
assert cudnn.benchmark is True and torch.get_float32_matmul_precision() == "medium", "flags changed by a refused fix"
refused = ev.of("fix_refused")
expect = ["batch_size: refused, the DataLoader has batch_size=None: it does not batch (SITE)",
          "cudnn_benchmark: refused, torch.backends.cudnn.benchmark is already True",
          "nope: refused, unknown fix 'nope=3'",
          "persistent_workers: refused, the DataLoader has 0 workers and the workers fix was refused on it (SITE)",
          "pin_memory: refused, no CUDA device (SITE)",
          "prefetch_factor: refused, the DataLoader has 0 workers and the workers fix was refused on it (SITE)",
          "tf32: refused, float32 matmul precision is already medium and cudnn.allow_tf32 True",
          "tf32: refused, given twice ('tf32=1')",
          "workers: refused, IterableDataset: each worker would replay the whole stream (SITE)",
          "workers: refused, given twice ('workers=1')"]
assert refused == sorted(expect), refused
assert ev.of("fix_applied") == [], ev.rows
cudnn.benchmark = False
torch.set_float32_matmul_precision("highest")

# bad values: none applied, each refused with what it takes
for text, reason in (("batch_size=0", "bad value '0' (batch_size=N >= 1 or xK, K >= 1)"),
                     ("batch_size=xy", "bad value 'xy' (batch_size=N >= 1 or xK, K >= 1)"),
                     ("batch_size=x0", "bad value 'x0' (batch_size=N >= 1 or xK, K >= 1)"),
                     ("prefetch_factor=-1", "bad value '-1' (prefetch_factor=N >= 1)"),
                     ("workers=", "bad value '' (workers=N >= 1 or auto)"),
                     ("workers=0", "bad value '0' (workers=N >= 1 or auto)"),
                     ("workers=2.5", "bad value '2.5' (workers=N >= 1 or auto)"),
                     ("pin_memory=yes", "takes no value ('pin_memory=yes')"),
                     ("=3", "unknown fix '=3'")):
    assert _gpuwhy_fixes.parse(text) == ({}, [(text.split("=")[0] or text, "refused, " + reason)]), (
        text, _gpuwhy_fixes.parse(text))
assert _gpuwhy_fixes.parse(" workers=auto , batch_size=x2,tf32") == (
    {"workers": "auto", "batch_size": ("x", 2), "tf32": None}, [])

# ---- failures inside the fix code never reach the program --------------------


def picky_init(self, *args, num_workers=0, **kwargs):
    if num_workers:
        raise ValueError("this DataLoader takes no workers")
    original_init(self, *args, num_workers=num_workers, **kwargs)


DataLoader.__init__ = picky_init
ev = Events()
fixes = _gpuwhy_fixes.Fixes(ev, "workers=2,cudnn_benchmark")
saved_cudnn = torch.backends.cudnn


class BrokenCudnn:
    @property
    def benchmark(self):
        raise RuntimeError("cuDNN is not there")


sys.modules["torch.backends.cudnn"] = BrokenCudnn()
fixes.attach(torch)
sys.modules["torch.backends.cudnn"] = saved_cudnn
loader = DataLoader(4, batch_size=2)
assert loader.num_workers == 0, "a DataLoader that refused the workers was not built as the program asked"
fixes.detach()
assert DataLoader.__dict__["__init__"] is picky_init
DataLoader.__init__ = original_init
assert ev.of("fix_refused") == ["cudnn_benchmark: refused, RuntimeError: cuDNN is not there",
                                "workers: refused, DataLoader raised ValueError: this DataLoader takes no workers"
                                ], ev.rows


def broken_report(kind, message):
    raise OSError("disk full")


fixes = _gpuwhy_fixes.Fixes(broken_report, "workers=2,bogus")
fixes.attach(torch)
assert DataLoader(4).num_workers == 2, "a spool that cannot be written stops the fix"
fixes.at_exit()
originals_back("broken report")
try:
    DataLoader(4, no_such_argument=1)  # the program's own mistake: its own error, as without the hook
    raise AssertionError("no TypeError")
except TypeError:
    pass

# another library wraps DataLoader.__init__ over ours: detach leaves its wrapper, ours passes calls through
fixes = _gpuwhy_fixes.Fixes(Events(), "workers=2")
fixes.attach(torch)
ours = DataLoader.__dict__["__init__"]


def theirs(self, *args, **kwargs):
    ours(self, *args, **kwargs)


DataLoader.__init__ = theirs
fixes.detach()
assert DataLoader.__dict__["__init__"] is theirs, "a later wrapper was taken away"
assert DataLoader(4).num_workers == 0, "a detached fix still changed the DataLoader"
DataLoader.__init__ = original_init

# through the step hook: _Recorder.attach applies the fixes, its event lines carry them, detach undoes them
import tempfile  # noqa: E402

import _gpuwhy_steps  # noqa: E402

spool = tempfile.mkdtemp()
os.environ["GPUWHY_PY_FIXES"] = "workers=2,cudnn_benchmark,non_blocking"
rec = _gpuwhy_steps._Recorder(spool)
del os.environ["GPUWHY_PY_FIXES"]
rec.attach(torch)
assert DataLoader(4).num_workers == 2 and cudnn.benchmark is True
rec.detach()
originals_back("_Recorder.detach")
assert cudnn.benchmark is False
with open(os.path.join(spool, "py-%d.steps" % os.getpid())) as f:
    lines = sorted(line.rstrip("\n").split("\t", 2)[2] for line in f if line.startswith("E\t"))
assert [re.sub(r"\(hook_fixes_check\.py:\d+\)$", "(SITE)", x) for x in lines] == [
    "fix_applied\t0\tcudnn_benchmark: torch.backends.cudnn.benchmark False -> True",
    "fix_applied\t0\tworkers: DataLoader num_workers 0 -> 2 (SITE)",
    "fix_refused\t0\tnon_blocking: refused, no host-to-device copy seen"], lines

# ---- workers=auto: the usable cores less one, at most 16 ----------------------
cores = len(os.sched_getaffinity(0))
ev = Events()
fixes = _gpuwhy_fixes.Fixes(ev, "workers=auto")
fixes.attach(torch)
loader = DataLoader(4)
fixes.detach()
if cores >= 2:
    assert loader.num_workers == min(cores - 1, 16), (cores, loader.num_workers)
    assert ev.of("fix_applied") == ["workers: DataLoader num_workers 0 -> %d, auto: %d usable cores, one kept for the "
                                    "main process (SITE)" % (min(cores - 1, 16), cores)], ev.rows
else:
    assert loader.num_workers == 0 and len(ev.of("fix_refused")) == 1, ev.rows
# under a launcher, the ranks of the machine share its cores
os.environ["LOCAL_WORLD_SIZE"] = str(max(cores, 1))
assert _gpuwhy_fixes.auto_workers() == (0, "auto: %d usable cores / %d local ranks, one kept for the main process" % (
    cores, cores)) or cores == 1, _gpuwhy_fixes.auto_workers()
ev = Events()
fixes = _gpuwhy_fixes.Fixes(ev, "workers=auto")
fixes.attach(torch)
loader = DataLoader(4)
fixes.detach()
assert loader.num_workers == 0, "workers=auto took a core another rank needs"
assert ev.of("fix_refused") == ["workers: refused, workers=auto: no core to spare for a worker "
                                "(auto: %d usable cores%s, one kept for the main process) (SITE)" % (
                                    cores, " / %d local ranks" % cores if cores > 1 else "")], ev.rows
del os.environ["LOCAL_WORLD_SIZE"]

# ---- a DataLoader worker (spawned, it runs the hook too) reports nothing -------
worker_mod = type(sys)("torch.utils.data._utils.worker")
worker_mod._worker_info = object()
sys.modules["torch.utils.data._utils.worker"] = worker_mod
ev = Events()
fixes = _gpuwhy_fixes.Fixes(ev, "workers=2,bogus")
fixes.attach(torch)
fixes.at_exit()
del sys.modules["torch.utils.data._utils.worker"]
originals_back("worker")
assert ev.rows == [], ev.rows
print("fixes: ok")
