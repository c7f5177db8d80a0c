from . import data  # noqa: F401
from . import flop_counter  # noqa: F401,E402
