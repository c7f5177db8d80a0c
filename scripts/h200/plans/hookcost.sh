#!/usr/bin/env bash
# Issue 20 on one H200 (about 4 minutes): what the Python step hook costs,
# measured in one process (bench/tracer/hook_ab.py: blocks with the hook
# attached and detached, alternating, mean and best-of-N with a bootstrap
# interval), and the NVTX injection (record --trace --step-range) on torch.
#  1. hook micro-benchmark: ns of the hook's own work per optimizer step (real torch)
#  2. A/B train (transformer + AdamW), storm_opt (storm + SGD step), storm (no optimizer)
#  3. torch.cuda.nvtx ranges under record --trace=full --step-range train_step: 50 steps expected
#  4. NVTX cost: torch range_push/pop pairs with and without the tracer as injection;
#     tracer/tests/nvtx_ranges_prog.c (compiled here with gcc if there is one) likewise
# usage: scripts/h200/plans/hookcost.sh OUTDIR   (from the repo root; build-dev prebuilt)
# Output under OUTDIR: hookcost.log (everything), hook_ab.txt, nvtx.txt, nvtx_steps.db
set -u
out=${1:?usage: hookcost.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$PWD/build-dev/gpuwhy
tracer=$PWD/build-dev/tracer/libgpuwhy-tracer.so
log=$out/hookcost.log
ab=$out/hook_ab.txt
nv=$out/nvtx.txt
: > "$ab"
: > "$nv"
say() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$log"; }
say "host $(hostname) gpuwhy $bin tracer $(ls "$tracer" 2>&1)"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' >> "$log" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >> "$log" 2>&1
unset GPUWHY_PY_SPOOL_DIR NVTX_INJECTION64_PATH
# The same two cores for every run (as bench/tracer/run.sh), when taskset exists.
pin="taskset -c ${GW_BENCH_CPUS:-2,3}"
command -v taskset > /dev/null || pin=""

run_ab() { # title args...
  local title=$1
  shift
  say "--- $title"
  echo "===== $title: hook_ab.py $*" >> "$ab"
  timeout -k 5 150 $pin python3 bench/tracer/hook_ab.py "$@" >> "$ab" 2>> "$log"
  say "    rc=$?"
}
# 1. the hook's own work per step
run_ab micro --micro --iterations 100000
# 2. in one process, hook attached and detached in alternate blocks
run_ab train --workload train --block 50 --rounds 20
run_ab storm_opt --workload storm_opt --block 100 --rounds 20
run_ab storm --workload storm --block 100 --rounds 10

# 3. torch's NVTX ranges through the tracer's NVTX injection (no CUPTI NVTX): 50 steps
say "--- torch.cuda.nvtx under record --trace=full --step-range train_step"
rm -f "$out/nvtx_steps.db"
timeout -k 5 90 "$bin" record -q --trace=full --step-range train_step -o "$out/nvtx_steps.db" -- \
  python3 scripts/h200/plans/hookcost_nvtx.py steps 50 >> "$log" 2>&1
say "    rc=$?"
{
  echo "===== steps from torch.cuda.nvtx ranges (expected: 50 nvtx_range steps, each >= 5 ms)"
  python3 - "$out/nvtx_steps.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = lambda s: db.execute(s).fetchall()
print("trace_process", q("select pid, mode, cupti_version, wire_version from trace_process"))
print("markers by name", q("select n.name, count(*) from marker m join trace_name n on n.pid = m.pid and n.id = m.name_id group by n.name"))
print("steps", q("select source, count(*), min(t_end_ns - t_start_ns) / 1e6, avg(t_end_ns - t_start_ns) / 1e6, max(t_end_ns - t_start_ns) / 1e6 from step group by source"))
print("meta", q("select key, value from meta where key like 'step_range%' or key like 'python_hook%'"))
print("trace_note", q("select level, text from trace_note"))
PY
} >> "$nv" 2>&1

# 4. what a range costs: torch's range_push + range_pop pair, without and with the injection
for i in 1 2 3; do
  for inj in none tracer; do
    d=$(mktemp -d)
    if [ $inj = tracer ]; then
      r=$(NVTX_INJECTION64_PATH=$tracer GPUWHY_TRACE_DIR=$d timeout 60 $pin python3 scripts/h200/plans/hookcost_nvtx.py cost 200000 2>> "$log")
      files=$(ls "$d" | wc -l)
    else
      r=$(timeout 60 $pin python3 scripts/h200/plans/hookcost_nvtx.py cost 200000 2>> "$log")
      files=0
    fi
    echo "torch_nvtx round $i injection $inj $r files $files" >> "$nv"
    rm -rf "$d"
  done
done
# the C program on the NVTX v3 headers (4 ranges a step, no sleeping): ns per range
if command -v gcc > /dev/null; then
  gcc -O2 -std=c11 -D_GNU_SOURCE -isystem /usr/local/cuda/include -o "$out/nvtx_prog" tracer/tests/nvtx_ranges_prog.c \
    -ldl -lpthread >> "$log" 2>&1
  for i in 1 2 3; do
    d=$(mktemp -d)
    a=$($pin "$out/nvtx_prog" 250000 0 0 2>&1 > /dev/null)
    b=$(NVTX_INJECTION64_PATH=$tracer GPUWHY_TRACE_DIR=$d $pin "$out/nvtx_prog" 250000 0 0 2>&1 > /dev/null)
    echo "c_nvtx round $i none: $a; tracer: $b; file bytes $(cat "$d"/* 2>/dev/null | wc -c) (expected 40000552)" >> "$nv"
    rm -rf "$d"
  done
  rm -f "$out/nvtx_prog"
else
  echo "no gcc: the C NVTX program was not measured" >> "$nv"
fi
say "done"
