#!/usr/bin/env bash
# gpuwhy record on a machine without an NVIDIA driver: host-only recording,
# one clear line about the missing GPU, the command's exit status passed through.
. "$(dirname "$0")/lib.bash"
export GPUWHY_NVML_LIB=/nonexistent/libnvidia-ml.so.1

"$GW_BIN" record --duration 3 -o r.db -- sleep 2 2>err.txt || fail "record exited $?: $(cat err.txt)"
grep -q "no GPU data: no NVIDIA driver" err.txt || fail "no clear no-GPU line: $(cat err.txt)"
# Ticks every 100 ms; the host sampled at the once-a-second ticks, plus one
# closing sample at the end: at 0, 1 and 2 s and the close in a 2 s run.
assert_ge "ticks in 2 s at 100 ms" "$(q r.db "select value from meta where key = 'recorder_ticks'")" 15
n=$(q r.db 'select count(*) from host_sample')
span_s=$(q r.db 'select (ended_ns - started_ns) / 1000000000 from run')
assert_ge "host samples in a $span_s s run, once a second and at the end" "$n" $((span_s + 1))
[ "$n" -le $((span_s + 3)) ] || fail "$n host samples in a $span_s s run: more than once a second"
assert_eq "host samples not about a second apart" "$(host_gaps r.db)" 0
assert_eq "closing host sample at the end of the run" \
  "$(q r.db 'select count(*) from host_sample where t_ns = (select ended_ns from run)')" 1
# Per-core rows with the host samples (from the second on: they are rates),
# every core each time.
nc=$(q r.db 'select count(distinct t_ns) from cpu_sample')
assert_ge "per-core samples" "$nc" 2
assert_eq "per-core rows without their host sample" \
  "$(q r.db 'select count(*) from cpu_sample where t_ns not in (select t_ns from host_sample)')" 0
# The closing sample can come within one clock tick (10 ms) of the last
# tick's, where a core has no elapsed time and so no rate: only the samples
# before it must hold every core.
assert_eq "every core in each per-core sample before the closing one" \
  "$(q r.db 'select count(*) from cpu_sample where t_ns != (select ended_ns from run)')" \
  "$(($(q r.db 'select count(distinct t_ns) from cpu_sample where t_ns != (select ended_ns from run)') * $(nproc)))"
[ "$(q r.db 'select count(*) from cpu_sample where t_ns = (select ended_ns from run)')" -le "$(nproc)" ] ||
  fail "more per-core rows than cores in the closing sample"
assert_eq "GPU samples" "$(q r.db 'select count(*) from gpu_sample')" 0
q r.db 'select gpu_note from run' | grep -q "no NVIDIA driver" || fail "run.gpu_note does not say why"
assert_eq "exit status recorded" "$(q r.db 'select exit_status from run')" 0
assert_eq "command recorded" "$(q r.db 'select command from run')" '["sleep","2"]'
# The target process was followed: a row in each host sample while it ran
# (every one but the closing sample: the command is reaped after the tick's host sample).
# Its name may still be the recorder's in the first sample, before exec.
assert_eq "host samples without the target process" \
  "$(q r.db 'select count(*) from host_sample h where t_ns != (select ended_ns from run) and not exists
               (select 1 from proc_sample p where p.t_ns = h.t_ns and role = 0)')" 0
assert_ge "samples of the target as sleep" "$(q r.db 'select count(*) from proc_sample where role = 0 and comm = "sleep"')" 1
# Busy CPU time is a percentage.
q r.db 'select count(*) from host_sample where cpu_busy_pct < 0 or cpu_busy_pct > 100.5' | grep -qx 0 ||
  fail "CPU busy outside 0-100"

# Exit status pass-through, normal and by signal.
set +e
"$GW_BIN" record -q -o s.db -- sh -c 'exit 7'
rc=$?
"$GW_BIN" record -q -o k.db -- sh -c 'kill -9 $$'
rk=$?
"$GW_BIN" record -q -o n.db -- /nonexistent/command 2>nx.txt
rn=$?
set -e
assert_eq "exit status of 'exit 7'" "$rc" 7
assert_eq "exit status of a SIGKILLed command" "$rk" 137
assert_eq "recorded status of a SIGKILLed command" "$(q k.db 'select exit_status from run')" 137
assert_eq "exit status of a missing command" "$rn" 127
grep -q "cannot run /nonexistent/command" nx.txt || fail "no message for a missing command"

# Usage errors exit 2.
set +e
"$GW_BIN" record --interval 0 -- true 2>/dev/null
ru=$?
"$GW_BIN" record 2>/dev/null
rn2=$?
set -e
assert_eq "bad interval" "$ru" 2
assert_eq "no command" "$rn2" 2
echo "1 passed, 0 failed"
