"""A stand-in for the few parts of PyTorch that gpuwhy's Python hook touches
(tests run where torch is not installed). Same names and call shapes as torch 2.x."""
import os

from . import backends, cuda, nn, optim, utils  # noqa: F401  (torch imports these at start-up too)
from ._grad_mode import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad  # noqa: F401
from ._tensor import Tensor, device, zeros  # noqa: F401
from .serialization import save  # noqa: F401

__version__ = "0.0-fake"

if os.environ.get("FAKE_TORCH_BROKEN") == "1":
    # A torch whose internals moved: the hook must give up quietly.
    del utils.data.dataloader._BaseDataLoaderIter

_float32_matmul_precision = "highest"


def get_float32_matmul_precision():
    return _float32_matmul_precision


def set_float32_matmul_precision(precision):
    """As torch: "highest" (float32 matmuls in float32), "high" (TF32 allowed), "medium" (bfloat16 allowed)."""
    global _float32_matmul_precision
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError("Invalid float32 matmul precision: %s" % precision)
    _float32_matmul_precision = precision


def compile(model=None, **kwargs):
    """torch.compile's shape: imports torch._dynamo and hands back an
    OptimizedModule, which warns when global module hooks exist at its call
    (the hook must keep its global forward hook away from it)."""
    from . import _dynamo

    return _dynamo.eval_frame.OptimizedModule(model)
