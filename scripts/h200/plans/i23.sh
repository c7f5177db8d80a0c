#!/usr/bin/env bash
# Issue 23 on one H200 (at most 9 minutes): the tracer as a good guest.
#  (a) Coexistence: bench/tracer/profiler_mid_run.py runs torch.profiler for 10 steps mid-run; its own kernel
#      count alone, under record --trace=sampled with windows open 95% of the time (so one is open when the
#      profiler starts), under --trace=full, full with Kineto's TEARDOWN_CUPTI=1 (Kineto leaves after its session:
#      gpuwhy should come back), and full without the LD_PRELOAD hook (GPUWHY_TRACE_PRELOAD=0: the old conflict).
#  (b) Window pause: the storm in sampled mode, 100 ms windows every 500 ms for 20 s, CUPTI kept attached (the
#      new default) and detaching (GPUWHY_TRACE_DETACH=1): p50/p99/max of each edge (bench/tracer/edges.py), and
#      the steps inside/outside windows, before/after the first (bench/tracer/windows.py).
#  (c) Full mode's cost: bench/tracer/run.sh, storm and transformer step, plain / kernel records only / full
#      (API activity records) / full (API calls from callbacks) / torch.profiler, interleaved, 2 rounds x 6 s.
# usage: scripts/h200/plans/i23.sh OUTDIR   (from the repo root; build-dev/ prebuilt in Release)
set -u
out=${1:?usage: i23.sh OUTDIR}
mkdir -p "$out/bench" "$out/rec"
bin=build-dev/gpuwhy
export GPUWHY_TRACER_LIB=${GPUWHY_TRACER_LIB:-$PWD/build-dev/tracer/libgpuwhy-tracer.so}
log=$out/log.txt
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }
q() { python3 scripts/dbq.py "$@" 2> /dev/null; }
{
  echo "i23 plan $(date -u) on $(hostname); commit $(git rev-parse --short HEAD 2> /dev/null)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'
  ls -l "$bin" "$GPUWHY_TRACER_LIB"
} >> "$log" 2>&1

# ---- (a) Coexistence ----------------------------------------------------------------------------------------
coex=$out/coexist.txt
prog=(python3 bench/tracer/profiler_mid_run.py --before-s 4 --steps 10 --after-s 4)
# shellcheck source=scripts/h200/lib/coexist_describe.sh
. scripts/h200/lib/coexist_describe.sh
{
  echo "== (a) Coexistence: torch.profiler for 10 steps mid-run (expected kernels = 10 x 100) =="
  line=$(timeout 90 "${prog[@]}" 2>> "$log" | tail -1)
  coexist_describe none "alone" "$line"
  line=$(GPUWHY_TRACE_WINDOW_MS=1900 GPUWHY_TRACE_PERIOD_MS=2000 GPUWHY_TRACE_FIRST_DELAY_MS=1000 \
    timeout 90 "$bin" record -q --trace=sampled -o "$out/rec/coexist_sampled.db" -- "${prog[@]}" 2>> "$log" | tail -1)
  coexist_describe "$out/rec/coexist_sampled.db" "sampled, windows 1900 of every 2000 ms" "$line"
  line=$(timeout 90 "$bin" record -q --trace=full -o "$out/rec/coexist_full.db" -- "${prog[@]}" 2>> "$log" | tail -1)
  coexist_describe "$out/rec/coexist_full.db" "full" "$line"
  line=$(TEARDOWN_CUPTI=1 timeout 90 "$bin" record -q --trace=full -o "$out/rec/coexist_full_teardown.db" -- "${prog[@]}" 2>> "$log" | tail -1)
  coexist_describe "$out/rec/coexist_full_teardown.db" "full, Kineto TEARDOWN_CUPTI=1" "$line"
  line=$(GPUWHY_TRACE_PRELOAD=0 timeout 90 "$bin" record -q --trace=full -o "$out/rec/coexist_full_nohook.db" -- "${prog[@]}" 2>> "$log" | tail -1)
  coexist_describe "$out/rec/coexist_full_nohook.db" "full without the LD_PRELOAD hook (the old behaviour)" "$line"
  echo "(a) done at $(elapsed) s"
} > "$coex" 2>&1
cat "$coex" >> "$log"

# ---- (b) Window pause -----------------------------------------------------------------------------------------
pause=$out/pause.txt
{
  echo "== (b) Window pause: storm, sampled, 100 ms windows every 500 ms, 20 s =="
  for mode in attached detach; do
    detach=0
    [ $mode = detach ] && detach=1
    db=$out/rec/pause_$mode.db
    line=$(GPUWHY_TRACE_DETACH=$detach GPUWHY_TRACE_WINDOW_MS=100 GPUWHY_TRACE_PERIOD_MS=500 GPUWHY_TRACE_FIRST_DELAY_MS=500 \
      timeout 120 "$bin" record -q --trace=sampled -o "$db" -- taskset -c 2,3 python3 bench/tracer/storm.py --seconds 20 \
      --chunks-out "$out/rec/chunks_$mode.txt" 2>> "$log" | tail -1)
    echo "$mode (GPUWHY_TRACE_DETACH=$detach): $line"
    python3 bench/tracer/edges.py "$db" "$mode"
    python3 bench/tracer/windows.py "$out/rec/chunks_$mode.txt" "$db"
  done
  # The callback path's API records must join the kernels as the activity path's do (correlation ids).
  for path in activity callback; do
    db=$out/rec/api_$path.db
    GPUWHY_TRACE_API_PATH=$path timeout 60 "$bin" record -q --trace=full -o "$db" -- python3 bench/tracer/storm.py --seconds 3 \
      >> "$log" 2>&1
    echo "full, API path $path: kernels $(q "$db" 'select count(*) from kernel'), api $(q "$db" 'select count(*) from api')," \
      "kernels whose correlation has an API record $(q "$db" 'select count(*) from kernel where correlation in (select correlation from api)')," \
      "dropped $(q "$db" 'select max(cupti_dropped_records) from trace_dropped')"
  done
  echo "(b) done at $(elapsed) s"
} > "$pause" 2>&1
cat "$pause" >> "$log"

# ---- (c) Full mode's cost -------------------------------------------------------------------------------------
left=$((530 - $(elapsed)))
echo "(c) starts at $(elapsed) s, $left s left" >> "$log"
if [ "$left" -gt 120 ]; then
  GW_BENCH_CONFIGS="plain full_kernels full full_cb profiler" timeout "$left" \
    bash bench/tracer/run.sh "$bin" "$out/bench" 2 6 >> "$log" 2>&1
  echo "(c) exit $? at $(elapsed) s" >> "$log"
else
  echo "(c) skipped: not enough time left" >> "$log"
fi
rm -f "$out/bench/"*.db*
tar -C "$out" -cf "$out/recordings.tar" rec 2>> "$log" && rm -rf "$out/rec"
echo "plan done at $(elapsed) s" >> "$log"
