#!/usr/bin/env bash
# record --dcgm end to end with the fake libnvidia-ml (a GPU without GPM) and
# the fake libdcgm (tests/fake_dcgm): SM activity, occupancy, tensor and DRAM
# activity come from DCGM's profiling fields, the recording says so and the
# report names "dcgm" as the source; every way DCGM can be missing (no
# library, no host engine, fields not supported, engine gone mid-run) is one
# note and the recording goes on.
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}" "${GW_FAKE_DCGM:?}"
export GPUWHY_NVML_LIB=$GW_FAKE_NVML GPUWHY_DCGM_LIB=$GW_FAKE_DCGM FAKE_NVML_NO_GPM=1
sm_rows() { q "$1" "select count(*) from gpu_sample where gpu = ${2:-0} and sm_active_pct is not null"; }

# Two scripted update periods, then the second repeats: 42% then 60% SM active.
FAKE_DCGM_LOG=$PWD/calls.log FAKE_DCGM_VALUES="0.42,0.3,0.1,0.2;0.6,0.35,0.2,0.25" \
  "$GW_BIN" record -q --dcgm --gpm-interval 200 -o d.db -- sleep 2 || fail "record --dcgm exited $?"
n=$(sm_rows d.db)
# Ticks come late on a loaded machine: at least three of the ten windows, never more than one row each.
assert_ge "SM activity rows from DCGM (one per 200 ms window)" "$n" 3
[ "$n" -le 11 ] || fail "$n SM activity rows in 2 s with 200 ms windows: more than one per window"
assert_eq "every row one scripted window's values, ratios times 100" \
  "$(q d.db "select count(*) from gpu_sample where gpu = 0 and sm_active_pct is not null and
             sm_active_pct || '|' || sm_occupancy_pct || '|' || tensor_active_pct || '|' || dram_bw_pct
             not in ('42.0|30.0|10.0|20.0', '60.0|35.0|20.0|25.0')")" 0
assert_eq "later windows' values" \
  "$(q d.db 'select sm_active_pct, sm_occupancy_pct, tensor_active_pct, dram_bw_pct from gpu_sample
             where gpu = 0 and sm_active_pct is not null order by t_ns desc limit 1')" "60.0|35.0|20.0|25.0"
assert_eq "the four columns filled together" \
  "$(q d.db 'select count(*) from gpu_sample where (sm_active_pct is null) != (dram_bw_pct is null)
             or (sm_active_pct is null) != (tensor_active_pct is null)')" 0
assert_eq "GPU-Util sampled as before" "$(q d.db 'select count(*) = 0 from gpu_sample where util_gpu_pct is null')" 1
assert_eq "source on record" "$(q d.db "select value from meta where key = 'sm_activity_source.gpu0'")" dcgm
assert_eq "GPM still not claimed" "$(q d.db 'select gpm_supported from gpu where gpu = 0')" 0
"$GW_BIN" report --format json d.db > d.json || fail "report exited $?"
python3 - d.json <<'PY' || fail "report's sm_activity_source is not dcgm"
import json, sys
g = json.load(open(sys.argv[1]))["gpus"][0]
assert g["sm_activity_source"] == "dcgm" and g["sm_activity_available"], g
PY
"$GW_BIN" report d.db | grep "DCGM's profiling fields" >/dev/null || fail "the text report does not name DCGM"
grep -q "^dcgmConnect_v2 127.0.0.1:5555 .*persist=0 timeout_ms=1000 unix=0" calls.log ||
  fail "not connected to the default host engine without persisting watches: $(cat calls.log)"
grep -q "^dcgmFieldGroupCreate 1002,1003,1004,1005,52 " calls.log || fail "field group: $(cat calls.log)"
grep -q "^dcgmWatchFields group=0x7fffffff fields=7 update_us=200000 " calls.log || fail "watch: $(cat calls.log)"
for call in dcgmUnwatchFields dcgmFieldGroupDestroy dcgmDisconnect dcgmShutdown; do
  grep -q "^$call" calls.log || fail "$call not called at the end: $(cat calls.log)"
done

# Address given, and a unix socket.
rm -f calls.log
FAKE_DCGM_LOG=$PWD/calls.log "$GW_BIN" record -q --dcgm=10.1.2.3:6000 -o a.db -- true
grep -q "^dcgmConnect_v2 10.1.2.3:6000 " calls.log || fail "address not passed: $(cat calls.log)"
FAKE_DCGM_LOG=$PWD/calls.log "$GW_BIN" record -q --dcgm=unix:/run/dcgm.sock -o a.db -- true
grep -q "^dcgmConnect_v2 /run/dcgm.sock .*unix=1" calls.log || fail "unix socket: $(cat calls.log)"

