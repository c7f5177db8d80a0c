from .._tensor import Tensor


class Parameter(Tensor):
    """A model's weight: moved to the device once, by Module.to."""
