from . import module  # noqa: F401
from .module import Module  # noqa: F401
