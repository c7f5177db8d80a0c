#!/usr/bin/env bash
# Device call: (1) nvidia-smi -q taken while gpuwhy check --load runs its
# matmul, (2) NVML call costs incl. GPM metric subsets, (3) bench/sampler over
# 60 s after the once-a-second clocks split, (4) where --trace=full's cost
# goes on the storm and the training step: GPUWHY_TRACE_API variants, 2
# interleaved rounds.
# usage: scripts/h200/call_variants.sh OUT [SECONDS_PER_RUN]
set -u
out=$1 secs=${2:-8}
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_var
rm -rf "$w" && mkdir -p "$w/res"
r=$w/res
export PYTHONUNBUFFERED=1
# (1) check under load
"$bin" check --load > "$r/check_load.txt" 2>&1 &
ck=$!
for _ in $(seq 1 100); do
  p=$(nvidia-smi --query-gpu=power.draw --format=csv,noheader,nounits | head -1 | cut -d. -f1)
  [ "${p:-0}" -gt 300 ] && break
  sleep 0.2
done
{ date +%s%N; nvidia-smi -q -d PERFORMANCE,POWER,CLOCK,TEMPERATURE; } > "$r/nvsmi_q_under_load.txt" 2>&1
wait $ck; echo "exit $?" >> "$r/check_load.txt"
"$bin" check --json > "$r/check_idle.json" 2>&1; echo "exit $?" >> "$r/check_idle.json"
nvidia-smi -q > "$r/nvsmi_q_idle.txt" 2>&1
# (2) NVML costs
timeout 60 build-dev/bench/nvml_cost 200 > "$r/nvml_cost.txt" 2>&1
# (3) sampler
bash scripts/h200/sampler_bench.sh "$bin" "$w/s" "$r"
cp "$w/s/bench_10hz.db" "$r/" 2>/dev/null
# (4) tracer variants
for round in 1 2; do
  for wl in storm train; do
    for cfg in plain sampled full full_nolaunch full_runtime full_none; do
      py=(taskset -c 3 python3 bench/tracer/storm.py --workload $wl --seconds "$secs")
      case $cfg in
        plain) line=$("${py[@]}" | tail -1) ;;
        sampled) line=$("$bin" record -q --trace=sampled -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
        full) line=$("$bin" record -q --trace=full -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
        full_*) line=$(GPUWHY_TRACE_API=${cfg#full_} "$bin" record -q --trace=full -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
      esac
      [ -f "$w/v.db" ] && line="$line kernels $(python3 scripts/dbq.py "$w/v.db" 'select count(*) from kernel') api $(python3 scripts/dbq.py "$w/v.db" 'select count(*) from api' 2>&1 | tail -1)"
      echo "round $round $wl $cfg $line" | tee -a "$r/variants.txt"
      rm -rf "$w/v.db" "$w/v.db-wal" "$w/v.db-shm" "$w/v.db.trace"
    done
  done
done
tar -C "$w" -czf "$out/results.tgz" res
cat "$r/sampler_bench.txt"; grep -i "gpm\|rates\|ClockInfo\|Reasons" "$r/nvml_cost.txt"
