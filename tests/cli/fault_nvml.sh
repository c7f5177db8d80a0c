#!/usr/bin/env bash
# The NVIDIA driver misbehaving mid-run, through the fake libnvidia-ml:
# GPU_IS_LOST on one of two GPUs, UNKNOWN on the first call of the functions
# gpuwhy uses (a transient error, also while the static facts are read), and
# TIMEOUT on every call for a stretch of ticks. The recording goes on, the
# host is sampled throughout (once a second, and at the end), what could not
# be read is NULL (never 0), and the command's exit status comes back.
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}"
export GPUWHY_NVML_LIB=$GW_FAKE_NVML

no_sanitizer_report() {
  ! grep -q 'AddressSanitizer\|runtime error\|LeakSanitizer' "$1" || fail "sanitizer report in $1"
}

# GPU_IS_LOST on GPU 1 of 2 after 10 ticks: said once on stderr, one event,
# GPU 0 goes on.
set +e
FAKE_NVML_GPUS=2 FAKE_NVML_LOST_GPU=1 FAKE_NVML_LOST_AFTER=10 \
  timeout 60 "$GW_BIN" record -o lost.db -- sh -c 'sleep 2.5; exit 4' 2>lost.err
rc=$?
set -e
no_sanitizer_report lost.err
assert_eq "exit status with a GPU lost" "$rc" 4
assert_eq "stderr lines about the lost GPU" "$(grep -c 'gpu_lost' lost.err)" 1
grep 'gpu_lost' lost.err | grep -q 'GPU is lost' || fail "the message does not say what happened: $(cat lost.err)"
assert_eq "gpu_lost events" "$(q lost.db "select count(*) from event where kind = 'gpu_lost' and gpu = 1")" 1
lost_t=$(q lost.db "select t_ns from event where kind = 'gpu_lost'")
assert_eq "GPU 1 rows after the loss" "$(q lost.db "select count(*) from gpu_sample where gpu = 1 and t_ns > $lost_t")" 0
assert_ge "GPU 0 rows after the loss" "$(q lost.db "select count(*) from gpu_sample where gpu = 0 and t_ns > $lost_t")" 10
# The host once a second through the loss: at 1 (maybe) and 2 s, and at the end.
assert_ge "host rows after the loss" "$(q lost.db "select count(*) from host_sample where t_ns > $lost_t")" 2
assert_eq "host rows not about a second apart" "$(host_gaps lost.db)" 0
assert_eq "closing host row at the end of the run" \
  "$(q lost.db 'select count(*) from host_sample where t_ns = (select ended_ns from run)')" 1
"$GW_BIN" report lost.db >/dev/null || fail "report exited $?"

# UNKNOWN once from each of these, including the calls that read the static
# facts at the start: those are asked again, the samples come back a tick later.
once=nvmlDeviceGetName,nvmlDeviceGetUUID,nvmlDeviceGetPciInfo_v3,nvmlDeviceGetMemoryInfo_v2
once=$once,nvmlDeviceGetPowerUsage,nvmlDeviceGetUtilizationRates,nvmlDeviceGetClockInfo,nvmlDeviceGetSamples
once=$once,nvmlGpmSampleGet,nvmlDeviceGetFieldValues,nvmlDeviceGetTemperature,nvmlDeviceGetTotalEnergyConsumption
once=$once,nvmlDeviceGetCurrentClocksEventReasons,nvmlDeviceGetComputeRunningProcesses_v3
set +e
FAKE_NVML_FAIL_ONCE=$once timeout 60 "$GW_BIN" record -o unknown.db -- sh -c 'sleep 1.5; exit 5' 2>unknown.err
rc=$?
set -e
no_sanitizer_report unknown.err
assert_eq "exit status with transient errors" "$rc" 5
assert_eq "no GPU reported lost" "$(q unknown.db "select count(*) from event where kind = 'gpu_lost'")" 0
assert_eq "static facts read despite a transient error" \
  "$(q unknown.db "select name != '' and uuid != '' and pci_bus_id != '' from gpu where gpu = 0")" 1
assert_ge "samples with utilization after the first tick" \
  "$(q unknown.db 'select count(*) from gpu_sample where util_gpu_pct is not null')" 10
assert_ge "the SM clock read again after its failed first read" \
  "$(q unknown.db 'select count(*) from gpu_sample where sm_clock_mhz is not null')" 1
assert_eq "a failed read is NULL, never 0" "$(q unknown.db 'select count(*) from gpu_sample where power_mw = 0 or sm_clock_mhz = 0')" 0

# TIMEOUT on every device call from tick 6 to tick 15: those ticks have no
# GPU values (NULL), the GPU is not taken for lost, values come back after.
set +e
FAKE_NVML_TIMEOUT_TICKS=5,15 timeout 60 "$GW_BIN" record -o timeout.db -- sh -c 'sleep 3; exit 6' 2>timeout.err
rc=$?
set -e
no_sanitizer_report timeout.err
assert_eq "exit status with driver timeouts" "$rc" 6
assert_eq "no GPU reported lost" "$(q timeout.db "select count(*) from event where kind = 'gpu_lost'")" 0
# tick k of the GPU: its rank in time
# (utilization is read every tick; clocks and power once a second)
ranked="select row_number() over (order by t_ns) as k, util_gpu_pct, sm_clock_mhz from gpu_sample where gpu = 0"
assert_eq "ticks 6..15 without utilization" "$(q timeout.db "select count(*) from ($ranked) where k between 6 and 15 and util_gpu_pct is null")" 10
assert_eq "ticks 6..15 without the SM clock" "$(q timeout.db "select count(*) from ($ranked) where k between 6 and 15 and sm_clock_mhz is not null")" 0
assert_ge "ticks after the timeouts with utilization" "$(q timeout.db "select count(*) from ($ranked) where k > 16 and util_gpu_pct is not null")" 10
assert_ge "SM clock read again after the timeouts" "$(q timeout.db "select count(*) from ($ranked) where k > 16 and sm_clock_mhz is not null")" 1
assert_eq "a timed-out read is NULL, never 0" "$(q timeout.db 'select count(*) from gpu_sample where power_mw = 0 or sm_clock_mhz = 0')" 0
# The host all along, once a second: at 0, 1, 2 and maybe 3 s, and at the end.
span_s=$(q timeout.db 'select (ended_ns - started_ns) / 1000000000 from run')
assert_ge "host rows in a $span_s s run" "$(q timeout.db 'select count(*) from host_sample')" $((span_s + 1))
assert_eq "host rows not about a second apart" "$(host_gaps timeout.db)" 0
assert_eq "closing host row at the end of the run" \
  "$(q timeout.db 'select count(*) from host_sample where t_ns = (select ended_ns from run)')" 1
"$GW_BIN" report timeout.db >/dev/null || fail "report exited $?"
echo "1 passed, 0 failed"
