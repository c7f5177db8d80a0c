"""_StepFlops on the fake torch (tests/cli/python_hook_flops.sh): the hook
counts the FLOPs of exactly one optimizer step, the one after the N-th, and
leaves FlopCounterMode even when a step inside the window raises.
usage: hook_flops_check.py HOOK_DIR SPOOL_DIR"""
import os
import sys

sys.path.insert(0, sys.argv[1])
import _gpuwhy_steps  # noqa: E402
import torch  # noqa: E402
from torch.utils import flop_counter  # noqa: E402

spool = sys.argv[2]
FLOPS_PER_STEP = 1000


def lines(kind):
    path = os.path.join(spool, "py-%d.steps" % os.getpid())
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.startswith(kind + "\t")]


def reset():
    path = os.path.join(spool, "py-%d.steps" % os.getpid())
    if os.path.exists(path):
        os.remove(path)
    del flop_counter.enters[:], flop_counter.exits[:]


def start(count_flops):
    """A fresh spool file and recorder attached to torch, with GPUWHY_PY_COUNT_FLOPS
    set to count_flops (None: unset)."""
    if count_flops is None:
        os.environ.pop("GPUWHY_PY_COUNT_FLOPS", None)
    else:
        os.environ["GPUWHY_PY_COUNT_FLOPS"] = count_flops
    reset()
    rec = _gpuwhy_steps._Recorder(spool)
    rec.attach(torch)
    return rec


def train(rec, opt, n, flops_of_step, raise_at=-1):
    """n steps; step i does flops_of_step(i) FLOPs; step raise_at raises
    after its forward (caught, as a loop that skips a bad batch does)."""
    it = iter(torch.utils.data.DataLoader(n, batch_size=4))
    for i in range(n):
        next(it)
        flop_counter.fake_op(flops_of_step(i))
        if i == raise_at:
            try:
                raise RuntimeError("bad batch")
            except RuntimeError:
                pass
            # the optimizer's own step raises after its pre hook: no post hook
            opt._step, saved = (lambda: (_ for _ in ()).throw(RuntimeError("nan"))), opt._step
            try:
                opt.step()
            except RuntimeError:
                pass
            opt._step = saved
            continue
        opt.step()


# 1. default: the 11th step is counted, its FLOPs alone (each step does a different number)
rec = start(None)
opt = torch.optim.SGD([], lr=0.1)
train(rec, opt, 30, lambda i: FLOPS_PER_STEP * (i + 1))
m = lines("M")
assert len(m) == 1, m
assert m[0][1] == "11" and m[0][2] == str(FLOPS_PER_STEP * 11), m  # step index 10 is the 11th step
assert m[0][3] == "{}" and m[0][4] == "4" and int(m[0][5]) > 0 and m[0][6] == "-1", m
steps = lines("S")
counted = [s for s in steps if s[1] == "11"][0]
assert int(m[0][5]) == int(counted[3]) - int(counted[2]), (m, counted)  # counted_ns is that step's wall time
assert len(flop_counter.enters) == 1 and len(flop_counter.exits) == 1 and flop_counter._active == []
rec.detach()

# 2. GPUWHY_PY_COUNT_FLOPS=0: never counted
rec = start("0")
train(rec, opt, 15, lambda i: FLOPS_PER_STEP)
assert lines("M") == [] and flop_counter.enters == [], lines("M")
rec.detach()

# 3. a step raises inside the window: the mode is left at the next step's end
# and nothing is reported (the window held more than one step)
rec = start("3")
train(rec, opt, 10, lambda i: FLOPS_PER_STEP, raise_at=3)
assert lines("M") == [], lines("M")
assert len(flop_counter.exits) == 1 and flop_counter._active == [], "mode not left after a raising step"
ev = [e for e in lines("E") if e[2] == "flop_count"]
assert len(ev) == 1 and "raised" in ev[0][4], ev
assert len(lines("S")) == 9, lines("S")  # the raising step wrote no step line; the others did
rec.detach()

# 4. the window open when the program ends by an exception: the exit handler leaves it
rec = start("2")
train(rec, opt, 2, lambda i: FLOPS_PER_STEP)
assert flop_counter._active != [], "window not open after the 2nd step"
_gpuwhy_steps._recorder = rec
_gpuwhy_steps._at_exit()
assert flop_counter._active == [] and len(flop_counter.exits) == 1, "mode not left at exit"
assert lines("M") == []
rec.detach()
print("hook_flops_check: ok")
