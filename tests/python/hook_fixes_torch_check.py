"""The hook's fixes on the real torch (the GPU machine; CI has only the fake):
each fix changes the real DataLoader, flags and copies, the copies' results
are those of blocking copies, and detach gives back torch's own functions
(Tensor.to and Tensor.cuda inherited from torch._C.TensorBase again) and
flags. Not run on CI (no torch there).
usage: python3 hook_fixes_torch_check.py HOOK_DIR   (prints "fixes on torch X: ok")"""
import sys

sys.path.insert(0, sys.argv[1])
import _gpuwhy_fixes  # noqa: E402
import torch  # noqa: E402
from torch.utils.data import DataLoader, IterableDataset, TensorDataset  # noqa: E402

assert torch.cuda.is_available(), "needs a CUDA device"
events = []
original_init = DataLoader.__dict__["__init__"]
assert "to" not in torch.Tensor.__dict__ and "cuda" not in torch.Tensor.__dict__, "Tensor.to is torch's own"
before = (torch.backends.cudnn.benchmark, torch.backends.cudnn.allow_tf32, torch.get_float32_matmul_precision())
fixes = _gpuwhy_fixes.Fixes(lambda kind, message: events.append((kind, message)),
                            "workers=2,pin_memory,persistent_workers,prefetch_factor=4,cudnn_benchmark,tf32,"
                            "non_blocking,batch_size=x2")
fixes.attach(torch)
assert torch.backends.cudnn.benchmark and torch.backends.cudnn.allow_tf32
assert torch.get_float32_matmul_precision() == "high"
data = TensorDataset(torch.arange(64 * 3, dtype=torch.float32).reshape(64, 3), torch.arange(64))
loader = DataLoader(data, batch_size=8)
assert (loader.num_workers, loader.pin_memory, loader.persistent_workers, loader.prefetch_factor, loader.batch_size) \
    == (2, True, True, 4, 16), vars(loader)
for x, y in loader:
    assert x.is_pinned() and x.shape[0] == 16
    fast = x.to("cuda")  # made non_blocking
    slow = x.to("cuda", non_blocking=False)
    assert torch.equal(fast, slow), "a non-blocking copy differs"
    assert torch.equal(y.cuda(), y.to(torch.device("cuda", 0), non_blocking=False))
torch.zeros(4).to("cuda")  # pageable
stream = DataLoader(type("Stream", (IterableDataset,), {"__iter__": lambda self: iter(range(4))})(), batch_size=2)
assert stream.num_workers == 0, "workers on an IterableDataset"
fixes.detach()
assert DataLoader.__dict__["__init__"] is original_init
assert "to" not in torch.Tensor.__dict__ and "cuda" not in torch.Tensor.__dict__, "Tensor.to not given back"
base = getattr(torch._C, "TensorBase", None) or torch._C._TensorBase  # renamed in torch 2.2
assert torch.Tensor.to is base.to
assert (torch.backends.cudnn.benchmark, torch.backends.cudnn.allow_tf32, torch.get_float32_matmul_precision()) == before
kinds = {}
for kind, message in events:
    kinds.setdefault(message.split(":")[0], []).append((kind, message))
for name in ("workers", "pin_memory", "persistent_workers", "prefetch_factor", "batch_size", "cudnn_benchmark",
             "non_blocking"):
    assert any(k == "fix_applied" for k, _ in kinds.get(name, [])), (name, events)
assert ("fix_refused", "workers: refused, IterableDataset: each worker would replay the whole stream") in [
    (k, m.rsplit(" (", 1)[0]) for k, m in events], events
made = [m for k, m in events if m.startswith("non_blocking:")][0]
assert made.startswith("non_blocking: 8 host-to-device copies made non-blocking, 1 from pageable memory"), made
for kind, message in events:
    print(kind, message)
print("fixes on torch %s: ok" % torch.__version__)
