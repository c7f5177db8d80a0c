#!/usr/bin/env bash
# gpuwhy check on the H200 (idle, then with its own load while
# nvidia-smi -q reads the same GPU), and the sampler benchmark once more.
# usage: scripts/h200/run.sh check OUT
set -u
out=$1
bin=$PWD/build-dev/gpuwhy
export PYTHONUNBUFFERED=1
"$bin" check > "$out/check_idle.txt" 2>&1; echo "exit $?" >> "$out/check_idle.txt"
"$bin" check --load > "$out/check_load.txt" 2>&1 &
ck=$!
sleep 2.5
{ date +%s%N; nvidia-smi -q -d PERFORMANCE,POWER,CLOCK,TEMPERATURE; } > "$out/nvsmi_q_during_load.txt" 2>&1
wait $ck; echo "exit $?" >> "$out/check_load.txt"
"$bin" check --json --load > "$out/check_load.json" 2>&1
timeout 70 bash bench/sampler/run.sh "$bin" "$out/s" 40 > "$out/sampler.log" 2>&1
cat "$out/s/sampler_bench.txt" 2>/dev/null
rm -rf "$out/s"
cat "$out/check_load.txt"
