#!/bin/bash
# The diagnosis on every labelled recording and its degraded variants
# (tests/accuracy/accuracy.py) stays at or above the committed floors:
# tests/accuracy/floors.json for the scenario fixtures, floors_i21.json for
# issue 21's new scenarios (tests/fixtures/scenarios_i21), each folder scored
# on its own so that one corpus's figures never hide a drop in the other's.
# Verdicts right, true causes found, findings of absent classes.
source "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR must point at the source tree}"
# Each corpus against floors of its own, so that one corpus's figures never
# hide a drop in another's:
#   scenarios        the labelled H200 scenario fixtures
#   scenarios_i21    issue 21's scenarios (remote store, logging thread, ...)
#   hook_suite       the single-GPU programs recorded again with the Python
#                    hook's steps, as users' recordings have them; the rules
#                    were not tuned on these files
#   scenarios_nogpm  recorded with `record --no-gpm --trace` (what a GPU
#                    without GPM gives, with the kernel trace), as recorded only
#                    (tests/fixtures/scenarios_nogpm/README.md)
#   weak_spots_h100  programs written to break run-wide averages, recorded on
#                    an H100 with thread and stack samples; floors are today's
#                    figures (24/26 as recorded), not the goal
#   oos_h200         five outside programs recorded on an H200 (README there);
#                    floors are today's figures
#   oos2_h100        seven more outside programs and eval_host on an H100
#                    (README there); floors are today's figures
for corpus in "scenarios floors.json" "scenarios_i21 floors_i21.json" "hook_suite floors_hook_suite.json" \
  "scenarios_nogpm floors_nogpm.json --variant recorded" "weak_spots_h100 floors_weak_spots.json" \
  "oos_h200 floors_oos_h200.json" "oos2_h100 floors_oos2_h100.json"; do
  read -r dir floors extra <<<"$corpus"
  # shellcheck disable=SC2086 # extra holds options, split on purpose
  python3 "$GW_SOURCE_DIR/tests/accuracy/accuracy.py" --bin "$GW_BIN" --dir "$GW_FIXTURES/$dir" $extra \
    --floors "$GW_SOURCE_DIR/tests/accuracy/$floors" >"accuracy_$dir.txt" 2>&1 || {
    cat "accuracy_$dir.txt"
    fail "accuracy on $dir below the committed floors ($floors)"
  }
  echo "== $dir"
  grep -E '^== variant|verdict right' "accuracy_$dir.txt"
done
