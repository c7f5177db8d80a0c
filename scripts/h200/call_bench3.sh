#!/usr/bin/env bash
# Device call: (1) the kernel's CPU accounting; (2) NVML call costs with
# calls 60 ms apart (NVML's cache expired, as in a sampler); (3) gpuwhy check
# --load beside nvidia-smi polled every 200 ms and one nvidia-smi -q; (4)
# bench/sampler over 60 s; (5) the storm: plain, sampled, sampled with no
# window in the run (start-up cost only), sampled windows without kernels.
# usage: scripts/h200/call_bench3.sh OUT
set -u
out=$1
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_b3
rm -rf "$w" && mkdir -p "$w/res"
r=$w/res
export PYTHONUNBUFFERED=1
{ uname -r; grep -h -E "ACCOUNTING|CONFIG_HZ=" "/boot/config-$(uname -r)" 2>/dev/null || zcat /proc/config.gz 2>/dev/null | grep -E "ACCOUNTING|CONFIG_HZ="; } > "$r/kernel.txt" 2>&1
timeout 90 build-dev/bench/nvml_cost 20 60 > "$r/nvml_cost_spaced.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active,pstate --format=csv -lms 200 > "$r/nvsmi_poll.csv" 2>&1 &
poll=$!
"$bin" check --load > "$r/check_load.txt" 2>&1 &
ck=$!
for _ in $(seq 1 150); do
  p=$(nvidia-smi --query-gpu=power.draw --format=csv,noheader,nounits | head -1 | cut -d. -f1)
  [ "${p:-0}" -gt 400 ] && break
  sleep 0.2
done
sleep 1
{ date +%s%N; nvidia-smi -q -d PERFORMANCE,POWER,CLOCK,TEMPERATURE; } > "$r/nvsmi_q_under_load.txt" 2>&1
wait $ck; echo "exit $?" >> "$r/check_load.txt"
"$bin" check --load --json > "$r/check_load.json" 2>&1; echo "exit $?" >> "$r/check_load.json"
kill $poll
bash scripts/h200/sampler_bench.sh "$bin" "$w/s" "$r"
cp "$w/s/bench_10hz.db" "$r/" 2>/dev/null
for round in 1 2; do
  for cfg in plain sampled nowindow nokernel; do
    py=(taskset -c 3 python3 bench/tracer/storm.py --workload storm --seconds 8 --chunks-out "$w/chunks_${cfg}_$round.txt")
    case $cfg in
      plain) line=$("${py[@]}" | tail -1) ;;
      sampled) line=$("$bin" record -q --trace -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
      nowindow) line=$(GPUWHY_TRACE_FIRST_DELAY_MS=600000 "$bin" record -q --trace -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
      nokernel) line=$(GPUWHY_TRACE_SAMPLED_KIND=nokernel "$bin" record -q --trace -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
    esac
    [ -f "$w/v.db" ] && line="$line $(python3 bench/tracer/windows.py "$w/chunks_${cfg}_$round.txt" "$w/v.db" 2>&1) kernels $(python3 scripts/dbq.py "$w/v.db" 'select count(*) from kernel')"
    [ -f "$w/v.db" ] && python3 scripts/dbq.py "$w/v.db" 'select start_ns, end_ns from trace_window' > "$r/windows_${cfg}_$round.txt" 2>&1
    echo "round $round $cfg $line" | tee -a "$r/storm.txt"
    cp "$w/chunks_${cfg}_$round.txt" "$r/" 2>/dev/null
    rm -rf "$w/v.db" "$w/v.db-wal" "$w/v.db-shm" "$w/v.db.trace"
  done
done
tar -C "$w" -czf "$out/results.tgz" res
cat "$r/kernel.txt" "$r/sampler_bench.txt"; grep -E "clocks|power limit|clock event" "$r/check_load.txt"
