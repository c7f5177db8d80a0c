#!/usr/bin/env bash
# torch.profiler traces of two scenario programs, taken on the H200
# (scenarios/common.py's GPUWHY_SCN_PROFILE hook; scripts/h200/
# call_check_sampler_compare.sh of commit ca5b225), imported and reported: every kernel of the
# trace becomes a row, and the report names the scenario's class from the
# trace alone (no counters, no process data).
. "$(dirname "$0")/lib.bash"
F=$GW_FIXTURES/import

check() { # TRACE CLASS
  local t=$F/$1 want=$2 n
  "$GW_BIN" import "$t" -o "$1.db" 2> "$1.err" || fail "import of $1 exited $?: $(cat "$1.err")"
  n=$(gzip -dc "$t" | python3 -c 'import json, sys; print(sum(1 for e in json.load(sys.stdin)["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X"))')
  assert_eq "$1: kernel rows against the trace's kernel events" "$(q "$1.db" 'select count(*) from kernel')" "$n"
  "$GW_BIN" report --format json "$1.db" > "$1.json" || fail "report on $1 exited $?"
  got=$(python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))["findings"]; print(f[0]["class"] if f else "none")' "$1.json")
  assert_eq "$1: first finding" "$got" "$want"
}
check h200_launch_tiny_ops.json.gz launch_overhead
check h200_input_pageable_copies.json.gz input_pipeline
# The launch-bound trace's gaps are mostly longer than a launch but the host
# never stops calling CUDA: they count as launch time, not "other".
"$GW_BIN" report h200_launch_tiny_ops.json.gz.db > launch.txt
grep -q "while the host kept making CUDA calls" launch.txt || fail "no host-issue evidence: $(cat launch.txt)"
# No process data in a trace: the report must not claim there were no loader workers.
"$GW_BIN" report h200_input_pageable_copies.json.gz.db > input.txt
! grep -q "no data-loader worker" input.txt || fail "claims no workers without process data"
echo "import_scenarios: passed"
