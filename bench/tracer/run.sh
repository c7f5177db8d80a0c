#!/usr/bin/env bash
# bench/tracer: step time of two workloads (the 1 us-kernel storm and a real
# transformer training step) plain, under gpuwhy record --trace=sampled and
# --trace=full, and under torch.profiler, interleaved over several rounds.
# Each run: the mean step time over SECONDS of steps (sampling windows
# included), and the best 10-step chunk (best-of-N over the rounds is the
# headline). The program is pinned to the same cores in every run so that
# rounds compare: two by default (GW_BENCH_CPUS), since a job confined to the
# one core of its training thread would also give CUPTI's worker thread and
# the tracer's record conversion that core, which real jobs do not.
# GW_BENCH_CONFIGS picks the configurations (default: plain sampled full
# profiler); full_nolaunch is --trace=full without the launch API records
# (GPUWHY_TRACE_API=nolaunch), full_kernels without any API record (the floor
# of CUPTI's kernel records, GPUWHY_TRACE_API=none), full_cb with the API
# calls taken from CUPTI's callbacks instead of its API activity records
# (GPUWHY_TRACE_API_PATH=callback), sampled_detach sampled mode detaching
# CUPTI between windows (GPUWHY_TRACE_DETACH=1).
# usage: run.sh GPUWHY_BIN OUTDIR [ROUNDS] [SECONDS]
set -u
bin=$1 out=$2 rounds=${3:-3} secs=${4:-10}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
res=$out/tracer_bench.txt
: > "$res"
configs=${GW_BENCH_CONFIGS:-plain sampled full profiler}
pin="taskset -c ${GW_BENCH_CPUS:-2,3}"
command -v taskset > /dev/null || pin=""
for r in $(seq 1 "$rounds"); do
  for w in storm train; do
    for cfg in $configs; do
      py=(python3 "$here/storm.py" --workload "$w" --seconds "$secs")
      case $cfg in
        plain) line=$($pin "${py[@]}" | tail -1) ;;
        # torch.profiler keeps every event in memory and processes them at the end: 3 s is enough to see its cost.
        profiler) line=$($pin "${py[@]}" --seconds 3 --profiler 2> /dev/null | tail -1) ;;
        full_nolaunch) line=$(GPUWHY_TRACE_API=nolaunch "$bin" record -q --trace=full -o "$out/$w-$cfg.db" -- $pin "${py[@]}" | tail -1) ;;
        full_kernels) line=$(GPUWHY_TRACE_API=none "$bin" record -q --trace=full -o "$out/$w-$cfg.db" -- $pin "${py[@]}" | tail -1) ;;
        full_cb) line=$(GPUWHY_TRACE_API_PATH=callback "$bin" record -q --trace=full -o "$out/$w-$cfg.db" -- $pin "${py[@]}" | tail -1) ;;
        sampled_detach) line=$(GPUWHY_TRACE_DETACH=1 "$bin" record -q --trace=sampled -o "$out/$w-$cfg.db" -- $pin "${py[@]}" --chunks-out "$out/chunks.txt" | tail -1) ;;
        *) line=$("$bin" record -q --trace=$cfg -o "$out/$w-$cfg.db" -- $pin "${py[@]}" --chunks-out "$out/chunks.txt" | tail -1) ;;
      esac
      echo "round $r $w $cfg $line" | tee -a "$res"
      if [ "$cfg" = sampled ] || [ "$cfg" = sampled_detach ]; then
        echo "round $r $w windows $cfg $(python3 "$here/windows.py" "$out/chunks.txt" "$out/$w-$cfg.db" 2>&1)" | tee -a "$res"
      fi
      rm -f "$out/$w-$cfg.db"*
    done
  done
done
python3 - "$res" $configs << 'PY'
import collections, statistics, sys
mean = collections.defaultdict(list)
best = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 8 and p[4] == "mean_ms_per_step" and p[6] == "best_ms_per_step":
        mean[(p[2], p[3])].append(float(p[5]))
        best[(p[2], p[3])].append(float(p[7]))
for w in ("storm", "train"):
    plain = mean[(w, "plain")]
    for cfg in sys.argv[2:]:
        v = mean[(w, cfg)]
        if not v:
            continue
        # Round by round against that round's plain run, then the median over rounds.
        rel = [100 * (x / p - 1) for x, p in zip(v, plain)] if plain else []
        med = f"{statistics.median(rel):+.1f}%" if rel else ""
        # Best-of-N: the best 10-step chunk over all rounds, against plain's.
        bon = min(best[(w, cfg)])
        bon_plain = min(best[(w, "plain")])
        print(f"{w:<6} {cfg:<14} mean ms/step per round {['%.3f' % x for x in v]}  "
              f"vs plain per round {['%+.1f%%' % x for x in rel]}  median {med}  "
              f"best-of-N {bon:.3f} ms {100 * (bon / bon_plain - 1):+.1f}%")
PY
grep " windows " "$res"
