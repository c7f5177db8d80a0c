#!/usr/bin/env bash
# The measured verdict (recordings with stack or thread samples) charges idle
# time only. When no idle class holds its minimum share of the lost time, a
# class of busy time that the counters measure (small_batch: kernels resident,
# SMs part-empty) and that explains most of the loss stays the verdict; it is
# not replaced by `unexplained`. And a wait inside the user's function that
# makes the batch (a fetch from a slow store, no DataLoader) is the batch's:
# input_pipeline, naming that function. Recorded on an H100 from programs
# outside this repository (tests/fixtures/verdict_h100/README.md).
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
# report NAME: the JSON report of verdict_h100/NAME.db in NAME.json
report() {
  local db="$GW_FIXTURES/verdict_h100/$1.db"
  [ -f "$db" ] || fail "$db missing (unpacked at configure time)"
  "$GW_BIN" report --format json "$db" >"$1.json" || fail "report of $1 exited $?"
}

report healthy_transformer
report fetch_inline
python3 - healthy_transformer.json fetch_inline.json <<'PY' || fail "a verdict of verdict_h100 is not the one expected"
import json, sys
healthy, fetch = (json.load(open(p)) for p in sys.argv[1:3])
# the busy-time class stays the verdict; too little is lost to be unexplained
assert healthy["verdict"] == "small_batch", healthy["verdict"]
f = healthy["findings"][0]
assert f["class"] == "small_batch" and f["share_of_lost"] >= 0.3, f
assert healthy["lost_share_of_active"] < 1 / 3, healthy["lost_share_of_active"]
# the waits inside fetch() are the batch's, and the evidence names the function
assert fetch["verdict"] == "input_pipeline", fetch["verdict"]
f = fetch["findings"][0]
assert f["class"] == "input_pipeline" and f["share_of_lost"] >= 0.8, f
frames = [str(v["value"]) for e in f["evidence"] if e["id"] == "idle_cause_measured" for v in e["values"]
          if v["name"] == "frame"]
assert any("in fetch" in t for t in frames), frames
PY
