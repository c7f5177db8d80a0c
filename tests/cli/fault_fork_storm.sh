#!/usr/bin/env bash
# A command that forks 200 short-lived workers in quick waves (a data loader
# restarting its pool): the recorder keeps its pace, the exit status comes
# back, and the proc_start / proc_exit events make sense: at most one of
# each per process, an exit never before its start, only for processes of
# the command's tree, and every worker seen is seen leaving.
. "$(dirname "$0")/lib.bash"
export GPUWHY_NVML_LIB=${GW_FAKE_NVML:-/nonexistent}

# 5 waves of 40 workers, 0.4 s apart; each lives 0.3 to 0.7 s. The command
# lingers after its last worker so that the recorder sees every exit.
storm='w=0
while [ $w -lt 5 ]; do
  i=0
  while [ $i -lt 40 ]; do (sleep 0.$((3 + i % 5)); exit 3) & i=$((i + 1)); done
  sleep 0.4; w=$((w + 1))
done
wait; sleep 0.5; exit 9'
set +e
timeout 60 "$GW_BIN" record -o storm.db -- sh -c "$storm" 2>storm.err
rc=$?
set -e
cat storm.err >&2
! grep -q 'AddressSanitizer\|runtime error\|LeakSanitizer' storm.err || fail "sanitizer report"
assert_eq "exit status of the command" "$rc" 9

ticks=$(q storm.db "select value from meta where key = 'recorder_ticks'")
late=$(q storm.db "select value from meta where key = 'recorder_ticks_late'")
span_ms=$(q storm.db 'select (ended_ns - started_ns) / 1000000 from run')
assert_ge "ticks at 100 ms over $span_ms ms" "$ticks" $((span_ms / 100 - 2))
[ "$late" -le 2 ] || fail "$late late ticks: the recorder fell behind"
if [ -n "${GW_FAKE_NVML:-}" ]; then
  assert_eq "GPU samples, one per tick" "$(q storm.db 'select count(*) from gpu_sample')" "$ticks"
fi
# The host (and the process tree) once a second, whatever the tick, and once at the end.
span_s=$((span_ms / 1000))
host=$(q storm.db 'select count(*) from host_sample')
assert_ge "host samples in a $span_s s run" "$host" $((span_s + 1))
[ "$host" -le $((span_s + 3)) ] || fail "$host host samples in a $span_s s run: more than once a second"
assert_eq "host samples not about a second apart" "$(host_gaps storm.db)" 0

seen=$(q storm.db 'select count(distinct pid) from proc_sample where role = 1')
assert_ge "workers seen" "$seen" 40
assert_ge "workers seen starting" "$(q storm.db "select count(*) from event where kind = 'proc_start'")" 20
assert_eq "processes with two starts or two exits" \
  "$(q storm.db "select count(*) from (select pid, kind from event where kind in ('proc_start', 'proc_exit')
                 group by pid, kind having count(*) > 1)")" 0
assert_eq "exits before their start" \
  "$(q storm.db "select count(*) from event s join event e on s.pid = e.pid
                 where s.kind = 'proc_start' and e.kind = 'proc_exit' and e.t_ns < s.t_ns")" 0
# A worker may start and end between two samples: then it has its two
# events (same instant) and no sample. Its parent must still be in the tree.
assert_eq "starts whose parent is outside the tree" \
  "$(q storm.db "select count(*) from event where kind = 'proc_start'
                 and cast(substr(message, instr(message, 'parent ') + 7) as integer) not in
                 (select target_pid from run union select pid from proc_sample
                  union select pid from event where kind = 'proc_start')")" 0
assert_eq "exits of processes never seen" \
  "$(q storm.db "select count(*) from event where kind = 'proc_exit' and pid not in
                 (select pid from proc_sample union select pid from event where kind = 'proc_start')")" 0
assert_eq "workers seen but never seen leaving" \
  "$(q storm.db "select count(*) from (select distinct pid from proc_sample where role = 1)
                 where pid not in (select pid from event where kind = 'proc_exit')")" 0
"$GW_BIN" report storm.db >/dev/null || fail "report exited $?"
echo "1 passed, 0 failed"
