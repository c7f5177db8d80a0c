#!/usr/bin/env bash
# gpuwhy check on the troubled fixture tree with two scripted fake GPUs: the
# table and the JSON must match the golden files byte for byte.
# GW_UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}" "${GW_FIXTURES:?}"
require_command check
FX=$GW_FIXTURES/check
EXPECTED=$FX/expected
use_troubled_check_host

run() { (cd / && "$GW_BIN" check --root "$FX/troubled" --nvml-lib "$GW_FAKE_NVML" "$@"); }
set +e
run > "$SCRATCH/out.txt"
rc=$?
run --json > "$SCRATCH/out.json"
rj=$?
set -e
assert_eq "exit status (Xid 48 fails)" "$rc" 1
assert_eq "exit status with --json" "$rj" 1
if [ "${GW_UPDATE_GOLDEN:-}" = 1 ]; then
  cp "$SCRATCH/out.txt" "$EXPECTED/troubled.txt"
  cp "$SCRATCH/out.json" "$EXPECTED/troubled.json"
  echo "golden files rewritten"
fi
diff -u "$EXPECTED/troubled.txt" "$SCRATCH/out.txt" || fail "table differs from $EXPECTED/troubled.txt"
diff -u "$EXPECTED/troubled.json" "$SCRATCH/out.json" || fail "JSON differs from $EXPECTED/troubled.json"
if command -v python3 > /dev/null; then
  python3 -m json.tool "$SCRATCH/out.json" > /dev/null || fail "output is not JSON"
fi
echo "1 passed, 0 failed"
