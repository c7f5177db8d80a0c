#!/usr/bin/env bash
# bench/import: gpuwhy import of a >= 1 GB Kineto trace against jq merely
# parsing it ('.traceEvents | length'), run alternately over several rounds;
# wall time and peak memory of each from /usr/bin/time -v. Also checks that
# the recording holds exactly the trace's kernels and events.
# usage: run.sh GPUWHY_BIN OUTDIR [SIZE_MB (1100)] [ROUNDS (3)] [SEED_TRACE]
# Design targets: under 64 MB of memory, at least 10x faster than jq.
set -euo pipefail
bin=$1 out=$2 size_mb=${3:-1100} rounds=${4:-3}
here=$(cd "$(dirname "$0")" && pwd)
seed=${5:-$here/../../tests/fixtures/import/h200_torch211_single.json.gz}
command -v jq >/dev/null || { echo "jq is needed (apt-get install jq)"; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (apt-get install time)"; exit 2; }
mkdir -p "$out"
big=$out/big_trace.json
res=$out/import_bench.txt
if [ ! -s "$big" ] || [ ! -s "$big.counts" ]; then
  python3 "$here/make_big_trace.py" "$seed" "$big" "$size_mb" >"$big.counts"
fi
read -r _ want_events _ want_kernels _ _ _ bytes <"$big.counts"
echo "trace: $big, $bytes bytes, $want_events events, $want_kernels kernel events" | tee "$res"
cat "$big" >/dev/null # both start from a warm page cache

# one timed run: prints "wall_s max_rss_kb"
timed() {
  local log=$1
  shift
  /usr/bin/time -v "$@" >"$log.out" 2>"$log.time"
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
    /Maximum resident set size/ { rss = $2 } END { printf "%.2f %d\n", s, rss }' "$log.time"
}

for r in $(seq 1 "$rounds"); do
  read -r jw jm < <(timed "$out/jq" jq '.traceEvents | length' "$big")
  [ "$(cat "$out/jq.out")" = "$want_events" ] || { echo "jq counted $(cat "$out/jq.out") events"; exit 1; }
  echo "round $r jq wall_s $jw max_rss_kb $jm" | tee -a "$res"
  read -r gw gm < <(timed "$out/gpuwhy" "$bin" import -q "$big" -o "$out/big.db")
  echo "round $r gpuwhy wall_s $gw max_rss_kb $gm" | tee -a "$res"
done

kernels=$(sqlite3 "$out/big.db" 'select count(*) from kernel')
events=$(sqlite3 "$out/big.db" "select value from meta where key = 'input.0.events'")
[ "$kernels" = "$want_kernels" ] || { echo "MISMATCH: $kernels kernel rows, the trace has $want_kernels" | tee -a "$res"; exit 1; }
[ "$events" = "$want_events" ] || { echo "MISMATCH: $events events read, the trace has $want_events" | tee -a "$res"; exit 1; }
echo "counts: $kernels kernel rows = the trace's $want_kernels kernel events; $events events read" | tee -a "$res"
awk '$3 == "jq" { if (!jw || $5 < jw) jw = $5; if ($7 > jm) jm = $7 }
  $3 == "gpuwhy" { if (!gw || $5 < gw) gw = $5; if ($7 > gm) gm = $7 }
  END {
    printf "best wall: gpuwhy import %.2f s, jq %.2f s: %.1fx faster (target >= 10x)\n", gw, jw, jw / gw
    printf "peak memory: gpuwhy import %.1f MB, jq %.1f MB (target < 64 MB)\n", gm / 1024, jm / 1024
  }' "$res" | tee -a "$res"
