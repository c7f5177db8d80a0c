#!/usr/bin/env bash
# The launching threads on the H200 (about 2 minutes): the recorder's proc_sample.launch_threads_cpu_pct (main
# thread + PyTorch's pt_autograd_N threads, found by name) on real programs, and the verdicts that read it.
#  1. launch_tiny_ops (launch-bound, AdamW): the launching threads should read near one core, the verdict
#     launch_overhead as before;
#  2. logging_thread with its helper thread at 90% of a core (healthy transformer, the helper issues no kernels,
#     hands the interpreter lock back between small pieces): the process reads near two cores, the launching
#     threads under one; expected verdict none;
#  3. input_slow_read (DataLoader-bound, workers waiting on reads): launching threads far under a core.
# Plain `gpuwhy record --interval 100` (no trace), 10 s of steady state each, truth files beside them.
# Files under OUT: summary.txt (per recording: medians of process, main-thread and launching-thread CPU over the
# steady window, the share of samples with the launching threads measured, and the verdict), recordings.tar.gz, log.txt.
# usage: scripts/h200/run.sh launch_threads OUT   (from the repo root; build-dev prebuilt; no set -e)
set -u
. scripts/h200/lib/plan_start.sh
plan_start launch_threads "${1:?usage: launch_threads.sh OUT}"
rec=$w/rec
mkdir -p "$rec"
SCN_DURATION=10 SCN_TIMEOUT_EXTRA=45 timeout -k 5 70 bash scenarios/run_suite.sh "$bin" "$rec" launch_tiny_ops >> "$log" 2>&1
say "launch_tiny_ops: rc=$?"
timeout -k 5 70 "$bin" record --interval 100 -o "$rec/logging_thread_busy.db" -- python3 -u scenarios/logging_thread.py \
  --out "$rec/logging_thread_busy.truth.json" --duration 10 --helper-cpu-pct 90 --scenario-name logging_thread_busy \
  > "$w/logging_thread_busy.log" 2>&1
say "logging_thread_busy: rc=$?"
SCN_DURATION=10 SCN_TIMEOUT_EXTRA=45 timeout -k 5 70 bash scenarios/run_suite.sh "$bin" "$rec" input_slow_read >> "$log" 2>&1
say "input_slow_read: rc=$?"
python3 scripts/h200/plans/threads_summary.py "$bin" "$rec"/*.db > "$out/summary.txt" 2>&1
cat "$out/summary.txt"
for db in "$rec"/*.db; do "$bin" report "$db" > "${db%.db}.report.txt" 2>&1; done
(cd "$w" && tar -czf "$out/recordings.tar.gz" rec) >> "$log" 2>&1
say "done"
