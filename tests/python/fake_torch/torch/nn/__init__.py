from . import modules  # noqa: F401
from .modules import Module  # noqa: F401
from .parameter import Parameter  # noqa: F401,E402
