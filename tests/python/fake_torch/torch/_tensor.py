"""torch.Tensor as far as the hook touches it: a shape, a device ("cpu" or "cuda"), pinned host memory, and the
copies to a device (to, cuda), which remember whether they were asked non_blocking. copies lists every copy from
the host to CUDA as (source pinned, non_blocking), for the tests."""
import os

copies = []


class device:
    def __init__(self, spec="cpu"):
        text = spec if isinstance(spec, str) else "cuda:%d" % spec
        self.type, _, index = text.partition(":")
        self.index = int(index) if index else None

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)


def _device_of(arg):
    if isinstance(arg, device):
        return arg
    if isinstance(arg, (str, int)) and not isinstance(arg, bool):
        return device(arg)
    if isinstance(arg, Tensor):
        return arg.device
    return None  # a dtype


class Tensor:
    def __init__(self, shape, device_spec="cpu", pinned=False):
        self.shape = tuple(shape)
        self.device = device(device_spec)
        self._pinned = pinned
        self.non_blocking = False  # how the copy that made this tensor was asked

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def is_pinned(self):
        return self._pinned

    def pin_memory(self):
        if os.environ.get("FAKE_TORCH_CUDA") != "1":
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return Tensor(self.shape, "cpu", pinned=True)

    def to(self, *args, non_blocking=False, copy=False, **kwargs):
        target = kwargs.get("device")
        for arg in args:
            target = target or _device_of(arg)
        if len(args) >= 2 and isinstance(args[-1], bool):
            non_blocking = args[-1]  # to(device, dtype, non_blocking) as nn.Module.to calls it
        if target is None or str(target) == str(self.device):
            return self
        if target.type == "cuda" and self.device.type == "cpu":
            copies.append((self._pinned, bool(non_blocking)))
        out = Tensor(self.shape, str(target))
        out.non_blocking = bool(non_blocking)
        return out

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        return self.to("cuda" if device is None else device, non_blocking=non_blocking)


def zeros(*shape, requires_grad=False, **_kw):
    # requires_grad and dtype/device keywords are accepted and ignored: the fake tensor has no autograd
    return Tensor(shape)
