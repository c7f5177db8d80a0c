"""Small training loops on the fake torch, one per kind of time, for the stack sampler's tests
(tests/python/pysample_check.py): each spends nearly all of its steps in one activity.

  pysample_prog.py MODE [STEPS] [MS]   MODE: see LOOPS below; each step spends MS (default 20) there."""
import functools
import logging
import os
import sys
import tempfile
import time

import torch

mode = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 50
wait_s = (float(sys.argv[3]) if len(sys.argv) > 3 else 20.0) / 1e3


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


class SlowTensor(torch.Tensor):
    """A CUDA tensor's blocking methods: C calls that leave no Python frame (as torch's do)."""

    item = staticmethod(functools.partial(time.sleep, wait_s))
    to = staticmethod(time.sleep)  # x.to(seconds): a copy that takes that long


class SlowDisk:
    """A disk that takes its time: fsync(seconds) is a C call that blocks that long and leaves no Python frame, as
    os.fsync does."""

    fsync = staticmethod(time.sleep)


def save_state(path, step):
    """The user's own checkpoint: state written with plain file calls and made durable, no torch.save."""
    with open(path, "wb") as f:
        f.write(b"step %d" % step)
        SlowDisk.fsync(wait_s)


def write_checkpoint(step):
    """The user's own checkpoint, named so, that works in Python (state copied by hand), no file call on its lines."""
    spin(wait_s)


class Net(torch.nn.Module):
    def forward(self, x):
        spin(wait_s)
        return x


class SlowHandler(logging.Handler):
    def emit(self, record):
        time.sleep(wait_s)  # a metrics writer that waits on its server


def crunch():
    spin(wait_s)  # the loop's own Python work


def make_batch():
    spin(wait_s)  # a batch made in the training thread, no DataLoader
    return torch.zeros(8, 3)


opt = torch.optim.SGD([], lr=0.1)
model = Net()
quick = torch.nn.Module()
log = logging.getLogger("pysample")
log.addHandler(SlowHandler())
log.setLevel(logging.INFO)
log.propagate = False
ckpt = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
workers = 2 if mode in ("data_wait", "spin_other") else 0
loader_delay = wait_s if mode in ("data_wait", "loader_inline") else 0.0
it = iter(torch.utils.data.DataLoader(steps, batch_size=8, delay_s=loader_delay, num_workers=workers))
x = SlowTensor((8, 3))
for step in range(steps):
    if mode in ("data_wait", "loader_inline", "spin_other"):
        batch, _ = next(it)
    if mode == "idle":
        time.sleep(wait_s)
    elif mode == "spin_forward":
        model(x)
    elif mode == "spin_other":
        quick(batch)
        crunch()
    elif mode == "spin_inline":
        quick(make_batch())
    elif mode == "sync":
        v = x.item()
    elif mode == "h2d":
        y = x.to(wait_s)
    elif mode == "logging":
        log.info("step %d", step)
    elif mode == "checkpoint":
        torch.save({"step": step}, ckpt, delay_s=wait_s)
    elif mode == "fsync":
        save_state(ckpt, step)
    elif mode == "ckpt_named":
        write_checkpoint(step)
    elif mode == "eval":
        with torch.no_grad():
            model(x)
    opt.step()
os.remove(ckpt) if os.path.exists(ckpt) else None
print("done", mode)
