#!/usr/bin/env bash
# Issue 23, second round on one H200: a window end that does not pause the program, and full mode's cost.
# usage: scripts/h200/plans/i23b.sh OUTDIR [pause|full|all]   (from the repo root; build-dev/ prebuilt in Release)
#   pause (about 4 minutes):
#     (a) Window pause: sampled mode, 100 ms windows every 500 ms, the first after 3 s, 8 s of steps, for each way
#         to end a window (GPUWHY_TRACE_WINDOW_END = detach_own, the candidate default; detach, the default; quiet;
#         keep) on the storm and on the transformer step, with storm.py --probe-out timing the program's thread:
#         bench/tracer/edges.py (the tracer's edge notes: program-thread time, tracer-thread time),
#         bench/tracer/edge_stall.py (the program's own slowest launch / step around each window edge against
#         mid-gap spans) and bench/tracer/windows.py (steps inside/outside windows, and the median chunk before the
#         first window against outside windows after it: the slowdown a window leaves behind).
#     (b) Coexistence under detach_own (the candidate default; set explicitly): bench/tracer/profiler_mid_run.py (torch.profiler for 10 steps mid-run)
#         alone, under record --trace (sampled, windows open 95% of the time) and under --trace=full.
#   full (at most 9 minutes): full mode interleaved, plain / kernel records only (GPUWHY_TRACE_API=none) / full,
#     API activity records / full, API calls from callbacks / torch.profiler, each process running 2 s of the storm
#     then 2 s of the transformer step (storm.py --workload both; torch.profiler 1 s each, it keeps every event),
#     the order of the arms rotated every round; as many rounds as fit (8 planned), then bench/tracer/rounds.py:
#     best-of-N and mean per arm with 95% intervals, and the points above the kernel-records floor. First,
#     tracer/tools/callback_cost.c (built here with cc): the tracer's own ns per call on the callback path.
#   all (default): pause, then as many full rounds as fit in 9 minutes in total (fewer than 8: run full alone too).
# Output (plain files under OUTDIR): log.txt, pause.txt, coexist.txt, full.txt, full_summary.txt, recordings.tar.
set -u
out=${1:?usage: i23b.sh OUTDIR [pause|full|all]}
part=${2:-all}
mkdir -p "$out/rec"
bin=build-dev/gpuwhy
export GPUWHY_TRACER_LIB=${GPUWHY_TRACER_LIB:-$PWD/build-dev/tracer/libgpuwhy-tracer.so}
log=$out/log.txt
budget_s=530 # 9 minutes less a margin for the tar at the end
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }
q() { python3 scripts/dbq.py "$@" 2> /dev/null; }
pin="taskset -c ${GW_BENCH_CPUS:-2,3}"
command -v taskset > /dev/null || pin=""
{
  echo "i23b plan ($part) $(date -u) on $(hostname); commit $(git rev-parse --short HEAD 2> /dev/null)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'
  ls -l "$bin" "$GPUWHY_TRACER_LIB"
  grep -m1 . /sys/devices/system/clocksource/clocksource0/current_clocksource 2> /dev/null | sed 's/^/clocksource /'
} >> "$log" 2>&1

# ---- pause ------------------------------------------------------------------------------------------------------
if [ "$part" = pause ] || [ "$part" = all ]; then
  pause=$out/pause.txt
  {
    echo "== (a) Window pause: sampled, 100 ms windows every 500 ms, first after 3 s, 8 s of steps, pinned to 2,3 =="
    for w in storm train; do
      for mode in detach_own detach quiet keep; do
        db=$out/rec/pause_${w}_$mode.db
        line=$(GPUWHY_TRACE_WINDOW_END=$mode GPUWHY_TRACE_WINDOW_MS=100 GPUWHY_TRACE_PERIOD_MS=500 \
          GPUWHY_TRACE_FIRST_DELAY_MS=3000 timeout 90 "$bin" record -q --trace=sampled -o "$db" -- \
          $pin python3 bench/tracer/storm.py --workload "$w" --seconds 8 --chunks-out "$out/rec/chunks_${w}_$mode.txt" \
          --probe-out "$out/rec/probe_${w}_$mode.txt" 2>> "$log" | tail -1)
        echo "-- $w, GPUWHY_TRACE_WINDOW_END=$mode: $line (at $(elapsed) s)"
        python3 bench/tracer/edges.py "$db" "$w $mode" 2>&1
        python3 bench/tracer/edge_stall.py "$db" "$out/rec/probe_${w}_$mode.txt" "$w $mode" 2>&1
        python3 bench/tracer/windows.py "$out/rec/chunks_${w}_$mode.txt" "$db" 2>&1
        q "$db" "select '  note ' || level || ': ' || text from trace_note where level != 'info' or text like '%instead%' or text like 'CUDA graphs%'"
        q "$db" "select '  kernels in windows ' || count(*) from kernel"
      done
    done
    echo "(a) done at $(elapsed) s"
  } > "$pause" 2>&1
  cat "$pause" >> "$log"

  coex=$out/coexist.txt
  prog=(python3 bench/tracer/profiler_mid_run.py --before-s 4 --steps 10 --after-s 3)
  # shellcheck source=scripts/h200/lib/coexist_describe.sh
  . scripts/h200/lib/coexist_describe.sh
  {
    echo "== (b) Coexistence with detach_own (the candidate default window end): torch.profiler for 10 steps mid-run (expected kernels = 10 x 100) =="
    line=$(timeout 90 "${prog[@]}" 2>> "$log" | tail -1)
    coexist_describe none "alone" "$line"
    line=$(GPUWHY_TRACE_WINDOW_END=detach_own GPUWHY_TRACE_WINDOW_MS=1900 GPUWHY_TRACE_PERIOD_MS=2000 \
      GPUWHY_TRACE_FIRST_DELAY_MS=1000 timeout 90 "$bin" record -q --trace=sampled -o "$out/rec/coexist_sampled.db" -- "${prog[@]}" 2>> "$log" | tail -1)
    coexist_describe "$out/rec/coexist_sampled.db" "sampled (detach_own window end), windows 1900 of every 2000 ms" "$line"
    line=$(timeout 90 "$bin" record -q --trace=full -o "$out/rec/coexist_full.db" -- "${prog[@]}" 2>> "$log" | tail -1)
    coexist_describe "$out/rec/coexist_full.db" "full" "$line"
    echo "(b) done at $(elapsed) s"
  } > "$coex" 2>&1
  cat "$coex" >> "$log"
