#!/usr/bin/env python3
"""The thread sampler's cost: gpuwhy record's own CPU time with --thread-hz 20 against --thread-hz 0, on a job of
2 "ranks" with 16 DataLoader-like worker processes each (plain multiprocessing, workers named pt_data_worker through
/proc/self/comm as PyTorch names them), in interleaved rounds (the order within a round alternates), with the mean
difference and its 95% t interval per second of recording, as a share of one core. Acceptance (issue 34): at most
0.5% of a core.

The recorder's CPU time is its own (every thread, the sampler's included; not the job's): getrusage(RUSAGE_SELF) at
the end of the run, which record puts in the meta table (recorder_cpu_user_s + recorder_cpu_system_s), over the run's
length (run.ended_ns - started_ns). Standard library only.

usage: bench/sampler/thread_cost.py GPUWHY_BIN [ROUNDS] [SECONDS] [OTHER_BIN]

OTHER_BIN: another build, run at 20 Hz in the same rounds (a third run each, the order rotating), with its own
difference to GPUWHY_BIN's --thread-hz 0: two versions of the sampler side by side on one machine.
Environment: WORKERS per rank (default 16).
"""
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tracer"))
from stats_ci import mean_ci  # noqa: E402

RANKS, WORKERS = 2, int(os.environ.get("WORKERS", "16"))

JOB = r'''
import multiprocessing as mp, os, subprocess, sys, time
RUN_S = float(sys.argv[2])
def spin(s):
    end = time.perf_counter() + s
    while time.perf_counter() < end:
        pass
def worker():
    with open("/proc/self/comm", "w") as f:
        f.write("pt_data_worker")
    end = time.time() + RUN_S
    while time.time() < end:  # a loader that mostly waits: 0.2 ms of work every 50 ms
        time.sleep(0.05)
        spin(0.0002)
def rank():
    mp.set_start_method("fork")
    ws = [mp.Process(target=worker) for _ in range(%d)]
    for w in ws:
        w.start()
    end = time.time() + RUN_S
    while time.time() < end:  # a step: 2 ms of launching, 18 ms waiting
        spin(0.002)
        time.sleep(0.018)
    for w in ws:
        w.join()
if sys.argv[1] == "rank":
    rank()
else:  # the launcher: two ranks, each a process of its own command line, as torchrun starts them
    ps = [subprocess.Popen([sys.executable, __file__, "rank", sys.argv[2], str(r)]) for r in range(%d)]
    sys.exit(max(p.wait() for p in ps))
''' % (WORKERS, RANKS)


def one_run(binary, hz, seconds, workdir):
    db = os.path.join(workdir, "hz%d_%s.db" % (hz, os.path.basename(binary)))
    if os.path.exists(db):
        os.remove(db)
    job = os.path.join(workdir, "job.py")
    env = dict(os.environ, GPUWHY_NVML_LIB="/nonexistent/libnvidia-ml.so.1")
    subprocess.run([binary, "record", "-q", "--no-python-hook", "--thread-hz", str(hz), "-o", db, "--",
                    sys.executable, job, "launch", str(seconds)], check=True, env=env)
    con = sqlite3.connect(db)
    meta = dict(con.execute("select key, value from meta"))
    span_s = con.execute("select (ended_ns - started_ns) / 1e9 from run").fetchone()[0]
    threads = con.execute("select count(*) from thread_info").fetchone()[0]
    samples = con.execute("select count(*) from thread_sample").fetchone()[0]
    con.close()
    cpu_s = float(meta["recorder_cpu_user_s"]) + float(meta["recorder_cpu_system_s"])
    sampler_s = float(meta.get("recorder_cpu_thread_sampler_s", "nan"))
    return cpu_s * 1000 / span_s, sampler_s * 1000 / span_s, threads, samples / span_s


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 8
    other = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 else None
    diffs, on, off, inside, other_on, other_diffs = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as workdir:
        with open(os.path.join(workdir, "job.py"), "w") as f:
            f.write(JOB)
        for r in range(rounds):
            arms = [(binary, 20), (binary, 0)] + ([(other, 20)] if other else [])
            arms = arms[r % len(arms):] + arms[:r % len(arms)]
            got = {}
            for b, hz in arms:
                got[(b == other and b != binary, hz)] = one_run(b, hz, seconds, workdir)
            if other:
                other_on.append(got[(True, 20)][0])
                other_diffs.append(got[(True, 20)][0] - got[(False, 0)][0])
            got = {hz: got[(False, hz)] for hz in (20, 0)}
            on.append(got[20][0])
            off.append(got[0][0])
            inside.append(got[20][1])
            diffs.append(got[20][0] - got[0][0])
            print("round %d: recorder %.2f ms/s at 20 Hz, %.2f ms/s off; the sampler's thread %.2f ms/s; "
                  "%d threads seen, %.0f samples/s" % (r + 1, got[20][0], got[0][0], got[20][1], got[20][2],
                                                      got[20][3]), flush=True)
    rows = [("--thread-hz 20", on), ("--thread-hz 0", off), ("the sampler's own thread", inside),
            ("difference (20 - 0)", diffs)]
    if other:
        rows += [("OTHER_BIN --thread-hz 20", other_on), ("OTHER_BIN difference", other_diffs),
                 ("GPUWHY_BIN - OTHER_BIN", [a - b for a, b in zip(on, other_on)])]
    for label, values in rows:
        m, h = mean_ci(values)
        print("%-26s %6.2f ms CPU per s of recording +- %.2f (95%%, %d rounds) = %.3f%% +- %.3f%% of a core" %
              (label, m, h, len(values), m / 10, h / 10))


if __name__ == "__main__":
    main()
