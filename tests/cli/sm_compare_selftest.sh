#!/usr/bin/env bash
# scripts/h200/sm_compare.py, which compares SM activity substitutes with GPM
# on the H200, mirrors the occupancy arithmetic of lib/analysis/sm_fill.c: its
# self-test checks it gives the figures tests/unit/test_sm_fill.c asserts, and
# it reads a recording (a real H200 fixture) without failing.
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || {
  echo "SKIP: no python3"
  exit 77
}
script=$GW_SOURCE_DIR/scripts/h200/sm_compare.py
python3 "$script" --selftest | grep -q "6 of 6 agree" || fail "sm_compare.py arithmetic differs from sm_fill.c"
out=$(python3 "$script" --gpuwhy "$GW_BIN" "$GW_FIXTURES/scenarios/small_batch.db") || fail "sm_compare.py failed"
echo "$out" | grep -q "small_batch.db .* gpm .*small_batch" || fail "unexpected comparison line: $out"
echo "1 passed, 0 failed"
