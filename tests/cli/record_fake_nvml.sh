#!/usr/bin/env bash
# gpuwhy record through the real dlopen path with the fake libnvidia-ml:
# GPU samples stored, NOT_SUPPORTED metrics left NULL (never 0), a GPU lost
# mid-run becomes an event while host sampling continues.
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}"
export GPUWHY_NVML_LIB=$GW_FAKE_NVML

FAKE_NVML_NOT_SUPPORTED=nvmlDeviceGetTotalEnergyConsumption FAKE_NVML_GPUS=2 \
  "$GW_BIN" record -q -o r.db -- sleep 2 || fail "record exited $?"
n=$(q r.db 'select count(*) from gpu_sample where gpu = 0')
assert_ge "GPU 0 samples" "$n" 15
assert_eq "both GPUs sampled" "$(q r.db 'select count(distinct gpu) from gpu_sample')" 2
assert_eq "unsupported energy counter is NULL in every row" \
  "$(q r.db 'select count(*) from gpu_health where energy_mj is not null')" 0
# Power (the driver's 1 s average) is read at the once-a-second ticks only.
np=$(q r.db 'select count(*) from gpu_sample where gpu = 0 and power_mw is not null')
assert_ge "power read once a second" "$np" 2
assert_ge "power not read at every 100 ms tick" "$((n / 4))" "$np"
# GPM metrics cover back-to-back windows (1 s by default): the first row
# has none, then one value per window.
assert_eq "first GPM value absent" "$(q r.db 'select sm_active_pct is null from gpu_sample where gpu = 0 order by t_ns limit 1')" 1
gpm=$(q r.db 'select count(*) from gpu_sample where gpu = 0 and sm_active_pct is not null')
assert_ge "GPM windows in 2 s" "$gpm" 2
[ "$gpm" -le 5 ] || fail "GPM computed $gpm times in 2 s with 500 ms windows"
"$GW_BIN" record -q --gpm-interval 100 -o g100.db -- sleep 1
# 100 ms windows: a tick that comes a hair early waits for the next one
# (GPM needs samples 100 ms apart), so between 5 and 10 windows in 1 s.
assert_ge "GPM windows with --gpm-interval 100" \
  "$(q g100.db 'select count(*) from gpu_sample where gpu = 0 and sm_active_pct is not null')" 4
# --no-gpm: the same GPU handled as one without GPM (issue 22): no GPM
# column filled, gpm_supported 0, the rest sampled as before.
# (GPUWHY_TRACE_PRELOAD=0 wherever the tracer may go in: a sanitizer-built
# tracer cannot be preloaded ahead of the sanitizer runtime.)
GPUWHY_TRACE_PRELOAD=0 "$GW_BIN" record -q --no-gpm -o nogpm.db -- sleep 1 || fail "record --no-gpm exited $?"
assert_eq "no GPM values with --no-gpm" \
  "$(q nogpm.db 'select count(*) from gpu_sample where sm_active_pct is not null or tensor_active_pct is not null')" 0
assert_eq "gpm_supported 0 with --no-gpm" "$(q nogpm.db 'select gpm_supported from gpu where gpu = 0')" 0
# Without GPM, a command is traced in sampled windows unless --no-trace says
# otherwise (GPU-Util alone cannot tell a small batch from real work); the
# recording says why, and record says so once. With GPM nothing is traced
# unless asked.
assert_eq "sampled trace chosen without GPM" "$(q nogpm.db "select value from meta where key='trace_mode'")" sampled
assert_eq "and why" "$(q nogpm.db "select value from meta where key='trace_chosen_because'")" no_gpm
LANGUAGE=C LC_ALL=C GPUWHY_TRACE_PRELOAD=0 "$GW_BIN" record --no-gpm -o nogpm2.db -- sleep 0.3 2> nogpm2.err ||
  fail "record --no-gpm exited $?"
grep -q "no GPM on this GPU: tracing kernels in sampled windows" nogpm2.err ||
  fail "no line on the trace chosen without GPM: $(cat nogpm2.err)"
if grep -q "no sampling window opened" nogpm2.err; then fail "window hint for a trace not asked for: $(cat nogpm2.err)"; fi
LANGUAGE=C LC_ALL=C "$GW_BIN" record --no-gpm --no-trace -o nogpm3.db -- sleep 0.3 2> nogpm3.err ||
  fail "record --no-gpm --no-trace exited $?"
