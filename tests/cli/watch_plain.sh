#!/usr/bin/env bash
# gpuwhy watch --plain through the fake NVML: frames show SM activity beside
# GPU-Util, power against the limit, clocks, and say plainly when GPU-Util and
# SM activity disagree; without a driver, one line says there is no GPU data.
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}"

GPUWHY_NVML_LIB=$GW_FAKE_NVML "$GW_BIN" watch --plain --interval 200 --count 6 > out.txt 2> err.txt ||
  fail "watch exited $?: $(cat err.txt)"
[ "$(grep -c '^gpuwhy watch' out.txt)" -eq 6 ] || fail "expected 6 frames: $(cat out.txt)"
grep -q "GPU 0  " out.txt || fail "no GPU line"
grep -q "GPU-Util" out.txt && grep -q "SM activity" out.txt || fail "no utilization line"
# The fake reports GPU-Util 55% and an SM activity of 10 per GPM sample gap:
# once a GPM window closed, the disagreement is called out.
grep -q "but only .* of SM capacity works" out.txt || fail "GPU-Util vs SM activity disagreement not said: $(cat out.txt)"
grep -Eq "power [0-9]+/700 W" out.txt || fail "power against the limit missing"
grep -q "SM 1755/1980 MHz" out.txt || fail "SM clock against max missing"
grep -q "^CPU " out.txt || fail "no CPU line"

GPUWHY_NVML_LIB=/nonexistent "$GW_BIN" watch --plain --interval 200 --count 2 > none.txt 2>&1 || fail "watch without GPU failed"
grep -q "no GPU data: no NVIDIA driver" none.txt || fail "no clear no-GPU line: $(cat none.txt)"
echo "1 passed, 0 failed"
