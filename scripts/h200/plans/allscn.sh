#!/usr/bin/env bash
# Every single-GPU scenario of the suite re-recorded once (one device call, at most 9.5 minutes).
#  MODE gpm_windows: GPM on, --trace with 1 s windows every 3 s (so that whole GPM
#    seconds are traced), the Python hook on (record's default): steps from inside
#    PyTorch against each truth file (issue 20), SM activity from launch
#    configurations against GPM per traced second (issue 22, scripts/h200/sm_compare.py),
#    and the verdict with GPM and, with GPM nulled afterwards, without;
#  MODE gpm_full: the same with --trace=full (every second traced; costs more);
#  MODE nogpm: --no-gpm --trace (sampled, the default): the verdict without GPM (issue 22).
# Each scenario runs SCN_DURATION (default 8) s of steady state. On the device: the
# comparison, a JSON and a text report of each recording (the full traces are too big
# to bring back); back come the recordings with their trace tables emptied
# (recordings.tar.gz) and the smaller ones whole (traced.tar.gz, under 15 MB).
# usage: scripts/h200/run.sh allscn OUT MODE [NAME...]
set -u
out=${1:?usage: allscn.sh OUT MODE [NAME...]}
mode=${2:?MODE: gpm_windows, gpm_full or nogpm}
shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$PWD/build-dev/gpuwhy
rec=$out/rec
mkdir -p "$rec"
log=$out/detail.log
say() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$log"; }
case $mode in
  gpm_windows) export SCN_RECORD_OPTS="--trace" GPUWHY_TRACE_WINDOW_MS=1000 GPUWHY_TRACE_PERIOD_MS=3000 ;;
  gpm_full) export SCN_RECORD_OPTS="--trace=full" ;;
  nogpm) export SCN_RECORD_OPTS="--no-gpm --trace" ;;
  *) echo "allscn.sh: MODE is gpm_windows, gpm_full or nogpm, got '$mode'" >&2; exit 2 ;;
esac
export SCN_DURATION=${SCN_DURATION:-8} SCN_TIMEOUT_EXTRA=${SCN_TIMEOUT_EXTRA:-40}
export GPUWHY_TRACER_LIB=$PWD/build-dev/tracer/libgpuwhy-tracer.so
budget_s=${ALLSCN_BUDGET_S:-480} # no scenario starts after this; the rest is for reports and packing
say "mode $mode: record $SCN_RECORD_OPTS; $(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader 2>&1)"
if [ $# -gt 0 ]; then
  names="$*"
else
  names=$(bash scenarios/run_suite.sh --list | awk 'NR > 1 && ($NF == 1 || $NF == 2) { print $1 }')
fi
t_start=$(date +%s)
for n in $names; do
  if [ $(( $(date +%s) - t_start )) -gt "$budget_s" ]; then
    say "--- $n: skipped, out of time"
    continue
  fi
  bash scenarios/run_suite.sh "$bin" "$rec" "$n" >> "$log" 2>&1
  say "--- $n: $(grep -E "^(OK|FAIL) +$n " "$rec/suite.log" | tail -1)"
done
say "=== SM activity substitutes against GPM, and verdicts"
python3 scripts/h200/sm_compare.py --gpuwhy "$bin" --json "$out/sm_compare.json" "$rec"/*.db > "$out/sm_compare.txt" 2>&1
: > "$out/reports.txt"
for db in "$rec"/*.db; do
  n=$(basename "$db" .db)
  "$bin" report --format json "$db" > "$rec/$n.report.json" 2>> "$log"
  { echo "===== $n"; "$bin" report "$db" 2>&1; } >> "$out/reports.txt"
done
say "=== steps: hook against truth"
python3 - "$rec" > "$out/steps.txt" 2>&1 << 'PY'
import glob, json, os, sqlite3, sys
for db in sorted(glob.glob(os.path.join(sys.argv[1], "*.db"))):
    n = os.path.basename(db)[:-3]
    try:
        t = json.load(open(db[:-3] + ".truth.json"))
        truth_steps = len(t.get("steps", []))
        truth_bs = t.get("batch_size")
    except Exception as e:
        truth_steps, truth_bs = -1, "?(%s)" % e
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = c.execute("select count(*), count(distinct pid), min(batch_size), max(batch_size) from step").fetchone()
    print("%-24s truth_steps %5d hook_steps %5d pids %d batch %s..%s truth_batch %s" % (n, truth_steps, rows[0], rows[1], rows[2], rows[3], truth_bs))
PY
cat "$out/steps.txt" >> "$log"
# Copies with the trace tables emptied travel back; whole recordings only while small.
mkdir -p "$out/strip" "$out/whole"
for db in "$rec"/*.db; do
  n=$(basename "$db" .db)
  cp "$rec/$n".truth.json "$rec/$n".report.json "$out/strip/" 2>/dev/null
  python3 - "$db" "$out/strip/$n.db" << 'PY' >> "$log" 2>&1
import sqlite3, sys
src = sqlite3.connect(sys.argv[1])
src.execute("vacuum into ?", (sys.argv[2],))
dst = sqlite3.connect(sys.argv[2])
for t in ("kernel", "memcpy", "memset", "sync", "api", "marker", "memory", "graph_launch"):
    try:
        dst.execute("delete from %s" % t)
    except sqlite3.Error as e:
        print(sys.argv[2], t, e)
dst.commit()
dst.execute("vacuum")
PY
done
total_kb=0
for db in $(ls -S -r "$rec"/*.db); do
  kb=$(( $(stat -c %s "$db") / 1024 ))
  [ $(( total_kb + kb )) -gt 45000 ] && continue
  total_kb=$(( total_kb + kb ))
  cp "$db" "$out/whole/"
done
tar -C "$out/strip" -czf "$out/recordings.tar.gz" . >> "$log" 2>&1
tar -C "$out/whole" -czf "$out/traced.tar.gz" . >> "$log" 2>&1
while [ "$(stat -c %s "$out/traced.tar.gz")" -gt 15000000 ]; do
  big=$(ls -S "$out/whole"/*.db | head -1)
  rm -f "$big"
  tar -C "$out/whole" -czf "$out/traced.tar.gz" . >> "$log" 2>&1
done
cat "$rec/suite.log" >> "$log" 2>/dev/null
rm -rf "$rec" "$out/strip" "$out/whole"
say "done: $(ls -la "$out" | tr '\n' ' ')"
