# gpuwhy's Python start-up hook. `gpuwhy record` puts this folder first on
# PYTHONPATH, so Python imports this file at start-up in the recorded program
# and in every rank a launcher (torchrun, accelerate, deepspeed) starts. It
# records training steps into a spool file (see _gpuwhy_steps.py), then runs
# the sitecustomize it shadows, if there is one further down sys.path.
# Whatever happens here, the program runs as it would without it.
import sys as _sys


def _gpuwhy_start():
    try:
        import _gpuwhy_steps

        _gpuwhy_steps.install()
    except Exception as e:  # never in the way: one line, then nothing
        try:
            _sys.stderr.write("gpuwhy: Python step hook disabled: %s: %s\n" % (type(e).__name__, e))
        except Exception:
            pass


def _gpuwhy_chain():
    """Import the sitecustomize that this one hides, as Python would have."""
    import os
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in _sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    _sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_gpuwhy_start()
try:
    _gpuwhy_chain()
except Exception as _e:
    # Python itself reports a failing sitecustomize this way and goes on.
    _sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s\n" % (type(_e).__name__, _e))
