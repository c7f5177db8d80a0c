#!/usr/bin/env bash
# Device call on nvidia-h200-x2: the four DDP scenarios recorded with
# --trace (sampled) over torchrun; gpuwhy check with two GPUs; the tracer
# against torch.profiler on two single-GPU scenarios; where the sampled
# tracer's cost goes on a real training step.
# usage: scripts/h200/run.sh x2 OUT [SECONDS_PER_DDP_SCENARIO]
set -u
out=$1 secs=${2:-25}
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_x2
rm -rf "$w" && mkdir -p "$w/res"
r=$w/res
export PYTHONUNBUFFERED=1
{ nvidia-smi topo -m; nvidia-smi --query-gpu=index,name,driver_version,power.limit --format=csv; env | grep -E '^NCCL_|MULTICAST|NVSHMEM' ; } > "$r/topo.txt" 2>&1
"$bin" check > "$r/check_x2.txt" 2>&1; echo "exit $?" >> "$r/check_x2.txt"

# 1. DDP scenarios, one recording each, the recording and its truth packed together.
for m in balanced straggler comm_heavy grad_accum; do
  t0=$(date +%s)
  timeout $((secs + 150)) "$bin" record --trace -o "$w/ddp_$m.db" -- \
    torchrun --standalone --nproc_per_node=2 scenarios/ddp.py --mode "$m" --duration "$secs" \
    --out "$w/ddp_$m.json" > "$w/ddp_$m.log" 2>&1
  echo "ddp_$m: exit $? in $(($(date +%s) - t0)) s, $(stat -c %s "$w/ddp_$m.db") bytes" >> "$r/ddp.txt"
  "$bin" report "$w/ddp_$m.db" > "$w/ddp_$m.report.txt" 2>&1
  tar -C "$w" -cJf "$out/ddp_$m.tar.xz" "ddp_$m.db" "ddp_$m.json" "ddp_$m.log" "ddp_$m.report.txt"
  sed -n 1,4p "$w/ddp_$m.report.txt" >> "$r/ddp.txt"
done

# 2. Tracer against torch.profiler: kernels per step and mean duration.
run_pair() { # NAME SCRIPT PROFILE_STEPS
  local name=$1 script=$2 steps=$3
  "$bin" record -q --trace=full -o "$w/${name}_traced.db" -- python3 "scenarios/$script" --duration 6 \
    --out "$w/${name}_traced.json" > "$r/${name}_traced.log" 2>&1
  GPUWHY_SCN_PROFILE="$w/${name}_profile.json.gz" GPUWHY_SCN_PROFILE_STEPS=$steps \
    python3 "scenarios/$script" --out "$w/${name}_prof.json" > "$r/${name}_prof.log" 2>&1
  "$bin" import "$w/${name}_profile.json.gz" -o "$w/${name}_imp.db" > "$r/${name}_import.log" 2>&1
  "$bin" report "$w/${name}_traced.db" > "$r/${name}_traced_report.txt" 2>&1
  python3 bench/tracer/scenario_compare.py "$name" "$w/${name}_traced.db" "$w/${name}_traced.json" \
    "$w/${name}_profile.json.gz" "$w/${name}_prof.json" "$w/${name}_imp.db" >> "$r/compare.txt" 2>&1
}
run_pair launch_tiny_ops launch_overhead.py 4
run_pair input_pageable_copies input_pageable_copies.py 5

# 3. The sampled tracer's cost on the training step: plain, recorder without
# the tracer, sampled windows with and without kernel records; 2 rounds.
for round in 1 2; do
  for cfg in plain record sampled nokernel; do
    py=(taskset -c 3 python3 bench/tracer/storm.py --workload train --seconds 10 --chunks-out "$w/chunks.txt")
    case $cfg in
      plain) line=$("${py[@]}" | tail -1) ;;
      record) line=$("$bin" record -q -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
      sampled) line=$("$bin" record -q --trace -o "$w/v.db" -- "${py[@]}" | tail -1)
        line="$line $(python3 bench/tracer/windows.py "$w/chunks.txt" "$w/v.db" 2>&1)" ;;
      nokernel) line=$(GPUWHY_TRACE_SAMPLED_KIND=nokernel "$bin" record -q --trace -o "$w/v.db" -- "${py[@]}" | tail -1)
        line="$line $(python3 bench/tracer/windows.py "$w/chunks.txt" "$w/v.db" 2>&1)" ;;
    esac
    echo "round $round $cfg $line" >> "$r/variants.txt"
    rm -f "$w/v.db"*
  done
done
tar -C "$w" -czf "$out/results.tgz" res
cat "$r/ddp.txt" "$r/compare.txt" "$r/variants.txt"
