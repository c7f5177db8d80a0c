#!/usr/bin/env bash
# gpuwhy record on a machine without an NVIDIA driver: host-only recording,
# one clear line about the missing GPU, the command's exit status passed through.
. "$(dirname "$0")/lib.bash"
export GPUWHY_NVML_LIB=/nonexistent/libnvidia-ml.so.1

"$GW_BIN" record --duration 3 -o r.db -- sleep 2 2>err.txt || fail "record exited $?: $(cat err.txt)"
grep -q "no GPU data: no NVIDIA driver" err.txt || fail "no clear no-GPU line: $(cat err.txt)"
n=$(q r.db 'select count(*) from host_sample')
assert_ge "host samples in 2 s at 100 ms" "$n" 15
# Per-core rows once a second, every core each time.
nc=$(q r.db 'select count(distinct t_ns) from cpu_sample')
assert_ge "per-core rows once a second" "$nc" 2
assert_ge "per-core rows not every tick" "$((n / 4))" "$nc"
assert_eq "every core in each per-core sample" "$(q r.db 'select count(*) from cpu_sample')" "$((nc * $(nproc)))"
assert_eq "GPU samples" "$(q r.db 'select count(*) from gpu_sample')" 0
q r.db 'select gpu_note from run' | grep -q "no NVIDIA driver" || fail "run.gpu_note does not say why"
assert_eq "exit status recorded" "$(q r.db 'select exit_status from run')" 0
assert_eq "command recorded" "$(q r.db 'select command from run')" '["sleep","2"]'
# The target process was followed.
assert_ge "target process rows" "$(q r.db 'select count(*) from proc_sample where role = 0 and comm = "sleep"')" 5
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