# DCGM numbers GPUs its own way: field 52 maps them to NVML's indices.
FAKE_NVML_GPUS=2 FAKE_DCGM_GPUS=2 FAKE_DCGM_NVML_INDEX=1,0 \
  "$GW_BIN" record -q --dcgm --gpm-interval 200 -o m.db -- sleep 1
assert_eq "NVML GPU 0 is DCGM GPU 1" "$(q m.db 'select max(sm_active_pct) from gpu_sample where gpu = 0')" 51.0
assert_eq "NVML GPU 1 is DCGM GPU 0" "$(q m.db 'select max(sm_active_pct) from gpu_sample where gpu = 1')" 50.0

# Fail open: one line saying why, the recording goes on without DCGM.
fail_open() { # NAME EXPECTED-TEXT ENV...
  local name=$1 want=$2
  shift 2
  local rc=0
  env "$@" "$GW_BIN" record --dcgm -o "$name.db" -- sleep 0.5 2> "$name.err" || rc=$?
  assert_eq "$name: command's exit status" "$rc" 0
  grep -q "$want" "$name.err" || fail "$name: no '$want' on stderr: $(cat "$name.err")"
  assert_eq "$name: one DCGM line" "$(grep -c 'DCGM' "$name.err")" 1
  q "$name.db" "select value from meta where key = 'dcgm_note'" | grep -q "$want" || fail "$name: note not recorded"
  assert_eq "$name: no SM activity" "$(sm_rows "$name.db")" 0
  assert_ge "$name: GPU still sampled" "$(q "$name.db" 'select count(*) from gpu_sample where util_gpu_pct >= 0')" 1
}
fail_open nolib "no libdcgm\|cannot be loaded" GPUWHY_DCGM_LIB=$PWD/no-such-libdcgm.so
fail_open refused "no host engine answered at 127.0.0.1:5555" FAKE_DCGM_CONNECT=refuse
fail_open unsupported "not supported on these GPUs" FAKE_DCGM_WATCH_STATUS=-36
fail_open in_use "in use by another client" FAKE_DCGM_WATCH_STATUS=-34
fail_open has_gpm "every GPU has GPM" FAKE_NVML_NO_GPM=0
assert_eq "with GPM, no DCGM source" "$(q has_gpm.db "select count(*) from meta where key like 'sm_activity_source%'")" 0

# One field not supported on the GPU: the others still come, one note event.
FAKE_DCGM_FIELD_STATUS=1004:-6 "$GW_BIN" record -q --dcgm --gpm-interval 200 -o f.db -- sleep 1
assert_ge "SM activity without the tensor field" "$(sm_rows f.db)" 1
assert_eq "tensor column empty" "$(q f.db 'select count(*) from gpu_sample where tensor_active_pct is not null')" 0
assert_eq "one note for the field" \
  "$(q f.db "select count(*) from event where kind = 'note' and message like '%tensor pipe active (field 1004)%'")" 1

# The host engine goes away after three reads: one note, no more values.
FAKE_DCGM_GONE_AFTER=3 "$GW_BIN" record -q --dcgm --gpm-interval 200 -o g.db -- sleep 1.5
assert_eq "one note when the engine goes" \
  "$(q g.db "select count(*) from event where kind = 'note' and message like 'DCGM: the host engine went away%'")" 1
assert_ge "values before it went" "$(sm_rows g.db)" 1
gone_t=$(q g.db "select t_ns from event where kind = 'note' and message like 'DCGM: the host engine%'")
assert_eq "no values after" "$(q g.db "select count(*) from gpu_sample where sm_active_pct is not null and t_ns > $gone_t")" 0

# Without --dcgm nothing connects; a GPU without GPM gets a hint when libdcgm is there.
rm -f calls.log
FAKE_DCGM_LOG=$PWD/calls.log "$GW_BIN" record --no-trace -o h.db -- true 2> h.err
grep -q "record --dcgm reads SM activity" h.err || fail "no hint: $(cat h.err)"
[ ! -e calls.log ] || fail "DCGM called without --dcgm: $(cat calls.log)"
echo "1 passed, 0 failed"
