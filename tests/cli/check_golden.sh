#!/usr/bin/env bash
# gpuwhy check on the troubled fixture tree with two scripted fake GPUs: the
# table and the JSON must match the golden files byte for byte.
# GW_UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}" "${GW_FIXTURES:?}"
help_text=$("$GW_BIN" check --help 2>&1 || true)
if [[ $help_text == *"unknown command"* ]]; then
  echo "SKIP: gpuwhy has no check command in its table yet"
  exit 77
fi
FX=$GW_FIXTURES/check
EXPECTED=$FX/expected
# The stand-in python by name from PATH, so no checkout path lands in the output.
export PATH="$FX/bin:$PATH" GPUWHY_PYTHON=python3-fake
unset GPUWHY_NVCC GPUWHY_NVML_LIB
export FAKE_NVML_GPUS=2 FAKE_NVML_REASONS=0x1 FAKE_NVML_PSTATE=8 FAKE_NVML_SM_CLOCK_MHZ=345 \
  FAKE_NVML_POWER_LIMIT_MW=700000,450000 FAKE_NVML_PCIE_GEN=5,3 FAKE_NVML_TEMP_C=41,83 \
  FAKE_NVML_PERSISTENCE=1,0 FAKE_NVML_COMPUTE_MODE=0,3 FAKE_NVML_ECC_UNCORRECTED=0,2 \
  FAKE_NVML_REMAP_PENDING=0,1 FAKE_NVML_VIOL_HW_THERMAL_NS=0,12500000000

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
