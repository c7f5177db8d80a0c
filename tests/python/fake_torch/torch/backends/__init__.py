"""torch.backends as far as the hook's fixes touch it (tests/cli/python_hook_fixes.sh)."""
from . import cudnn  # noqa: F401
