#!/usr/bin/env bash
# Device call: the launch-overhead scenario under --trace=full with and
# without launch API records (GPUWHY_TRACE_API=nolaunch); the reports of both.
# usage: scripts/h200/run.sh trace_nolaunch OUT [SECONDS]
set -u
out=$1 secs=${2:-8}
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_nl && rm -rf "$w" && mkdir -p "$w"
for api in all nolaunch; do
  GPUWHY_TRACE_API=$api "$bin" record -q --trace=full -o "$w/$api.db" -- \
    python3 scenarios/launch_overhead.py --out "$w/$api.truth.json" --duration "$secs" > "$out/$api.run.txt" 2>&1
  echo "api=$api exit $? kernels $(python3 scripts/dbq.py "$w/$api.db" 'select count(*) from kernel') api $(python3 scripts/dbq.py "$w/$api.db" 'select count(*) from api')"
  "$bin" report "$w/$api.db" > "$out/$api.report.txt" 2>&1
  "$bin" report --format json "$w/$api.db" > "$out/$api.report.json" 2>&1
  grep -E "^Verdict|idle: launch|idle: other|launch calls" "$out/$api.report.txt"
done
