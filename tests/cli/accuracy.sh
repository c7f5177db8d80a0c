#!/bin/bash
# The diagnosis on every labelled recording and its degraded variants
# (tests/accuracy/accuracy.py) stays at or above the committed floors:
# tests/accuracy/floors.json for the scenario fixtures, floors_i21.json for
# issue 21's new scenarios (tests/fixtures/scenarios_i21), each folder scored
# on its own so that one corpus's figures never hide a drop in the other's.
# Verdicts right, true causes found, findings of absent classes.
source "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR must point at the source tree}"
for corpus in "scenarios floors.json" "scenarios_i21 floors_i21.json"; do
  read -r dir floors <<<"$corpus"
  python3 "$GW_SOURCE_DIR/tests/accuracy/accuracy.py" --bin "$GW_BIN" --dir "$GW_FIXTURES/$dir" \
    --floors "$GW_SOURCE_DIR/tests/accuracy/$floors" >"accuracy_$dir.txt" 2>&1 || {
    cat "accuracy_$dir.txt"
    fail "accuracy on $dir below the committed floors ($floors)"
  }
  echo "== $dir"
  grep -E '^== variant|verdict right' "accuracy_$dir.txt"
done
