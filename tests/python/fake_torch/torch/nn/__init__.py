from . import modules  # noqa: F401
from .modules import Module  # noqa: F401
