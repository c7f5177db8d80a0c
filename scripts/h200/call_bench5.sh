#!/usr/bin/env bash
# Device call: bench/tracer with CUPTI detached between sampled windows
# (3 rounds x 12 s, two cores), then a stress of the detach: the training
# step with a window every second (10 attach/detach cycles), reported.
# usage: scripts/h200/call_bench5.sh OUT
set -u
out=$1
bin=$PWD/build-dev/gpuwhy
export PYTHONUNBUFFERED=1
bash bench/tracer/run.sh "$bin" "$out/bench" 3 12 2>&1 | tail -12
w=/tmp/gw_b5 && rm -rf "$w" && mkdir -p "$w"
GPUWHY_TRACE_WINDOW_MS=100 GPUWHY_TRACE_PERIOD_MS=1000 GPUWHY_TRACE_FIRST_DELAY_MS=3000 \
  "$bin" record --trace=sampled -o "$w/s.db" -- taskset -c 2,3 python3 bench/tracer/storm.py --workload train \
  --seconds 12 --chunks-out "$w/c.txt" > "$out/stress.txt" 2>&1
echo "exit $?" >> "$out/stress.txt"
python3 bench/tracer/windows.py "$w/c.txt" "$w/s.db" >> "$out/stress.txt" 2>&1
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print("windows", c.execute("select count(*) from trace_window").fetchone()[0], "kernels", c.execute("select count(*) from kernel").fetchone()[0], "notes", c.execute("select count(*) from trace_note").fetchone()[0] if c.execute("select count(*) from sqlite_master where name=\"trace_note\"").fetchone()[0] else "-")' "$w/s.db" >> "$out/stress.txt" 2>&1
"$bin" report "$w/s.db" > "$out/stress_report.txt" 2>&1
echo "report exit $?" >> "$out/stress.txt"
cat "$out/stress.txt"
