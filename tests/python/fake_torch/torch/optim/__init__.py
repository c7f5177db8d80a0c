from . import optimizer  # noqa: F401
from .optimizer import Optimizer, SGD  # noqa: F401
