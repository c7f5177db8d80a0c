#!/usr/bin/env bash
# Issue 22, item 2 on one H200 (at most 2 minutes): why did the traced
# programs exit with SIGSEGV under record --trace --pm-sampling?
#  1. builds tracer/tools/pm_probe.c (C, driver API, a PTX kernel: no nvcc,
#     no torch) against the toolkit's CUPTI;
#  2. runs it in eight variants, 3 s each, one process each: the documented
#     sequence, then one difference of the old tracer at a time (setup on a
#     thread without a context, PM sampling set up before the context exists,
#     activity records beside it, cuptiFinalize mid-run, KEEP_OLDEST, the
#     sample's metrics) and all of them together; each call's status, and for
#     a fatal signal the step it came in and a backtrace;
#  3. if the documented sequence works: bench/tracer/storm.py (train, 8 s)
#     under record --trace --pm-sampling with the fixed tracer
#     (GPUWHY_ALLOW_PM_SAMPLING=1 lifts record's refusal for this run only),
#     GPUWHY_TRACE_PM_VERBOSE=1 (each CUPTI call named on stderr before it is
#     made) and Python's faulthandler (the Python stack of every thread on a
#     fatal signal); then the pm_sample rows against GPM's SM activity.
# Files under OUTDIR: pmprobe.log (everything), probe_summary.txt (one line a
# variant), storm_pm.txt (record's stderr, the tracer's notes, the numbers),
# storm_pm.db (the recording), kernel_log.txt (dmesg lines, when readable).
# usage: scripts/h200/plans/pmprobe.sh OUTDIR   (from the repo root; no set -e)
set -u
out=${1:?usage: pmprobe.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=${GW_BIN:-build-dev/gpuwhy}
tracer=${GW_TRACER:-build-dev/tracer/libgpuwhy-tracer.so}
log=$out/pmprobe.log
summary=$out/probe_summary.txt
: > "$log"
: > "$summary"
command -v sqlite3 > /dev/null || sqlite3() { python3 scripts/dbq.py "$@"; }
say() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$log"; }
start_s=$(date +%s)
elapsed() { echo $(( $(date +%s) - start_s )); }
ulimit -c 0 # a core of a CUDA process is gigabytes; the backtrace and the verbose lines say enough
nvidia-smi --query-gpu=name,driver_version --format=csv >> "$log" 2>&1

# 1. Build. CUDA 13 keeps CUPTI beside the runtime; older toolkits under extras/CUPTI.
cuda=${CUDA_HOME:-/usr/local/cuda}
cupti_lib=
for d in "$cuda/lib64" "$cuda/extras/CUPTI/lib64" "$cuda/targets/x86_64-linux/lib"; do
  [ -e "$d/libcupti.so" ] && { cupti_lib=$d; break; }
done
cupti_inc=$cuda/include
[ -e "$cupti_inc/cupti_pmsampling.h" ] || cupti_inc=$cuda/extras/CUPTI/include
probe=/tmp/gpuwhy_pm_probe
say "build: CUPTI library in ${cupti_lib:-(not found)}, headers in $cupti_inc"
cc -std=gnu11 -O1 -g -I"$cuda/include" -I"$cupti_inc" -Itracer/c_include tracer/tools/pm_probe.c \
  -L"${cupti_lib:-$cuda/lib64}" -L"$cuda/lib64/stubs" -Wl,-rpath,"${cupti_lib:-$cuda/lib64}" \
  -lcupti -lcuda -lpthread -rdynamic \
  -o "$probe" >> "$log" 2>&1
say "build exit $?"

# 2. Variants: NAME|OPTIONS
variants=(
  "documented|--ctx first --setup main"
  "setup_on_thread_without_context|--setup thread"
  "setup_before_context|--ctx later"
  "with_activity_records|--activity 1"
  "activity_and_finalize_mid_run|--activity 1 --finalize-ms 1500"
  "keep_oldest_as_old_tracer|--append oldest"
  "sample_metrics|--metrics gr__cycles_active.avg,gr__cycles_elapsed.max,sm__cycles_active.avg"
  "old_tracer_all_together|--ctx later --setup thread --activity 1 --append oldest --finalize-ms 1500"
)
documented_ok=0
for v in "${variants[@]}"; do
  name=${v%%|*}
  opts=${v#*|}
  [ "$(elapsed)" -gt 75 ] && { say "--- $name: skipped, out of time"; echo "$name skipped" >> "$summary"; continue; }
  say "--- probe $name: $opts"
  # shellcheck disable=SC2086 # the options are words on purpose
  timeout -k 3 15 "$probe" $opts --seconds 3 > "$out/.probe.out" 2>&1
  rc=$?
  cat "$out/.probe.out" >> "$log"
  fatal=$(grep -m1 "FATAL" "$out/.probe.out")
  result=$(grep -m1 "^pm_probe: [0-9]* samples" "$out/.probe.out")
  first_fail=$(grep -m1 -E "\-> -?[1-9][0-9]* " "$out/.probe.out" | sed 's/  */ /g')
  echo "$name rc=$rc ${fatal:+[$fatal] }${first_fail:+first failing call: $first_fail; }${result:-no result line}" >> "$summary"
  if [ "$name" = documented ] && [ $rc -eq 0 ] && grep -q "^PROBE OK" "$out/.probe.out"; then documented_ok=1; fi
done
rm -f "$out/.probe.out"
say "probe variants done after $(elapsed) s; documented sequence worked: $documented_ok"

# 3. The fixed tracer inside a PyTorch program.
if [ $documented_ok -eq 1 ] && [ "$(elapsed)" -lt 80 ]; then
  db=$out/storm_pm.db
  rm -f "$db"*
  say "--- storm.py (train, 8 s) under record --trace --pm-sampling"
  GPUWHY_TRACER_LIB=$PWD/$tracer GPUWHY_ALLOW_PM_SAMPLING=1 GPUWHY_TRACE_PM_VERBOSE=1 PYTHONFAULTHANDLER=1 \
    timeout -k 3 30 "$bin" record -o "$db" --trace --pm-sampling -- \
    python3 -X faulthandler bench/tracer/storm.py --workload train --seconds 8 > "$out/storm_pm.txt" 2>&1
  rc=$?
  last_step=$(grep 'gpuwhy-tracer pm:' "$out/storm_pm.txt" | tail -1)
  {
    echo "record exit $rc (139 = SIGSEGV in the program)"
    echo "last PM step named on stderr: ${last_step:-(none)}"
    echo "tracer notes:"
    sqlite3 "$db" "select level, text from trace_note" 2>&1
    echo "pm_sample rows, mean active/elapsed: $(sqlite3 "$db" \
      'select count(*), avg(sm_cycles_active_avg / sm_cycles_elapsed_avg) from pm_sample' 2>&1)"
    echo "GPM SM activity windows, mean: $(sqlite3 "$db" \
      'select count(sm_active_pct), avg(sm_active_pct) from gpu_sample' 2>&1)"
    echo "kernels traced: $(sqlite3 "$db" 'select count(*) from kernel' 2>&1)"
  } >> "$out/storm_pm.txt"
  say "storm under PM sampling: exit $rc"
  tail -8 "$out/storm_pm.txt" | tee -a "$log"
else
  say "storm.py under --pm-sampling not run: the documented sequence did not work alone (or no time left)"
fi

# The kernel's lines about crashes and the GPU in the last minutes (segfault: the faulting address and library).
dmesg -T 2> /dev/null | tail -200 | grep -iE "segfault|nvrm|xid|trap" > "$out/kernel_log.txt" ||
  echo "(dmesg not readable, or no segfault, NVRM or Xid line in its last 200)" > "$out/kernel_log.txt"
say "done after $(elapsed) s; files: $(cd "$out" && echo *)"
