"""torch.cuda: no device, unless FAKE_TORCH_CUDA=1 (then one, never initialised: no memory statistics read)."""
import os


def is_available():
    return os.environ.get("FAKE_TORCH_CUDA") == "1"


def is_initialized():
    return False


from . import graphs  # noqa: E402,F401  (torch.cuda imports its graphs module at start-up)
from .graphs import CUDAGraph, graph  # noqa: E402,F401