grep -q "no GPM on this GPU and --no-trace: GPU-Util is all" nogpm3.err || fail "no line for --no-trace: $(cat nogpm3.err)"
assert_eq "no trace with --no-trace" "$(q nogpm3.db "select count(*) from meta where key like 'trace%'")" 0
[ ! -e nogpm3.db.trace ] || fail "--no-trace made a trace folder"
LANGUAGE=C LC_ALL=C "$GW_BIN" record -o gpm2.db -- sleep 0.3 2> gpm2.err || fail "record exited $?"
if grep -q "no GPM" gpm2.err; then fail "no-GPM line on a GPU with GPM: $(cat gpm2.err)"; fi
assert_eq "no trace on a GPU with GPM unless asked" "$(q gpm2.db "select count(*) from meta where key like 'trace%'")" 0
rc=0
"$GW_BIN" record --no-trace --trace -o x.db -- true 2> both.err || rc=$?
assert_eq "--no-trace with --trace is a usage error" "$rc" 2
# --pm-sampling alone injects the tracer with no activity window and no
# cost line, and the recording says so (trace_mode pm_sampling); with --trace
# the run goes on after one line on its cost (CUPTI stays in the program),
# and -q leaves that out.
# (GPUWHY_TRACE_PRELOAD=0: a sanitizer-built tracer cannot be preloaded ahead of the sanitizer runtime.)
GPUWHY_TRACE_PRELOAD=0 "$GW_BIN" record --pm-sampling -o pm_only.db -- true 2> pm.err ||
  fail "record --pm-sampling failed: $(cat pm.err)"
if grep -q "pm-sampling keeps CUPTI" pm.err; then fail "cost line for --pm-sampling alone: $(cat pm.err)"; fi
if grep -q "no sampling window opened" pm.err; then fail "window hint for --pm-sampling alone: $(cat pm.err)"; fi
assert_eq "trace_mode of --pm-sampling alone" "$(q pm_only.db "select value from meta where key='trace_mode'")" pm_sampling
GPUWHY_TRACE_PRELOAD=0 "$GW_BIN" record --trace --pm-sampling -o pm.db -- true 2> pm.err ||
  fail "record --trace --pm-sampling failed: $(cat pm.err)"
grep -q "pm-sampling keeps CUPTI inside the program" pm.err || fail "no cost line for --pm-sampling: $(cat pm.err)"
GPUWHY_TRACE_PRELOAD=0 "$GW_BIN" record -q --trace --pm-sampling -o pm.db -- true 2> pm.err ||
  fail "record -q --trace --pm-sampling failed: $(cat pm.err)"
if grep -q "pm-sampling keeps CUPTI" pm.err; then fail "-q printed the cost line: $(cat pm.err)"; fi
assert_ge "GPU-Util still sampled with --no-gpm" \
  "$(q nogpm.db 'select count(*) from gpu_sample where util_gpu_pct is not null')" 5
assert_ge "health rows about once a second" "$(q r.db 'select count(*) from gpu_health where gpu = 0')" 2
assert_eq "static facts" "$(q r.db 'select power_default_limit_mw from gpu where gpu = 0')" 700000
q r.db 'select driver_version from run' | grep -q . || fail "driver version not recorded"
# The energy counter is read at the start and at the end (exact average power).
assert_ge "energy readings" "$(q g100.db 'select count(*) from gpu_health where energy_mj is not null')" 2

# GPU lost after 8 ticks: one event, no GPU rows after it, host rows go on
# (once a second: at 1 and 2 s, and the closing one at the end).
FAKE_NVML_LOST_AFTER=8 "$GW_BIN" record -q -o lost.db -- sleep 2 || fail "record with a lost GPU exited $?"
assert_eq "gpu_lost events" "$(q lost.db "select count(*) from event where kind = 'gpu_lost'")" 1
lost_t=$(q lost.db "select t_ns from event where kind = 'gpu_lost'")
assert_eq "GPU rows after the loss" "$(q lost.db "select count(*) from gpu_sample where t_ns > $lost_t")" 0
assert_ge "host rows after the loss" "$(q lost.db "select count(*) from host_sample where t_ns > $lost_t")" 2
assert_eq "host rows not about a second apart" "$(host_gaps lost.db)" 0
assert_eq "closing host row at the end of the run" \
  "$(q lost.db 'select count(*) from host_sample where t_ns = (select ended_ns from run)')" 1
echo "1 passed, 0 failed"
