"""Run a scenario on the CPU with torch.cuda faked: a check of its logic on a machine without a GPU, never a
measurement (the figures mean nothing).

    python3 scenarios/cpu_dryrun.py scenarios/remote_store.py --out /tmp/t.json --duration 2 --batch-size 64 \
        --features 256 --width 256 --depth 2

Pass small sizes: the defaults are for an H200. Fakes: setup_cuda gives the CPU, synchronize does nothing,
autocast is off, pinned memory is plain memory, DataLoader never pins; on a torch without them,
scaled_dot_product_attention is written out and torch.compile returns the model (with a stand-in
torch._dynamo config). Used with Debian's python3-torch 1.13 to check issue 21's seven scenarios.
"""
import contextlib, os, runpy, sys, types
import torch
import torch.utils.data

scen = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(scen))
import common

common.setup_cuda = lambda seed=1234: (torch.manual_seed(seed), torch.device("cpu"))[1]
torch.cuda.is_available = lambda: True
torch.cuda.synchronize = lambda *a, **k: None
torch.cuda.get_device_name = lambda *a: "cpu-shim"
torch.autocast = lambda *a, **k: contextlib.nullcontext()
torch.Tensor.pin_memory = lambda self, *a, **k: self
for fn in ("empty", "zeros"):
    orig = getattr(torch, fn)
    def wrap(*a, _o=orig, **k):
        k.pop("pin_memory", None)
        return _o(*a, **k)
    setattr(torch, fn, wrap)
_dl_init = torch.utils.data.DataLoader.__init__
def dl_init(self, *a, **k):
    k["pin_memory"] = False
    _dl_init(self, *a, **k)
torch.utils.data.DataLoader.__init__ = dl_init
if not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
    def sdpa(q, k, v, is_causal=False):
        s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        if is_causal:
            L = q.shape[-2]
            s = s.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf"))
        return s.softmax(-1) @ v
    torch.nn.functional.scaled_dot_product_attention = sdpa
if not hasattr(torch, "compile"):
    torch.compile = lambda m, **k: m
    dyn = types.ModuleType("torch._dynamo")
    dyn.config = types.SimpleNamespace(cache_size_limit=8, accumulated_cache_size_limit=256, automatic_dynamic_shapes=True)
    utils = types.ModuleType("torch._dynamo.utils")
    utils.counters = {"stats": {"unique_graphs": 0}}
    dyn.utils = utils
    sys.modules["torch._dynamo"] = dyn
    sys.modules["torch._dynamo.utils"] = utils
    torch._dynamo = dyn
sys.argv = sys.argv[1:]
runpy.run_path(scen, run_name="__main__")
