"""OptimizedModule: what torch.compile(module) returns. Like dynamo with
dynamic=False, every new input shape is a compilation (the first of the frame
"0/0", then recompilations "0/1", ...) that takes FAKE_TORCH_COMPILE_MS, and its
backward graph (trigger LAZY_BACKWARD, the same id) a tenth of that; the
compilation metrics, with the recompile reason, are recorded after the end
callbacks ran, as dynamo does."""
import os
import sys
import time

from . import callback, utils


class OptimizedModule:
    def __init__(self, mod):
        self._orig_mod = mod
        self._shapes = []

    def __call__(self, *args, **kwargs):
        from ..nn.modules import module

        if module._global_forward_pre_hooks:
            sys.stderr.write("UserWarning: torch.compile with global module hooks\n")
        shape = tuple(args[0].shape) if args and hasattr(args[0], "shape") else ()
        if shape not in self._shapes:
            compile_id = "0/%d" % len(self._shapes)
            reason = None
            if self._shapes:
                last = self._shapes[-1]
                reason = "tensor 'x' size mismatch at index 1. expected %s, actual %s" % (
                    last[1] if len(last) > 1 else "?", shape[1] if len(shape) > 1 else "?")
            self._shapes.append(shape)
            with callback.callback_handler.install_callbacks(callback.CallbackTrigger.DYNAMO, compile_id):
                time.sleep(float(os.environ.get("FAKE_TORCH_COMPILE_MS", "0")) / 1e3)
            utils.counters["stats"]["unique_graphs"] += 1
            utils._compilation_metrics.append(utils.CompilationMetrics(compile_id, reason))
            # AOTAutograd compiles the backward graph at its first use, with the forward's id
            with callback.callback_handler.install_callbacks(callback.CallbackTrigger.LAZY_BACKWARD, compile_id):
                time.sleep(float(os.environ.get("FAKE_TORCH_COMPILE_MS", "0")) / 1e4)
            utils._compilation_metrics.append(utils.CompilationMetrics(compile_id, None))
        return self._orig_mod(*args, **kwargs)
