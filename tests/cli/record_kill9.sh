#!/usr/bin/env bash
# kill -9 of gpuwhy mid-run, and of the target: the recording opens and holds
# every sample up to the last second before the kill (commits come once a
# second): the GPU rows of every tick, the host rows of every once-a-second
# host sample.
. "$(dirname "$0")/lib.bash"
export GPUWHY_NVML_LIB=${GW_FAKE_NVML:-/nonexistent}

"$GW_BIN" record -q -o g.db -- sleep 30 &
rec=$!
sleep 4
kill_ns=$(date +%s%N)
kill -9 "$rec"
wait "$rec" 2>/dev/null || true
pkill -f "^sleep 30$" || true
# Lag of the last kept row behind the kill, in ms.
lag_ms() { echo $(((kill_ns - $(q g.db "select max(t_ns) from $1")) / 1000000)); }
if [ -n "${GW_FAKE_NVML:-}" ]; then
  # What was committed is kept whole: no hole of a commit period (1 s) or
  # more between kept ticks, and at least one tick in three of the 40 asked
  # for (a sanitizer build starved of CPU ticks late, not never).
  assert_ge "GPU samples kept after kill -9 of gpuwhy (4 s at 100 ms)" "$(q g.db 'select count(*) from gpu_sample')" 13
  holes=$(q g.db "select count(*) from (select t_ns - lag(t_ns) over (order by t_ns) as d from
           (select distinct t_ns from gpu_sample)) where d >= 1000000000")
  assert_eq "holes of a second or more between kept GPU ticks" "$holes" 0
  lag=$(lag_ms gpu_sample)
  [ "$lag" -le 1300 ] || fail "last kept GPU sample is $lag ms before the kill (allowed: one commit period + one tick)"
fi
# The host once a second: samples at 0, 1, 2 and 3 s, the last maybe not yet committed.
assert_ge "host samples kept after kill -9 of gpuwhy (4 s, once a second)" "$(q g.db 'select count(*) from host_sample')" 3
assert_eq "host samples not about a second apart" "$(host_gaps g.db)" 0
lag=$(lag_ms host_sample)
[ "$lag" -le 2300 ] || fail "last kept host sample is $lag ms before the kill (allowed: one commit period + one second + one tick)"
# The file is a consistent database.
assert_eq "integrity" "$(q g.db 'pragma integrity_check')" ok

# The target killed mid-run: recording ends cleanly with its status.
set +e
"$GW_BIN" record -q -o t.db -- sh -c 'sleep 2; kill -9 $$'
rc=$?
set -e
assert_eq "status of the killed target" "$rc" 137
if [ -n "${GW_FAKE_NVML:-}" ]; then
  assert_ge "GPU samples of the killed target's run" "$(q t.db 'select count(*) from gpu_sample')" 15
fi
# At 0, 1 and maybe 2 s, and the closing one.
assert_ge "host samples of the killed target's run" "$(q t.db 'select count(*) from host_sample')" 3
assert_eq "closing host sample at the end of the run" \
  "$(q t.db 'select count(*) from host_sample where t_ns = (select ended_ns from run)')" 1
q t.db 'select ended_ns is not null and exit_status = 137 from run' | grep -qx 1 || fail "run end not recorded"
echo "1 passed, 0 failed"