fi

# ---- full ---------------------------------------------------------------------------------------------------------
if [ "$part" = full ] || [ "$part" = all ]; then
  res=$out/full.txt
  : > "$res"
  # The tracer's own part of one call on the callback path, and the clock read it makes twice (the fake libcupti
  # plays CUPTI; CUPTI's dispatch is not in it): tracer/tools/callback_cost.c, built here.
  cuda=${CUDA_HOME:-/usr/local/cuda}
  cc -std=gnu11 -O2 -shared -fPIC -I"$cuda/include" tracer/fake_cupti.c -o "$out/rec/libcupti-fake.so" >> "$log" 2>&1 &&
    cc -std=gnu11 -O2 -I"$cuda/include" tracer/tools/callback_cost.c -ldl -o "$out/rec/callback_cost" >> "$log" 2>&1 &&
    timeout 30 "$out/rec/callback_cost" "$GPUWHY_TRACER_LIB" "$out/rec/libcupti-fake.so" 10 >> "$res" 2>&1
  rm -f "$out/rec/libcupti-fake.so" "$out/rec/callback_cost"
  arms=(plain full_kernels full full_cb profiler)
  run_arm() { # round arm
    local py=(python3 bench/tracer/storm.py --workload both --seconds 2) db=$out/rec/full_$2.db
    case $2 in
      plain) $pin "${py[@]}" ;;
      profiler) $pin python3 bench/tracer/storm.py --workload both --seconds 1 --profiler 2> /dev/null ;;
      full_kernels) GPUWHY_TRACE_API=none "$bin" record -q --trace=full -o "$db" -- $pin "${py[@]}" ;;
      full) "$bin" record -q --trace=full -o "$db" -- $pin "${py[@]}" ;;
      full_cb) GPUWHY_TRACE_API_PATH=callback "$bin" record -q --trace=full -o "$db" -- $pin "${py[@]}" ;;
    esac 2>> "$log" | grep '^workload ' | sed "s/^workload /round $1 /; s/^\(round $1 [a-z]*\) /\1 $2 /"
    rm -f "$db"*
  }
  round_s=0
  for r in 1 2 3 4 5 6 7 8 9 10; do
    t_round=$(date +%s)
    left=$((budget_s - $(elapsed)))
    if [ "$r" -gt 8 ] || { [ "$round_s" -gt 0 ] && [ "$left" -lt "$round_s" ]; } || [ "$left" -lt 60 ]; then
      echo "full: stopped before round $r at $(elapsed) s ($left s left, a round took $round_s s)" >> "$log"
      break
    fi
    for i in 0 1 2 3 4; do # the order rotates: each arm takes each place in turn
      arm=${arms[$(((i + r - 1) % 5))]}
      timeout 60 bash -c "$(declare -f run_arm); out='$out' bin='$bin' pin='$pin' log='$log'; run_arm $r $arm" >> "$res"
    done
    round_s=$(($(date +%s) - t_round))
    echo "full: round $r took $round_s s (at $(elapsed) s)" >> "$log"
  done
  python3 bench/tracer/rounds.py "$res" > "$out/full_summary.txt" 2>&1
  cat "$out/full_summary.txt" >> "$log"
fi

tar -C "$out" -cf "$out/recordings.tar" rec 2>> "$log" && rm -rf "$out/rec"
echo "plan done at $(elapsed) s" >> "$log"
