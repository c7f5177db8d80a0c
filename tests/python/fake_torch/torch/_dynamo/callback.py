"""torch._dynamo.callback of torch 2.6+: callbacks take a CallbackArgs and run
around the outermost compilation only."""
import contextlib
import enum


class CallbackTrigger(enum.Enum):
    DYNAMO = 1
    LAZY_BACKWARD = 2


class CallbackArgs:
    def __init__(self, callback_trigger, compile_id):
        self.callback_trigger, self.compile_id = callback_trigger, compile_id


class CompilationCallbackHandler:
    def __init__(self):
        self.start_callbacks, self.end_callbacks, self.pending = [], [], 0

    def register_start_callback(self, callback):
        self.start_callbacks.append(callback)
        return callback

    def register_end_callback(self, callback):
        self.end_callbacks.append(callback)
        return callback

    def remove_start_callback(self, callback):
        self.start_callbacks.remove(callback)

    def remove_end_callback(self, callback):
        self.end_callbacks.remove(callback)

    @contextlib.contextmanager
    def install_callbacks(self, trigger, compile_id):
        args = CallbackArgs(trigger, compile_id)
        try:
            self.pending += 1
            if self.pending == 1:
                for cb in self.start_callbacks:
                    cb(args)
            yield
        finally:
            if self.pending == 1:
                for cb in self.end_callbacks:
                    cb(args)
            self.pending -= 1


callback_handler = CompilationCallbackHandler()
