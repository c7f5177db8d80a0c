#!/usr/bin/env bash
# Records a bf16 load with gpuwhy while nvidia-smi reads the same GPU, then
# prints both side by side (compare.py). usage: validate_nvsmi.sh GPUWHY_BIN OUTDIR
set -u
bin=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
"$bin" record -q --interval 100 -o "$out/validate.db" -- python3 "$here/../../bench/sampler/gpu_load.py" 30 &
rec=$!
sleep 8
nvidia-smi dmon -s pucv --gpm-metrics 1,2,3,5,10 -d 1 -c 12 -o T > "$out/validate_dmon.txt" 2>&1 &
dm=$!
for i in 1 2 3; do
  sleep 4
  { echo "t_ns_before $(date +%s%N)"
    nvidia-smi --query-gpu=utilization.gpu,power.draw,enforced.power.limit,clocks.sm,clocks.mem,pstate,clocks_event_reasons.active,temperature.gpu,pcie.link.gen.current,pcie.link.width.current,memory.used --format=csv
    echo "t_ns_after $(date +%s%N)"; } >> "$out/validate_query.txt" 2>&1
  { echo "t_ns $(date +%s%N)"; nvidia-smi -q -d PERFORMANCE,POWER,CLOCK; } >> "$out/validate_q.txt" 2>&1
done
wait $dm
wait $rec
python3 "$here/compare.py" "$out/validate.db" "$out/validate_query.txt" "$out/validate_dmon.txt" | tee "$out/validate_compare.txt"
