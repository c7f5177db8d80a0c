"""torch.utils.flop_counter.FlopCounterMode's shape as the hook uses it: a
context manager entered and left by hand, get_total_flops(). The fake's ops
are fake_op(flops) calls made by a test's training loop: each active mode
counts them. enters/exits record every __enter__/__exit__ for the tests."""
_active = []
enters = []
exits = []


def fake_op(flops):
    for mode in _active:
        mode.total += flops


class FlopCounterMode:
    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        self.display = display
        self.total = 0

    def __enter__(self):
        _active.append(self)
        enters.append(self)
        return self

    def __exit__(self, *args):
        _active.remove(self)
        exits.append(self)

    def get_total_flops(self):
        return self.total
