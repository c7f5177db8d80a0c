#!/bin/bash
# gpuwhy compare on the worked case: each stage against the one before, with
# intervals, the one change named; a run against itself shows no change;
# usage and input errors exit 2 and 3.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}"
if ! "$GW_BIN" compare --help >/dev/null 2>&1; then
  echo "gpuwhy compare is not in src/main.c's command table yet: skipping"
  exit 77
fi
dir="$GW_FIXTURES/scenarios"
(cd "$dir" && "$GW_BIN" compare worked_case_s0.db worked_case_s1.db worked_case_s2.db worked_case_s3.db) >text.txt ||
  fail "compare exited $?"
diff -u "$GW_SOURCE_DIR/tests/expected/compare_worked_case.txt" text.txt || fail "text differs from the golden"
grep -q $'\033' text.txt && fail "colour codes in output that is not a terminal"

"$GW_BIN" compare --format json "$dir"/worked_case_s{0,1,2,3}.db >c.json || fail "json compare exited $?"
python3 - c.json <<'PY' || fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpuwhy.compare/2", d["schema"]
v = [c["verdict"] for c in d["comparisons"]]
assert v == ["better", "better", "no_significant_change", "better"], v
for c in d["comparisons"][:3]:
    assert [x["what"] for x in c["changes"]] == ["--stage"], c["changes"]
    assert c["declared_change"], c
    assert c["warning"] is None
t = d["comparisons"][0]["throughput"]
assert t["lo"] > 1 and t["lo"] <= t["ratio"] <= t["hi"], t
PY

"$GW_BIN" compare "$dir/healthy.db" "$dir/healthy.db" >self.txt || fail "self compare exited $?"
grep -q "B vs A (healthy vs healthy): no significant change" self.txt || fail "a run against itself changed"
grep -q "changed        nothing in the command line" self.txt || fail "self compare found a change"

set +e
"$GW_BIN" compare "$dir/healthy.db" >/dev/null 2>err.txt
assert_eq "one run: exit status" "$?" 2
"$GW_BIN" compare --format xml "$dir/healthy.db" "$dir/healthy.db" >/dev/null 2>&1
assert_eq "bad format: exit status" "$?" 2
"$GW_BIN" compare "$dir/healthy.db" missing.db >/dev/null 2>err.txt
assert_eq "missing file: exit status" "$?" 3
grep -q "missing.db" err.txt || fail "the error does not name the missing file"
echo "compare on the worked case: ok"
