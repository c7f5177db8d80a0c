#!/usr/bin/env bash
# gpuwhy record samples where each thread of the job is (--thread-hz, 20 by
# default): a Python rank whose main thread computes, a helper thread asleep
# on an Event, and two forked workers: one named pt_data_worker (as PyTorch
# names DataLoader workers) sleeping in time.sleep, one keeping the rank's
# name blocked on a multiprocessing queue (a pipe). Roles come from names and
# ancestry; states and waits from /proc. --thread-hz 0 records none.
. "$(dirname "$0")/lib.bash"
export GPUWHY_NVML_LIB=/nonexistent/libnvidia-ml.so.1
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }

cat >job.py <<'PY'
import multiprocessing as mp, threading, time
RUN_S = 2.5
def sleeper():
    with open("/proc/self/comm", "w") as f:
        f.write("pt_data_worker")
    end = time.time() + RUN_S
    while time.time() < end:
        time.sleep(0.05)
def queue_reader(q):
    q.get()
if __name__ == "__main__":
    mp.set_start_method("fork")
    q = mp.Queue()
    a = mp.Process(target=sleeper)
    b = mp.Process(target=queue_reader, args=(q,))
    a.start(); b.start()
    with open("pids.txt", "w") as f:
        f.write(f"{a.pid} {b.pid}\n")
    ev = threading.Event()
    helper = threading.Thread(target=ev.wait); helper.start()
    end, x = time.time() + RUN_S, 0
    while time.time() < end:
        x += 1
    q.put(None); ev.set(); helper.join(); a.join(); b.join()
PY

"$GW_BIN" record --no-python-hook -o r.db -- python3 job.py 2>err.txt || fail "record exited $?: $(cat err.txt)"
read -r sleeper reader <pids.txt
main=$(q r.db 'select target_pid from run')
assert_eq "sampling rate on record" "$(q r.db "select value from meta where key = 'thread_sampling_hz'")" 20
assert_eq "the rank's main thread" "$(q r.db "select role from thread_info where tid = $main")" 1
assert_eq "the named worker" "$(q r.db "select role || ' ' || comm from thread_info where tid = $sleeper")" \
  "3 pt_data_worker"
assert_eq "the forked worker, by ancestry" "$(q r.db "select role, pid = tid from thread_info where tid = $reader")" \
  "3|1"
assert_ge "helper threads of the rank (the Event waiter)" \
  "$(q r.db "select count(*) from thread_info where pid = $main and tid != $main and role = 6")" 1
assert_eq "samples of threads never described" \
  "$(q r.db 'select count(*) from thread_sample where tid not in (select tid from thread_info)')" 0

# The main thread at 20 Hz for about 2.5 s; computing, so running.
n_main=$(q r.db "select count(*) from thread_sample where tid = $main")
assert_ge "main thread samples" "$n_main" 35
assert_ge "main thread samples running (%)" \
  "$(q r.db "select 100 * sum(state = 1 and wait = 0) / count(*) from thread_sample where tid = $main")" 80
# One time per tick: the samples of one thread are about 50 ms apart.
assert_ge "main thread sampling rate (Hz)" \
  "$(q r.db "select count(*) * 1e9 / (max(t_ns) - min(t_ns)) from thread_sample where tid = $main")" 15
# Workers: found within a second of their start, then every tick.
assert_ge "sleeper samples" "$(q r.db "select count(*) from thread_sample where tid = $sleeper")" 20
assert_ge "sleeper in clock_nanosleep (%)" \
  "$(q r.db "select 100 * sum(state = 2 and wait = 6) / count(*) from thread_sample where tid = $sleeper")" 80
assert_ge "queue reader on its pipe (%)" \
  "$(q r.db "select 100 * sum(state = 2 and wait = 4) / count(*) from thread_sample where tid = $reader")" 80
# The sleeper wakes every 50 ms, so it runs between most samples: its system
# call alone says where it is, and its CPU time comes at every fourth sample
# (NULL between); known values never go back.
assert_ge "sleeper samples with their CPU time (%)" \
  "$(q r.db "select 100 * count(cpu_ns) / count(*) from thread_sample where tid = $sleeper")" 20
assert_eq "sleeper CPU time going back" "$(q r.db "select count(*) from (select cpu_ns - lag(cpu_ns) over (order by t_ns)
  as d from thread_sample where tid = $sleeper and cpu_ns is not null) where d < 0")" 0
# The Event waiter sleeps in a futex; a helper, so every fifth tick only.
helper_sql="select tid from thread_info where pid = $main and tid != $main and role = 6"
assert_ge "helper samples in a futex (%)" \
  "$(q r.db "select 100 * sum(wait = 1) / count(*) from thread_sample where tid in ($helper_sql)")" 80
[ "$(q r.db "select count(*) from thread_sample where tid in ($helper_sql)")" -lt "$n_main" ] ||
  fail "helper threads sampled as often as the main thread"
q r.db "select value from meta where key = 'recorder_cpu_thread_sampler_s'" | grep -q . ||
  fail "the sampler's own CPU time is not on record"

# Off: no rows and no rate on record.
"$GW_BIN" record --thread-hz 0 -o off.db -- sleep 0.3 2>err.txt || fail "record --thread-hz 0 exited $?"
assert_eq "rows with --thread-hz 0" "$(q off.db 'select count(*) from thread_sample')" 0
assert_eq "rate with --thread-hz 0" "$(q off.db "select count(*) from meta where key = 'thread_sampling_hz'")" 0
"$GW_BIN" record --thread-hz -1 -o bad.db -- true 2>err.txt && fail "--thread-hz -1 accepted"
grep -q -- "--thread-hz" err.txt || fail "no word on a bad --thread-hz: $(cat err.txt)"
echo "record_threads passed"

# A job with more threads than the recorder may keep descriptors for (ulimit
# -n 64: half of it for kept files): every thread is still sampled, the rest
# through a file opened for each read.
cat >many.py <<'PY'
import threading, time
ev = threading.Event()
ts = [threading.Thread(target=ev.wait) for _ in range(60)]
for t in ts: t.start()
time.sleep(2.5)
ev.set()
PY
(ulimit -n 64 && "$GW_BIN" record --no-python-hook -o many.db -- python3 many.py) 2>err.txt ||
  fail "record under ulimit -n 64 exited $?: $(cat err.txt)"
# the target's own threads (a launcher such as a pyenv shim may run short-lived children of its own)
job="(select target_pid from run)"
assert_eq "threads described under ulimit -n 64" "$(q many.db "select count(distinct tid) from thread_info where pid = $job")" 61
assert_eq "threads sampled under ulimit -n 64" \
  "$(q many.db "select count(distinct tid) from thread_sample where tid in (select tid from thread_info where pid = $job)")" 61
