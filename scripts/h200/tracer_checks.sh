#!/usr/bin/env bash
# Tracer checks on the GPU: a traced program that crashes mid-run, one where
# CUPTI cannot start, one that also runs torch.profiler, and a traced scenario.
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
