"""torch's grad mode and inference mode as far as the hook reads them: the
functions torch.is_grad_enabled and torch.is_inference_mode_enabled, and the
context managers that switch them (inference mode turns grad mode off, as
c10::InferenceMode does)."""
_state = {"grad": True, "inference": False}


def is_grad_enabled():
    return _state["grad"]


def is_inference_mode_enabled():
    return _state["inference"]


class _Mode:
    def __init__(self, **mode):
        self.mode = mode

    def __enter__(self):
        self.prev = dict(_state)
        _state.update(self.mode)
        return self

    def __exit__(self, *exc):
        _state.update(self.prev)
        return False


def no_grad():
    return _Mode(grad=False)


def enable_grad():
    return _Mode(grad=True)


def inference_mode():
    return _Mode(grad=False, inference=True)
