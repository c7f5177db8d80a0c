from .optimizer import Optimizer, SGD  # noqa: F401

# As the real torch.optim does, the submodule's name is removed from the
# package: torch.optim.optimizer is reachable through sys.modules only.
del optimizer  # noqa: F821
