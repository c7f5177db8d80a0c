#!/usr/bin/env bash
# Device call: nvidia-smi -q taken while gpuwhy check --load has its matmul
# running (polls until the board draws over 300 W), next to check's own
# findings; then the storm plain against --trace=sampled, one round.
# usage: scripts/h200/call_check_under_load.sh OUT
set -u
out=$1
bin=$PWD/build-dev/gpuwhy
"$bin" check --load > "$out/check_load.txt" 2>&1 &
ck=$!
for _ in $(seq 1 60); do
  p=$(nvidia-smi --query-gpu=power.draw --format=csv,noheader,nounits | head -1 | cut -d. -f1)
  [ "${p:-0}" -gt 300 ] && break
  sleep 0.2
done
{ date +%s%N; nvidia-smi -q -d PERFORMANCE,POWER,CLOCK,TEMPERATURE; } > "$out/nvsmi_q_under_load.txt" 2>&1
wait $ck; echo "exit $?" >> "$out/check_load.txt"
py=(taskset -c 3 python3 bench/tracer/storm.py --workload storm --seconds 8)
echo "storm plain $("${py[@]}" | tail -1)" > "$out/storm.txt"
echo "storm sampled $("$bin" record -q --trace -o /tmp/s.db -- "${py[@]}" | tail -1)" >> "$out/storm.txt"
cat "$out/storm.txt"; grep -E "Power Draw|SM  |Graphics|SW Power Cap|Performance State" "$out/nvsmi_q_under_load.txt" | head -8
