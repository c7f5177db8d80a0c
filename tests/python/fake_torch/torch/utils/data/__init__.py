from . import dataloader  # noqa: F401
from .dataloader import DataLoader  # noqa: F401
