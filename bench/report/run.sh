#!/usr/bin/env bash
# bench/report: time to report a one-hour recording at 10 Hz, built from a real
# H200 recording (schedule_eval: periodic dips, loader-free, every table filled).
# usage: bench/report/run.sh GPUWHY_BIN [SOURCE.db]
set -eu
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
src=${2:-$here/../../tests/fixtures/scenarios/schedule_eval.db}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/make_long.py" "$src" "$tmp/hour.db" 3600
ls -l "$tmp/hour.db" | awk '{print "size", $5, "bytes"}'
for fmt in text json; do
  best=
  for i in 1 2 3; do
    s=$(date +%s%N)
    "$bin" report --format $fmt "$tmp/hour.db" > /dev/null
    e=$(date +%s%N)
    ms=$(( (e - s) / 1000000 ))
    [ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
  done
  echo "report --format $fmt of a one-hour 10 Hz recording: best of 3 = $best ms"
done
