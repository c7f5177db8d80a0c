#!/usr/bin/env bash
# Issue 22 on one H200 (at most 8 minutes): the tracer's PM sampling after the exit fix.
#  A. exits: bench/tracer/storm.py (train: the transformer step; storm) under
#     record --trace --pm-sampling, 6 s each: exit status, stderr scanned for
#     heap and signal messages, the tracer's "PM sampling stopped" note (Stop,
#     Disable and host deinitialise statuses), pm_sample rows. The first run
#     also logs every exit handler's registration and run
#     (scripts/h200/exit_order_shim.c) and each PM call
#     (GPUWHY_TRACE_PM_VERBOSE=1); one without the Python hook (the C exit
#     handler path); then the first versions' exit steps
#     (GPUWHY_TRACE_PM_EXIT_AS_BEFORE=order,free,release, then order alone),
#     which crashed on 2026-12-01 and tell which step broke the heap.
#  B. cost: the transformer step under the tracer (CUDA_INJECTION64_PATH, no
#     recorder, so the C exit handler stops the sampler) without and with PM
#     sampling, interleaved (order swapped every round), 10 rounds of 5 s:
#     steady-state step time from 2.5 s on (the sampler starts 1 s after
#     CUDA's), paired ratio with a 95% interval and best-of-N (target: at
#     most 3%); each PM run's exit is checked as in A.
#  C. agreement: two scenarios recorded with --trace --pm-sampling and GPM on
#     (healthy: busy; input_cpu_transforms: the GPU waits on DataLoader
#     workers, forked after CUDA started; 12 s of steady state), with A's
#     transformer step and storm four workloads; scripts/h200/sm_compare.py
#     per GPM window (target: median absolute difference at most 10 points).
# Files under OUT: exits.txt, exit_order.txt, cost.txt, sm_compare.txt,
# sm_compare.json, summary.txt, recordings.tar.gz (and pmcost2.log from run.sh).
# usage: scripts/h200/run.sh pmcost2 OUT   (from the repo root; no set -e)
set -u
out=${1:?usage: pmcost2.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=${GW_BIN:-build-dev/gpuwhy}
tracer=$PWD/${GW_TRACER:-build-dev/tracer/libgpuwhy-tracer.so}
py=${PYTHON:-python3}
work=$(mktemp -d /tmp/pmcost2.XXXXXX)
recs=$work/recordings
mkdir -p "$recs"
exits=$out/exits.txt cost=$out/cost.txt
: > "$exits"
: > "$cost"
: > "$out/exit_order.txt"
start_s=$(date +%s)
budget_s=${PMCOST2_BUDGET_S:-400} # no run starts after this: a run (at most 45 s), the summary and the tar fit in 8 minutes
say() { echo "[$(date -u +%H:%M:%S) +$(($(date +%s) - start_s))s] $*"; }
late() { [ $(($(date +%s) - start_s)) -gt "$budget_s" ]; }
# The H200 image has no sqlite3 shell: the same queries through Python.
q() { "$py" scripts/dbq.py "$@" 2>&1; }
# What a corrupted heap, a crash or a hung stop leaves on stderr.
problems='malloc\(\)|free\(\)|double free|corrupted|munmap_chunk|Segmentation|core dumped|Aborted|SIGSEGV|SIGABRT|Sanitizer|did not stop'

export GPUWHY_TRACER_LIB=$tracer
say "gpuwhy $($bin --version 2>&1 | head -1); tracer $tracer"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
shim=$work/exit_order_shim.so
cc -std=gnu11 -O1 -shared -fPIC -o "$shim" scripts/h200/exit_order_shim.c -ldl || { say "shim build failed"; shim=; }

# One line per run: RUN name expect rc problems pm_rows, then its details indented.
put_run() { # put_run NAME EXPECT RC ERRFILE NOTES PM_ROWS
  local n_problems
  n_problems=$(grep -E -c "$problems" "$4" 2>/dev/null)
  printf 'RUN\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${n_problems:-0}" "$6" >> "$exits"
  { printf '%s\n' "$5" | sed 's/^/  note: /'
    grep -a "gpuwhy-tracer pm: stop:" "$4" | sed 's/^/  /'
    grep -E "$problems" "$4" | head -5 | sed 's/^/  problem: /'
    tail -n 12 "$4" | sed 's/^/  stderr: /'; } >> "$exits"
  say "$1 ($2): exit $3, ${n_problems:-0} problem lines, $6 pm_sample rows; $(printf '%s' "$5" | grep -a 'stopped' | head -1)"
}

rec_storm() { # rec_storm NAME EXPECT WORKLOAD [ENV=VAL... --] [RECORD_OPTIONS...]
  local name=$1 expect=$2 workload=$3
  shift 3
  local envs=() ropts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  ropts=("$@")
  if late; then say "$name: skipped, out of time"; return; fi
  local db=$recs/$name.db err=$work/$name.err
  rm -f "$db"*
  env "${envs[@]}" timeout -k 5 40 "$bin" record -q --trace --pm-sampling "${ropts[@]}" -o "$db" -- \
    "$py" bench/tracer/storm.py --workload "$workload" --seconds 6 > "$work/$name.out" 2> "$err"
  local rc=$?
  put_run "$name" "$expect" "$rc" "$err" \
    "$(q "$db" "select level || ': ' || text from trace_note where text like '%PM%'")" \
    "$(q "$db" 'select count(*) from pm_sample')"
}

# A. Exits.
say "A. exits under record --trace --pm-sampling"
rec_storm A1_train clean train GPUWHY_TRACE_PM_VERBOSE=1 ${shim:+LD_PRELOAD=$shim EXIT_ORDER_LOG=$out/exit_order.txt} --
rec_storm A2_storm clean storm
rec_storm A3_train_nohook clean train GPUWHY_TRACE_PM_VERBOSE=1 -- --no-python-hook
rec_storm A4_train_as_before_all old train GPUWHY_TRACE_PM_VERBOSE=1 GPUWHY_TRACE_PM_EXIT_AS_BEFORE=order,free,release --
rec_storm A5_train_as_before_order old train GPUWHY_TRACE_PM_VERBOSE=1 GPUWHY_TRACE_PM_EXIT_AS_BEFORE=order --

# B. Cost: the transformer step under the tracer, without and with PM sampling.
say "B. cost, interleaved rounds"
for r in $(seq 1 "${PMCOST2_ROUNDS:-10}"); do
  order="trace trace_pm"
  [ $((r % 2)) -eq 0 ] && order="trace_pm trace"
  for cfg in $order; do
    if late; then say "round $r $cfg: skipped, out of time"; continue; fi
    tdir=$work/trace_${cfg}_$r
    mkdir -p "$tdir"
    pm=0
    [ "$cfg" = trace_pm ] && pm=1
    # The sampler starts 1 s after CUDA's (both configurations alike), well
    # before the 2.5 s from which the summary takes the steady state.
    CUDA_INJECTION64_PATH=$tracer GPUWHY_TRACE_DIR=$tdir GPUWHY_TRACE_MODE=sampled GPUWHY_TRACE_PM_SAMPLING=$pm \
      GPUWHY_TRACE_PM_DELAY_MS=1000 \
      timeout -k 5 30 "$py" bench/tracer/storm.py --workload train --seconds 5 --chunks-out "$work/chunks_${cfg}_$r.txt" \
      > "$work/cost_${cfg}_$r.out" 2> "$work/cost_${cfg}_$r.err"
    rc=$?
    n_problems=$(grep -E -c "$problems" "$work/cost_${cfg}_$r.err")
    stopped=$(grep -a -o -h 'PM sampling stopped[^(]*' "$tdir"/trace-*.gwt 2>/dev/null | head -1)
    echo "RUN round=$r cfg=$cfg rc=$rc problems=$n_problems $(tail -n 1 "$work/cost_${cfg}_$r.out") | $stopped" >> "$cost"
    sed "s/^/CHUNK round=$r cfg=$cfg /" "$work/chunks_${cfg}_$r.txt" >> "$cost" 2>/dev/null
    [ "$pm" = 1 ] && printf 'RUN\tB_round%s_trace_pm\tclean\t%s\t%s\t-\n  note: %s\n' "$r" "$rc" "$n_problems" \
      "$stopped" >> "$exits"
    say "round $r $cfg: exit $rc, $n_problems problem lines, $(tail -n 1 "$work/cost_${cfg}_$r.out")"
  done
done

# C. Agreement with GPM on single-GPU scenarios (A1 and A2 count too).
say "C. scenarios with --trace --pm-sampling, GPM on"
for line in "healthy|healthy.py" "input_cpu_transforms|input_cpu_transforms.py"; do
  name=C_${line%%|*}
  read -r -a argv <<< "${line#*|}"
  if late; then say "$name: skipped, out of time"; continue; fi
  db=$recs/$name.db
  rm -f "$db"*
  timeout -k 5 45 "$bin" record -q --trace --pm-sampling -o "$db" -- "$py" -u "scenarios/${argv[0]}" \
    --out "$work/$name.truth.json" --duration 12 --scenario-name "${line%%|*}" --expected-class none \
    "${argv[@]:1}" > "$work/$name.out" 2> "$work/$name.err"
  rc=$?
  put_run "$name" clean "$rc" "$work/$name.err" \
    "$(q "$db" "select level || ': ' || text from trace_note where text like '%PM%'")" \
    "$(q "$db" 'select count(*) from pm_sample')"
done
"$py" scripts/h200/sm_compare.py --gpuwhy "$bin" --json "$out/sm_compare.json" "$recs"/*.db > "$out/sm_compare.txt" 2>&1
cat "$out/sm_compare.txt"

# The C exit handler's order (A1), in short: which libraries' handlers ran before the tracer's.
if [ -s "$out/exit_order.txt" ]; then
  say "exit handlers that ran in the traced program, in order (A1):"
  awk '/ run #/ {print $1, $NF}' "$out/exit_order.txt" | uniq -c | head -40
fi
"$py" scripts/h200/plans/pmcost2_summary.py "$out" > "$out/summary.txt" 2>&1
cat "$out/summary.txt"
tar -czf "$out/recordings.tar.gz" -C "$work" recordings 2>&1 | tail -2
rm -rf "$work"
say "done"
