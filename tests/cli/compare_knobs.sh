#!/bin/bash
# Two runs that differ in two environment knobs get the warning that the
# comparison cannot tell which one mattered; one changed knob does not.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
if ! "$GW_BIN" compare --help >/dev/null 2>&1; then
  echo "gpuwhy compare is not in src/main.c's command table yet: skipping"
  exit 77
fi
src="$GW_FIXTURES/scenarios/worked_case_s1"
for r in a b c; do
  cp "$src.db" "$r.db"
  cp "$src.truth.json" "$r.truth.json"
done
q b.db "insert or replace into env values ('NCCL_ALGO', 'Ring'); insert or replace into env values ('OMP_NUM_THREADS', '4');"
q c.db "update run set command = json_replace(command, '\$[6]', '30')"
"$GW_BIN" compare a.db b.db >ab.txt || fail "compare exited $?"
grep -q "WARNING        2 things changed at once (NCCL_ALGO, OMP_NUM_THREADS)" ab.txt || fail "no warning for two knobs"
"$GW_BIN" compare a.db c.db >ac.txt || fail "compare exited $?"
grep -q -- "changed        --duration 20 -> 30" ac.txt || fail "the changed argument is not named"
grep -q WARNING ac.txt && fail "a warning for one change"
"$GW_BIN" compare --format md a.db b.db | grep '^> \*\*Warning:\*\* 2 things changed' >/dev/null || fail "no warning in Markdown"
echo "knob warnings: ok"
