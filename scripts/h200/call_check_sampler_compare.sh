#!/usr/bin/env bash
# Device call: gpuwhy check on the H200 beside nvidia-smi -q; the sampler
# benchmark over 60 s; kernels per step and mean kernel duration of two
# scenario programs from gpuwhy's tracer against torch.profiler, and the
# profiler's traces imported and reported.
# usage: scripts/h200/call_check_sampler_compare.sh OUT
set -u
out=$1
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_callb
rm -rf "$w" && mkdir -p "$w/res"
r=$w/res
export PYTHONUNBUFFERED=1

# 1. check, idle and with its own load while nvidia-smi -q reads the same GPU.
"$bin" check > "$r/check_idle.txt" 2>&1; echo "exit $?" >> "$r/check_idle.txt"
"$bin" check --load > "$r/check_load.txt" 2>&1 &
ck=$!
sleep 2.5
{ date +%s%N; nvidia-smi -q -d PERFORMANCE,POWER,CLOCK,TEMPERATURE,PCIE 2>&1 || nvidia-smi -q; } > "$r/nvsmi_q_during_load.txt" 2>&1
wait $ck; echo "exit $?" >> "$r/check_load.txt"
nvidia-smi -q > "$r/nvsmi_q_full.txt" 2>&1
"$bin" check --json --load > "$r/check_load.json" 2>&1

# 2. sampler benchmark, 60 s.
timeout 100 bash bench/sampler/run.sh "$bin" "$w/s" 60 > "$r/sampler.log" 2>&1
cp "$w/s/sampler_bench.txt" "$r/" 2>/dev/null
for f in bench_10hz bench_1hz; do
  echo "$f: $(python3 scripts/dbq.py "$w/s/$f.db" "select group_concat(key || '=' || value, ' ') from meta where key like 'recorder_%'")" >> "$r/sampler_bench.txt"
done

# 3. tracer and importer against torch.profiler on two scenarios.
run_pair() { # NAME SCRIPT PROFILE_STEPS [ARGS...]
  local name=$1 script=$2 steps=$3
  shift 3
  "$bin" record -q --trace=full -o "$w/${name}_traced.db" -- python3 "scenarios/$script" --duration 6 \
    --out "$w/${name}_traced.json" "$@" > "$r/${name}_traced.log" 2>&1
  GPUWHY_SCN_PROFILE="$out/${name}_profile.json.gz" GPUWHY_SCN_PROFILE_STEPS=$steps \
    python3 "scenarios/$script" --out "$w/${name}_prof.json" "$@" > "$r/${name}_prof.log" 2>&1
  "$bin" import "$out/${name}_profile.json.gz" -o "$w/${name}_imp.db" > "$r/${name}_import.log" 2>&1
  "$bin" report "$w/${name}_imp.db" > "$r/${name}_import_report.txt" 2>&1
  "$bin" report "$w/${name}_traced.db" > "$r/${name}_traced_report.txt" 2>&1
  python3 bench/tracer/scenario_compare.py "$name" "$w/${name}_traced.db" "$w/${name}_traced.json" \
    "$out/${name}_profile.json.gz" "$w/${name}_prof.json" "$w/${name}_imp.db" >> "$r/compare.txt" 2>&1
  ls -la "$w/${name}_traced.db" "$out/${name}_profile.json.gz" >> "$r/compare.txt" 2>&1
}
run_pair launch_tiny_ops launch_overhead.py 4
run_pair input_pageable_copies input_pageable_copies.py 5
tar -C "$w" -czf "$out/results.tgz" res
cat "$r/compare.txt" "$r/sampler_bench.txt"
tail -30 "$r/check_load.txt"
