#!/usr/bin/env bash
# kill -9 of gpuwhy mid-run, and of the target: the recording opens and holds
# every sample up to the last second before the kill.
. "$(dirname "$0")/lib.bash"
export GPUWHY_NVML_LIB=${GW_FAKE_NVML:-/nonexistent}

"$GW_BIN" record -q -o g.db -- sleep 30 &
rec=$!
sleep 4
kill_ns=$(date +%s%N)
kill -9 "$rec"
wait "$rec" 2>/dev/null || true
pkill -f "^sleep 30$" || true
n=$(q g.db 'select count(*) from host_sample')
assert_ge "host samples kept after kill -9 of gpuwhy (4 s at 100 ms)" "$n" 28
last=$(q g.db 'select max(t_ns) from host_sample')
lag_ms=$(( (kill_ns - last) / 1000000 ))
[ "$lag_ms" -le 1300 ] || fail "last kept sample is $lag_ms ms before the kill (allowed: one commit period + one tick)"
if [ -n "${GW_FAKE_NVML:-}" ]; then
  assert_ge "GPU samples kept" "$(q g.db 'select count(*) from gpu_sample')" 28
fi
# The file is a consistent database.
assert_eq "integrity" "$(q g.db 'pragma integrity_check')" ok

# The target killed mid-run: recording ends cleanly with its status.
set +e
"$GW_BIN" record -q -o t.db -- sh -c 'sleep 2; kill -9 $$'
rc=$?
set -e
assert_eq "status of the killed target" "$rc" 137
assert_ge "samples of the killed target's run" "$(q t.db 'select count(*) from host_sample')" 15
q t.db 'select ended_ns is not null and exit_status = 137 from run' | grep -qx 1 || fail "run end not recorded"
echo "1 passed, 0 failed"
