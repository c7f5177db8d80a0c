#!/usr/bin/env bash
# bench/report: wall time and peak memory of `gpuwhy report` on long 10 Hz
# recordings built from a real H200 recording (schedule_eval: periodic dips,
# loader-free, every table filled) by make_long.py, one GPU and eight.
# usage: bench/report/run.sh GPUWHY_BIN [GPUWHY_BIN...]
# environment (defaults in brackets):
#   HOURS       run lengths with one GPU ["1 2 4 8 24"]
#   HOURS_8GPU  run lengths with eight GPUs ["24"]
#   SOURCE      the recording repeated [tests/fixtures/scenarios/schedule_eval.db]
#   DIR         where the long recordings are kept (made once, reused) [a temporary folder, removed]
#   TIMEOUT     seconds one report may take before it is stopped ["600"]
# Prints one row per recording: its length, GPUs, ticks, then per binary the
# wall time (s) and peak resident memory (MB, /usr/bin/time's maximum RSS) of
# `report --format text`, one run each. The issue's targets: a day under 5 s
# with one GPU, under 30 s with eight, peak memory under 512 MB.
set -eu
[ $# -ge 1 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
src=${SOURCE:-$here/../../tests/fixtures/scenarios/schedule_eval.db}
timeout_s=${TIMEOUT:-600}
if [ -n "${DIR:-}" ]; then
  dir=$DIR
  mkdir -p "$dir"
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
cases=()
for h in ${HOURS-1 2 4 8 24}; do cases+=("$h 1"); done
for h in ${HOURS_8GPU-24}; do cases+=("$h 8"); done
printf '%-6s %-5s %-9s' hours gpus ticks
for bin in "$@"; do printf ' | %-28s' "$(basename "$bin"): wall s, peak MB"; done
echo
for c in "${cases[@]}"; do
  read -r h g <<<"$c"
  db=$dir/${h}h_${g}gpu.db
  [ -s "$db" ] || python3 "$here/make_long.py" "$src" "$db" $((h * 3600)) --gpus "$g" >/dev/null
  ticks=$(sqlite3 "$db" 'select count(*) from gpu_sample')
  printf '%-6s %-5s %-9s' "$h" "$g" "$ticks"
  for bin in "$@"; do
    st=0
    /usr/bin/time -f '%e %M' -o "$dir/time.txt" timeout "$timeout_s" "$bin" report --format text "$db" >/dev/null 2>&1 ||
      st=$?
    read -r wall_s rss_kb <<<"$(tail -1 "$dir/time.txt" | grep -E '^[0-9.]+ [0-9]+$' || echo '? 0')"
    if [ "$st" -eq 124 ]; then
      printf ' | %-28s' "> $timeout_s s (stopped)"
    elif [ "$st" -ne 0 ]; then
      printf ' | %-28s' "failed (exit $st)"
    else
      printf ' | %-28s' "$(printf '%8.2f %8.0f' "$wall_s" "$((rss_kb / 1024))")"
    fi
  done
  echo
done
