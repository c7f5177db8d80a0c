#!/bin/bash
# Every single-GPU scenario recorded with `gpuwhy record --no-gpm --trace` on
# the H200 (24 recordings, tests/accuracy/nogpm_all/*.db, unpacked from their
# .db.xz by cmake/unpack_fixtures.cmake) is diagnosed as the same
# program is with GPM: the verdict against the labels in
# tests/accuracy/nogpm_all (the hook_suite labels of the same programs, the
# sweep points' from that run's own gains) stays at or above
# tests/accuracy/floors_nogpm_all.json. This is what a GPU without GPM (A100,
# L4, T4, GeForce) gives with the kernel trace: SM activity from the kernels'
# launch configurations.
source "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR must point at the source tree}"
mkdir corpus
cp "$GW_SOURCE_DIR"/tests/accuracy/nogpm_all/*.db "$GW_SOURCE_DIR"/tests/accuracy/nogpm_all/*.truth.json corpus/
assert_eq "recordings unpacked" "$(ls corpus/*.db | wc -l)" 24
python3 "$GW_SOURCE_DIR/tests/accuracy/accuracy.py" --bin "$GW_BIN" --dir corpus --variant recorded \
  --floors "$GW_SOURCE_DIR/tests/accuracy/floors_nogpm_all.json" >accuracy.txt 2>&1 || {
  cat accuracy.txt
  fail "accuracy on the 24 --no-gpm --trace recordings below tests/accuracy/floors_nogpm_all.json"
}
grep -E 'verdict right' accuracy.txt
