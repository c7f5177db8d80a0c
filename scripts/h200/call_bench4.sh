#!/usr/bin/env bash
# Device call: bench/sampler over 60 s (host once a second), then which
# activity kinds leave a cost behind after a sampled window closes: the storm
# 12 s plain, sampled (all kinds), sampled without API records, sampled with
# neither kernels nor API records; steps before the first window against
# steps after the last, 2 rounds.
# usage: scripts/h200/call_bench4.sh OUT
set -u
out=$1
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_b4
rm -rf "$w" && mkdir -p "$w/res"
r=$w/res
export PYTHONUNBUFFERED=1
bash scripts/h200/sampler_bench.sh "$bin" "$w/s" "$r"
for round in 1 2; do
  for cfg in plain all noapi onlycopies; do
    c=$w/chunks_${cfg}_$round.txt
    py=(taskset -c 3 python3 bench/tracer/storm.py --workload storm --seconds 12 --chunks-out "$c")
    case $cfg in
      plain) line=$("${py[@]}" | tail -1) ;;
      all) line=$("$bin" record -q --trace -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
      noapi) line=$(GPUWHY_TRACE_API=none "$bin" record -q --trace -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
      onlycopies) line=$(GPUWHY_TRACE_API=none GPUWHY_TRACE_SAMPLED_KIND=nokernel "$bin" record -q --trace -o "$w/v.db" -- "${py[@]}" | tail -1) ;;
    esac
    if [ -f "$w/v.db" ]; then
      python3 scripts/dbq.py "$w/v.db" 'select start_ns, end_ns from trace_window' > "$w/win.txt" 2>&1
      line="$line $(python3 - "$c" "$w/win.txt" << 'PY'
import statistics, sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
wins = [list(map(int, l.replace('|', ' ').split())) for l in open(sys.argv[2]) if l.strip()]
if not wins:
    print("no window"); sys.exit()
first, last = min(s for s, e in wins), max(e for s, e in wins)
before = [(e - s) / 1e6 / n for s, e, n in rows if e < first]
after = [(e - s) / 1e6 / n for s, e, n in rows if s > last]
f = lambda v: "%.3f" % statistics.median(v) if v else "nan"
print(f"before_first_window_ms {f(before)} after_last_window_ms {f(after)} windows {len(wins)}")
PY
)"
    else
      line="$line $(python3 -c "import statistics,sys; r=[list(map(int,l.split())) for l in open(sys.argv[1]) if l.strip()]; m=[(e-s)/1e6/n for s,e,n in r]; h=len(m)//2; print('first_half_ms %.3f second_half_ms %.3f' % (statistics.median(m[:h]), statistics.median(m[h:])))" "$c")"
    fi
    echo "round $round $cfg $line" | tee -a "$r/storm.txt"
    rm -rf "$w/v.db" "$w/v.db-wal" "$w/v.db-shm" "$w/v.db.trace"
  done
done
tar -C "$w" -czf "$out/results.tgz" res
cat "$r/sampler_bench.txt"
