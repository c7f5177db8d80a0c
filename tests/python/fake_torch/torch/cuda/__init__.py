def is_available():
    return False


def is_initialized():
    return False


from . import graphs  # noqa: E402,F401  (torch.cuda imports its graphs module at start-up)
from .graphs import CUDAGraph, graph  # noqa: E402,F401
