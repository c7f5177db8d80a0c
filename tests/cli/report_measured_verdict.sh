#!/usr/bin/env bash
# The measured verdict (recordings with stack or thread samples) charges idle
# time only. When no idle class holds its minimum share of the lost time, a
# class of busy time that the counters measure (small_batch: kernels resident,
# SMs part-empty) and that explains most of the loss stays the verdict; it is
# not replaced by `unexplained`. Recorded on an H100 from a program outside
# this repository (tests/fixtures/verdict_h100/README.md).
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
db="$GW_FIXTURES/verdict_h100/healthy_transformer.db"
[ -f "$db" ] || fail "$db missing (unpacked at configure time)"
"$GW_BIN" report --format json "$db" >r.json || fail "report exited $?"
python3 - r.json <<'PY' || fail "the busy-time class is not the verdict"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "small_batch", r["verdict"]
f = r["findings"][0]
assert f["class"] == "small_batch" and f["share_of_lost"] >= 0.3, f
assert r["lost_share_of_active"] < 1 / 3, r["lost_share_of_active"]
PY
