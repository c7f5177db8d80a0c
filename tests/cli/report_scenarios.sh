#!/bin/bash
# The report's verdict on every real H200 recording equals its ground truth:
# the top finding (or "none") is expected_class, and for a recording with
# several expected classes every one of them is among the findings, except
# launch_overhead in a recording without a kernel trace whose report asks for
# one: without a trace, steps that re-plan for new shapes and a launch-bound
# loop give the same counters, so the report says what would decide instead
# of guessing (worked_case_s0 since the rules' second pass).
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
dir="$GW_FIXTURES/scenarios"
n=0
bad=0
for db in "$dir"/*.db; do
  name=$(basename "$db" .db)
  truth="$dir/$name.truth.json"
  [ -f "$truth" ] || fail "$name: no ground truth file"
  "$GW_BIN" report --format json "$db" >"$name.json" || fail "$name: gpuwhy report failed"
  if ! python3 - "$name" "$name.json" "$truth" <<'PY'; then
import json, sys
name, rep_path, truth_path = sys.argv[1:4]
rep = json.load(open(rep_path))
truth = json.load(open(truth_path))
found = [f["class"] for f in rep.get("findings", [])]
top = rep["verdict"]
want = truth["expected_class"]
errors = []
if top != want:
    errors.append("verdict %s, expected %s" % (top, want))
wanted = [c for c in truth.get("expected_classes", [want]) if c != "none"]
if len(wanted) > 1:
    asks_trace = any("record --trace" in e.get("command", "") for e in rep.get("experiments", []))
    traced = any(g.get("ledger_source") == "timeline" for g in rep.get("gpus", []))
    missing = [c for c in wanted if c not in found and not (c == "launch_overhead" and asks_trace and not traced)]
    if missing:
        errors.append("classes %s not reported" % ",".join(missing))
print("%-24s %-16s %s" % (name, top, "ok" if not errors else "; ".join(errors)))
sys.exit(1 if errors else 0)
PY
    bad=$((bad + 1))
  fi
  n=$((n + 1))
done
assert_ge "recordings checked" "$n" 1
[ "$bad" -eq 0 ] || fail "$bad of $n recordings got a wrong verdict"
echo "all $n verdicts match"
