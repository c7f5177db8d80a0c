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
# A trace holds no clocks: hardware_env cannot be judged, and the report says so (a note, and by id in JSON),
# where a recording made by gpuwhy record, which samples the clocks, says nothing of the kind.
python3 - h200_launch_tiny_ops.json.gz.json <<'PY' || fail "the trace's report does not name hardware_env as not measurable"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["not_measurable"] == ["hardware_env"], d["not_measurable"]
assert any(n.startswith("hardware_env cannot be judged from this recording") for n in d["notes"]), d["notes"]
assert 0 < d["pattern_visible_max_s"] < 1, d["pattern_visible_max_s"]  # a trace of a fraction of a second
PY
"$GW_BIN" report --format json "$GW_FIXTURES/scenarios/healthy.db" > healthy.json || fail "report of healthy exited $?"
python3 - healthy.json <<'PY' || fail "a recorded run names a class as not measurable"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["not_measurable"] == [], d["not_measurable"]
assert d["pattern_visible_max_s"] > 10, d["pattern_visible_max_s"]
PY
echo "import_scenarios: passed"
