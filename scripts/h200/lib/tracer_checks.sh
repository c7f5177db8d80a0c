#!/usr/bin/env bash
# Tracer checks on the GPU: a traced program that crashes mid-run (full and
# sampled mode), one where CUPTI cannot start, one that also runs
# torch.profiler, and a traced scenario.
# usage: tracer_checks.sh GPUWHY_BIN OUTDIR
set -u
bin=$1 out=$2
mkdir -p "$out"
q() { python3 scripts/dbq.py "$@"; }
crash='import os, time, torch
x = torch.randn(64, 64, device="cuda")
t = time.time()
while time.time() - t < 3:
    for _ in range(100):
        x = x * 0.5 + 1
    torch.cuda.synchronize()
os.kill(os.getpid(), 11)'
"$bin" record -q --trace=full -o "$out/crash.db" -- python3 -c "$crash"
echo "crash: exit $? (expect 139); kernels $(q "$out/crash.db" 'select count(*) from kernel'); samples $(q "$out/crash.db" 'select count(*) from gpu_sample'); run.exit_status $(q "$out/crash.db" 'select exit_status from run'); notes: $(q "$out/crash.db" "select message from event where kind='note'" | head -3)"
# The same crash in sampled mode with a window every second: CUPTI is detached
# and attached again several times before it.
GPUWHY_TRACE_DEBUG=1 GPUWHY_TRACE_WINDOW_MS=100 GPUWHY_TRACE_PERIOD_MS=1000 GPUWHY_TRACE_FIRST_DELAY_MS=500 \
  "$bin" record -q --trace=sampled -o "$out/crash_sampled.db" -- python3 -c "$crash"
echo "sampled crash: exit $? (expect 139); windows $(q "$out/crash_sampled.db" 'select count(*) from trace_window'); kernels $(q "$out/crash_sampled.db" 'select count(*) from kernel'); run.exit_status $(q "$out/crash_sampled.db" 'select exit_status from run'); trace notes: $(q "$out/crash_sampled.db" 'select text from trace_note' | tr '\n' '|')"
GPUWHY_TRACE_CUPTI_LIB=/nonexistent/libcupti.so "$bin" record -q --trace=full -o "$out/nocupti.db" -- python3 -c 'import torch, sys; x = torch.randn(8, device="cuda"); print(float(x.sum())); sys.exit(3)'
echo "no CUPTI: exit $? (expect 3); kernels $(q "$out/nocupti.db" 'select count(*) from kernel'); samples $(q "$out/nocupti.db" 'select count(*) from gpu_sample'); trace notes: $(q "$out/nocupti.db" 'select text from trace_note' | head -2)"
prof='import torch
from torch.profiler import profile, ProfilerActivity
x = torch.randn(256, 256, device="cuda")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
    for _ in range(50):
        x = x @ x
        x = x / x.norm()
    torch.cuda.synchronize()
print("profiler kernels:", sum(1 for e in p.events() if e.device_type.name == "CUDA"))'
"$bin" record -q --trace=full -o "$out/profiler.db" -- python3 -c "$prof" 2>&1 | tail -3
echo "with torch.profiler: exit $?; our kernels $(q "$out/profiler.db" 'select count(*) from kernel'); notes $(q "$out/profiler.db" 'select text from trace_note' | head -2)"
"$bin" record -q --trace=full -o "$out/launch_traced.db" -- python3 scenarios/launch_overhead.py --out "$out/launch_traced.truth.json" --duration 10
echo "traced launch scenario: exit $?; kernels $(q "$out/launch_traced.db" 'select count(*) from kernel'); names $(q "$out/launch_traced.db" 'select count(*) from trace_name'); syncs $(q "$out/launch_traced.db" 'select count(*) from sync'); api $(q "$out/launch_traced.db" 'select count(*) from api'); markers $(q "$out/launch_traced.db" 'select count(*) from marker'); notes $(q "$out/launch_traced.db" 'select text from trace_note' | head -3)"
q "$out/launch_traced.db" 'select count(*), avg(end_ns - start_ns) from kernel'
