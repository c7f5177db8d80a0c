"""The stack sampler's classification on small real programs (tests/python/pysample_prog.py on the fake torch):
each loop spends nearly all of its time in one activity, and most samples must say so, naming the user's own
function. Also: GPUWHY_PY_SAMPLE_HZ=0 writes no sample, a program that never trains starts no sampler, and a
forked child (a DataLoader worker) samples nothing.

  pysample_check.py HOOK_DIR FAKE_TORCH_DIR WORK_DIR"""
import collections
import os
import subprocess
import sys

hook_dir, fake_torch, work = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))
PROG = os.path.join(here, "pysample_prog.py")
NAMES = ["other", "data_wait", "data_inline", "h2d", "sync", "checkpoint", "eval", "logging", "compile", "optimizer",
         "forward_backward", "collective", "idle"]
# mode -> (activity, the innermost user function of most samples)
EXPECT = {
    "data_wait": ("data_wait", "<module>"),
    "loader_inline": ("data_inline", "<module>"),
    "idle": ("idle", "<module>"),
    "spin_forward": ("forward_backward", "spin"),
    "spin_other": ("other", "spin"),
    "spin_inline": ("data_inline", "spin"),
    "sync": ("sync", "<module>"),
    "h2d": ("h2d", "<module>"),
    "logging": ("logging", "SlowHandler.emit"),
    "checkpoint": ("checkpoint", "<module>"),
    # a checkpoint of the user's own that waits in fsync (a C call: the line decides), not data made inline
    "fsync": ("checkpoint", "save_state"),
    # Python work inside a function named for a checkpoint, no DataLoader: the checkpoint's, not data made inline
    "ckpt_named": ("checkpoint", "spin"),
    "eval": ("eval", "spin"),
}
failures = []


def clean(spool):
    os.makedirs(spool, exist_ok=True)
    for f in os.listdir(spool):
        os.remove(os.path.join(spool, f))


def run(mode, hz="200", steps="30", extra_env=None):
    spool = os.path.join(work, "spool-" + mode)
    clean(spool)
    env = dict(os.environ, PYTHONPATH=hook_dir + os.pathsep + fake_torch, GPUWHY_PY_SPOOL_DIR=spool,
               GPUWHY_PY_SAMPLE_HZ=hz)
    env.update(extra_env or {})
    # 40 ms a step: the step's few GIL releases outside the activity (the optimizer hook's write) draw a sample
    # each where the loop holds the GIL in between (a sampler inside the process waits for the GIL)
    out = subprocess.run([sys.executable, PROG, mode, steps, "40"], env=env, capture_output=True, text=True, timeout=60)
    if out.returncode != 0 or out.stdout.strip() != "done " + mode or "gpuwhy" in out.stderr:
        failures.append("%s: exit %d, stdout %r, stderr %r" % (mode, out.returncode, out.stdout, out.stderr))
    files = {}
    for name in os.listdir(spool):
        with open(os.path.join(spool, name)) as f:
            files[name] = [line.rstrip("\n").split("\t") for line in f]
    return files


def samples_of(lines):
    frames = {int(v[1]): v for v in lines if v[0] == "F"}
    return [(NAMES[int(v[3])], frames[int(v[4])][4] if int(v[4]) >= 0 else None) for v in lines if v[0] == "P"], \
        [v for v in lines if v[0] == "E" and v[2] == "py_sampler"]


for mode, (want, func) in EXPECT.items():
    files = run(mode)
    lines = [v for f in files.values() for v in f]
    samples, cost = samples_of(lines)
    if len(samples) < 40:
        failures.append("%s: %d samples, expected about 240 at 200 Hz" % (mode, len(samples)))
        continue
    acts = collections.Counter(a for a, _ in samples)
    share = acts[want] / len(samples)
    funcs = collections.Counter(f for a, f in samples if a == want)
    top_func = funcs.most_common(1)[0][0] if funcs else None
    print("%-14s %4d samples  %-16s %3.0f%%  frame %-18s  %s" % (mode, len(samples), want, 100 * share, top_func,
                                                               dict(acts.most_common(3))))
    if share < 0.7:
        failures.append("%s: %.0f%% %s, expected at least 70%%: %s" % (mode, 100 * share, want, dict(acts)))
    if top_func != func:
        failures.append("%s: innermost user frame %r, expected %r" % (mode, top_func, func))
    if len(cost) != 1 or int(cost[0][3]) <= 0 or cost[0][4] != "samples=%d" % len(samples):
        failures.append("%s: py_sampler line %r for %d samples" % (mode, cost, len(samples)))
    # every P line names a frame defined before it, or -1
    seen = set()
    for v in lines:
        if v[0] == "F":
            seen.add(int(v[1]))
        elif v[0] == "P" and int(v[4]) != -1 and int(v[4]) not in seen:
            failures.append("%s: sample before its frame: %r" % (mode, v))
            break

# off: the steps, no sample
lines = [v for f in run("idle", hz="0", steps="10").values() for v in f]
if any(v[0] in "FP" for v in lines) or sum(v[0] == "S" for v in lines) != 10:
    failures.append("GPUWHY_PY_SAMPLE_HZ=0: %d sample lines, %d steps" % (sum(v[0] == "P" for v in lines),
                                                                         sum(v[0] == "S" for v in lines)))
# a program that imports torch and never trains (the sampler's triggers never run)
spool = os.path.join(work, "spool-notrain")
clean(spool)
env = dict(os.environ, PYTHONPATH=hook_dir + os.pathsep + fake_torch, GPUWHY_PY_SPOOL_DIR=spool,
           GPUWHY_PY_SAMPLE_HZ="200")
subprocess.run([sys.executable, "-c", "import torch, time; time.sleep(0.3)"], env=env, check=True, timeout=60)
if os.listdir(spool):
    failures.append("a program without training wrote %s" % os.listdir(spool))
# a forked child that fetches batches (as a DataLoader worker would run a loop) samples nothing
spool = os.path.join(work, "spool-fork")
clean(spool)
env["GPUWHY_PY_SPOOL_DIR"] = spool
code = """
import os, time, torch
opt = torch.optim.SGD([])
opt.step()
pid = os.fork()
if pid == 0:
    it = iter(torch.utils.data.DataLoader(20, delay_s=0.01))
    for b in it:
        opt.step()
    os._exit(0)
os.waitpid(pid, 0)
time.sleep(0.2)
"""
subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
per_file = {name: open(os.path.join(spool, name)).read() for name in os.listdir(spool)}
child_p = [n for n, t in per_file.items() if "\nP\t" not in "\n" + t and t.count("\nS\t") + t.startswith("S\t") >= 20]
parent_p = [n for n, t in per_file.items() if "\nP\t" in "\n" + t]
if len(per_file) != 2 or len(child_p) != 1 or len(parent_p) != 1:
    failures.append("fork: files %r" % {n: t.count("\n") for n, t in per_file.items()})

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
