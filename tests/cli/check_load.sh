#!/usr/bin/env bash
# gpuwhy check --load with the stand-in python and two fake GPUs: the load runs
# on each GPU, a PCIe link that stays at gen 3 under it fails; when the load
# cannot run, the check says so and falls back to idle readings.
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}" "${GW_FIXTURES:?}"
require_command check
FX=$GW_FIXTURES/check
export GPUWHY_PYTHON=$FX/bin/python3-fake FAKE_NVML_GPUS=2 FAKE_NVML_PCIE_GEN=3 FAKE_NVML_PROC_PIDS=none
unset GPUWHY_NVML_LIB

run() { (cd / && "$GW_BIN" check --root "$FX/healthy" --nvml-lib "$GW_FAKE_NVML" "$@"); }
set +e
run --load > load.txt
rl=$?
FAKE_LOAD=fail run --load > noload.txt
rn=$?
run --load --json > load.json
set -e
assert_eq "exit status under load (degraded link fails)" "$rl" 1
head -1 load.txt | grep -q "under a 3 s matmul load" || fail "header: $(head -1 load.txt)"
grep -q "^  PASS  GPU load  " load.txt || fail "load item: $(cat load.txt)"
tr '\n' ' ' < load.txt | tr -s ' ' | grep -q "GPU 0 reached 480 TFLOP/s. GPU 1 reached 480 TFLOP/s." || fail "load rates missing"
assert_eq "failed links under load" "$(grep -c '^  FAIL  PCIe link  *Gen 3 x16 under the load' load.txt)" 2
grep -q '"load": {"requested": true, "ran": true, "seconds": 3}' load.json || fail "JSON load facts"
grep -q '"gpu0_tflops": 480.5' load.json || fail "JSON load rate"

assert_eq "exit status when the load cannot run" "$rn" 1
grep -q "^  WARN  GPU load  *The load could not run: PyTorch sees no CUDA GPU" noload.txt || fail "no-load item: $(cat noload.txt)"
head -1 noload.txt | grep -q "the load could not run" || fail "header: $(head -1 noload.txt)"
assert_eq "idle links warn only" "$(grep -c '^  WARN  PCIe link' noload.txt)" 2
echo "1 passed, 0 failed"
