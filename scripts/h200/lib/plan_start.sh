# Sourced by a plan after `set -u`: the output folder (absolute), a scratch folder, the log and the clock.
# usage: plan_start NAME OUTDIR   sets out, w (/tmp/gw_NAME, emptied), log (OUTDIR/log.txt), bin
# (build-dev/gpuwhy), t_start; defines elapsed (seconds since) and say (a timed line to stdout and the log);
# logs the host, the hook folder, torch's version and the GPU.
plan_start() {
  out=$2
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  bin=$PWD/build-dev/gpuwhy
  w=/tmp/gw_$1
  rm -rf "$w" && mkdir -p "$w"
  # not OUTDIR/NAME.log: scripts/h200/run.sh writes its copy of stdout there
  # from its own file offset, which would overwrite lines appended here
  log=$out/log.txt
  t_start=$(date +%s)
  export PYTHONUNBUFFERED=1 GPUWHY_BIN=$bin
  say "host $(hostname) gpuwhy $bin; hook folder: $(ls -d build-dev/python/gpuwhy_hook 2>&1)"
  python3 -c 'import torch; print("torch", torch.__version__)' >> "$log" 2>&1
  nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader >> "$log" 2>&1
}
elapsed() { echo $(($(date +%s) - t_start)); }
say() { echo "[$(date -u +%H:%M:%S) +$(elapsed)s] $*" | tee -a "$log"; }
# plan_pack_recordings DIR [MAX_MB]: a text report beside each recording in $w/DIR, then $w/DIR as
# OUTDIR/recordings.tar.gz; recordings over MAX_MB (full traces of launch-bound runs) stay out of the tar.
plan_pack_recordings() {
  for db in "$w/$1"/*.db; do
    [ -f "$db" ] && "$bin" report "$db" > "${db%.db}.report.txt" 2>&1
  done
  local big=()
  [ -n "${2:-}" ] && big=(! \( -name '*.db' -size "+${2}M" \))
  (cd "$w" && find "$1" -type f "${big[@]}" -print0 | tar --null -czf "$out/recordings.tar.gz" -T -) >> "$log" 2>&1
}
# plan_record_scenarios REC BUDGET_S NAME...: each scenario once through scenarios/run_suite.sh (plain `record
# --interval 100`, the Python hook on, RECORD_SECONDS (default 6) of steady state, its truth file beside it) into REC, while the plan's
# clock is under BUDGET_S; a line per scenario with the suite's verdict, or why it was skipped.
plan_record_scenarios() {
  local rec=$1 budget=$2 n
  shift 2
  for n in "$@"; do
    if [ "$(elapsed)" -gt "$budget" ]; then
      say "--- $n: skipped (budget of ${budget}s spent)"
      continue
    fi
    SCN_DURATION=${RECORD_SECONDS:-6} SCN_TIMEOUT_EXTRA=45 timeout -k 5 $((${RECORD_SECONDS:-6} + 54)) bash scenarios/run_suite.sh "$bin" "$rec" "$n" >> "$log" 2>&1
    say "--- $n: rc=$? $(grep -E "^(OK|FAIL) +$n " "$rec/suite.log" 2>/dev/null | tail -1)"
  done
}
