"""_Recorder.attach / detach on the fake torch (tests/cli/python_hook_detach.sh).

attach: optimizer steps and DataLoader batches reach the spool; detach: the
optimizer hooks are gone from torch.optim's lists, DataLoader.__next__ is the
original function again and steps write nothing; attach again: steps again,
with no step spanning the detached time.
usage: hook_detach_check.py HOOK_DIR SPOOL_DIR"""
import os
import sys
import time

sys.path.insert(0, sys.argv[1])
import _gpuwhy_steps  # noqa: E402
import torch  # noqa: E402
from torch.optim import optimizer as optim_mod  # noqa: E402

spool = sys.argv[2]
iter_cls = torch.utils.data.dataloader._BaseDataLoaderIter
original_next = iter_cls.__next__
rec = _gpuwhy_steps._Recorder(spool)


def steps_in_spool():
    path = os.path.join(spool, "py-%d.steps" % os.getpid())
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.split("\t") for line in f if line.startswith("S\t")]


opt = torch.optim.SGD([], lr=0.1)  # one optimizer all along, as in a training loop


def train(n):
    it = iter(torch.utils.data.DataLoader(n, batch_size=8))
    for _ in range(n):
        next(it)
        opt.step()


rec.attach(torch)
assert len(optim_mod._global_pre_hooks) == 1 and len(optim_mod._global_post_hooks) == 1
assert iter_cls.__next__ is not original_next
train(5)
assert len(steps_in_spool()) == 5, steps_in_spool()
assert steps_in_spool()[-1][5] == "8", "batch size through the wrapped __next__"

rec.detach()
assert optim_mod._global_pre_hooks == [] and optim_mod._global_post_hooks == [], "optimizer hooks left behind"
assert iter_cls.__next__ is original_next, "DataLoader __next__ not restored"
train(4)
assert len(steps_in_spool()) == 5, "steps recorded while detached"

detached_until = time.time_ns()
rec.attach(torch)
train(3)
rows = steps_in_spool()
assert len(rows) == 8, rows
assert all(int(r[2]) >= detached_until for r in rows[5:]), "a step spans the detached time"
rec.detach()
rec.detach()  # twice is harmless
assert iter_cls.__next__ is original_next and optim_mod._global_post_hooks == []
assert not rec.disabled
print("attach/detach: ok")
