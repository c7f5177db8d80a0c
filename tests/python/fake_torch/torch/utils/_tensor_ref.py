from .._tensor import Tensor  # noqa: F401
