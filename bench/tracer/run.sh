#!/usr/bin/env bash
# bench/tracer: step time of the 1 us-kernel storm plain, under gpuwhy record
# --trace=sampled and --trace=full, and under torch.profiler, interleaved over
# several rounds (best of 7 x 100 steps each). usage: run.sh GPUWHY_BIN OUTDIR [ROUNDS]
set -u
bin=$1 out=$2 rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
res=$out/tracer_bench.txt
: > "$res"
for r in $(seq 1 "$rounds"); do
  for cfg in plain sampled full profiler; do
    case $cfg in
      plain) line=$(python3 "$here/storm.py") ;;
      profiler) line=$(python3 "$here/storm.py" --profiler 2>/dev/null | tail -1) ;;
      *) line=$("$bin" record -q --trace=$cfg -o "$out/storm_$cfg.db" -- python3 "$here/storm.py" | tail -1) ;;
    esac
    echo "round $r $cfg $line" | tee -a "$res"
  done
done
python3 - "$res" <<'PY'
import collections, sys
best = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 5 and p[3] == "best_ms_per_step":
        best[p[2]].append(float(p[4]))
plain = min(best["plain"]) if best["plain"] else None
for cfg in ("plain", "sampled", "full", "profiler"):
    if best[cfg]:
        b = min(best[cfg])
        rel = f"{100 * (b / plain - 1):+.1f}%" if plain else ""
        print(f"{cfg:<9} best {b:.3f} ms/step  all {best[cfg]}  vs plain {rel}")
PY
