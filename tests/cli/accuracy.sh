#!/bin/bash
# The diagnosis on every labelled recording and its degraded variants
# (tests/accuracy/accuracy.py) stays at or above the committed floors
# (tests/accuracy/floors.json): verdicts right, true causes found, findings of
# absent classes.
source "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR must point at the source tree}"
python3 "$GW_SOURCE_DIR/tests/accuracy/accuracy.py" --bin "$GW_BIN" --dir "$GW_FIXTURES/scenarios" \
  --floors "$GW_SOURCE_DIR/tests/accuracy/floors.json" >accuracy.txt 2>&1 || {
  cat accuracy.txt
  fail "accuracy below the committed floors"
}
grep -E '^== variant|verdict right' accuracy.txt
# The same programs recorded again with the Python hook's steps (as users'
# recordings have them), against floors of their own: the rules were not
# tuned on these files.
python3 "$GW_SOURCE_DIR/tests/accuracy/accuracy.py" --bin "$GW_BIN" --dir "$GW_FIXTURES/hook_suite" \
  --floors "$GW_SOURCE_DIR/tests/accuracy/floors_hook_suite.json" >accuracy_hook_suite.txt 2>&1 || {
  cat accuracy_hook_suite.txt
  fail "accuracy on the hook suite below its floors"
}
grep -E '^== variant|verdict right' accuracy_hook_suite.txt

# Recordings made with `record --no-gpm --trace` on the H200 (what a GPU
# without GPM gives, with the kernel trace): the diagnosis from launch
# configurations, per-parameter work and the windows' gaps, with its own
# floors (tests/fixtures/scenarios_nogpm/README.md says what each one tests).
python3 "$GW_SOURCE_DIR/tests/accuracy/accuracy.py" --bin "$GW_BIN" --dir "$GW_FIXTURES/scenarios_nogpm" \
  --variant recorded --floors "$GW_SOURCE_DIR/tests/accuracy/floors_nogpm.json" >accuracy_nogpm.txt 2>&1 || {
  cat accuracy_nogpm.txt
  fail "no-GPM traced recordings below their floors"
}
grep -E '^== variant|verdict right' accuracy_nogpm.txt
