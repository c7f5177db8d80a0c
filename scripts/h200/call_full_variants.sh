#!/usr/bin/env bash
# Device call: the tracer checks (crash in full and sampled mode, no CUPTI,
# torch.profiler, a traced scenario), then where --trace=full's cost can be
# cut: CUPTI buffer settings and API-record choices on the storm and the
# training step, interleaved rounds, two cores, stopping before BUDGET_S.
# Run once (bench/RESULTS.md, run 8); GPUWHY_TRACE_ZEROED_BUFFERS,
# GPUWHY_TRACE_PER_THREAD_BUFFERS and GPUWHY_TRACE_LATENCY were removed after
# it (no gain), so the zeroed, pt0, none_lat and none_bufs cases now run the
# tracer's defaults for those switches.
# usage: scripts/h200/call_full_variants.sh OUT [SECONDS_PER_RUN] [BUDGET_S]
set -u
out=$1 secs=${2:-6} budget=${3:-540}
t0=$(date +%s)
bin=$PWD/build-dev/gpuwhy
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
mkdir -p "$out/tc"
bash scripts/h200/tracer_checks.sh "$bin" "$out/tc" > "$out/tracer_checks.txt" 2>&1
rm -f "$out"/tc/*.db* 2>/dev/null
w=/tmp/gw_fv && rm -rf "$w" && mkdir -p "$w"
res=$out/full_variants.txt
run_cfg() { # workload cfg
  local wl=$1 cfg=$2 env=()
  local py=(taskset -c 2,3 python3 bench/tracer/storm.py --workload "$wl" --seconds "$secs")
  case $cfg in
    plain) "${py[@]}" | tail -1; return ;;
    full) ;;
    devbuf) env=(GPUWHY_TRACE_DEVICE_BUFFER_MB=64) ;;
    zeroed) env=(GPUWHY_TRACE_ZEROED_BUFFERS=1) ;;
    pt0) env=(GPUWHY_TRACE_PER_THREAD_BUFFERS=0) ;;
    nolaunch) env=(GPUWHY_TRACE_API=nolaunch) ;;
    none) env=(GPUWHY_TRACE_API=none) ;;
    none_lat) env=(GPUWHY_TRACE_API=none GPUWHY_TRACE_LATENCY=1) ;;
    none_bufs) env=(GPUWHY_TRACE_API=none GPUWHY_TRACE_DEVICE_BUFFER_MB=64 GPUWHY_TRACE_ZEROED_BUFFERS=1) ;;
  esac
  env "${env[@]}" "$bin" record -q --trace=full -o "$w/v.db" -- "${py[@]}" | tail -1
  echo "  kernels $(python3 scripts/dbq.py "$w/v.db" 'select count(*) from kernel') api $(python3 scripts/dbq.py "$w/v.db" 'select count(*) from api') notes $(python3 scripts/dbq.py "$w/v.db" 'select text from trace_note' | tr '\n' '|')"
  rm -rf "$w"/v.db*
}
for round in 1 2 3; do
  for wl in storm train; do
    [ "$wl" = train ] && [ "$round" = 3 ] && continue
    for cfg in plain full devbuf zeroed pt0 nolaunch none none_lat none_bufs; do
      [ $(($(date +%s) - t0)) -gt "$budget" ] && break 3
      echo "round $round $wl $cfg $(run_cfg "$wl" "$cfg" | tr '\n' ' ')" | tee -a "$res"
    done
  done
done
cat "$out/tracer_checks.txt"
