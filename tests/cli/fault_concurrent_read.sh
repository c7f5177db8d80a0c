#!/usr/bin/env bash
# `gpuwhy report` on a recording that another gpuwhy is still writing (WAL):
# every read sees a consistent snapshot (each committed tick whole: the rows
# of both its GPUs, and its host row when it is one of the once-a-second
# host ticks, never one without the others), the report works on the
# unfinished run, and the readers never hold up the writer.
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}"
export GPUWHY_NVML_LIB=$GW_FAKE_NVML

FAKE_NVML_GPUS=2 timeout 60 "$GW_BIN" record -q --interval 20 -o live.db -- sh -c 'sleep 6; exit 2' &
rec=$!
# Wait for the first commit (about one second in).
for _ in $(seq 50); do
  [ "$(q live.db 'select count(*) from gpu_sample' 2>/dev/null || echo 0)" -gt 0 ] && break
  sleep 0.1
done
reads=0 reports=0 last=0
while kill -0 "$rec" 2>/dev/null; do
  # One snapshot: GPU ticks without the row of one of the GPUs, host rows
  # without their tick's GPU rows (the host ticks are a subset of the GPU
  # ticks; the closing host sample, written with the end of the run, has
  # none), and the count of GPU rows.
  snap=$(q live.db "select (select count(*) from (select t_ns from gpu_sample group by t_ns
                                                   having count(*) != (select count(*) from gpu)))
                         + (select count(*) from host_sample h where t_ns is not (select ended_ns from run)
                            and not exists (select 1 from gpu_sample g where g.t_ns = h.t_ns)),
                           (select count(*) from gpu_sample)" 2>/dev/null) || continue
  torn=${snap%%|*} n=${snap##*|}
  assert_eq "ticks cut in half in snapshot $reads" "$torn" 0
  [ "$n" -ge "$last" ] || fail "snapshot $reads has $n GPU rows, fewer than the $last before"
  last=$n reads=$((reads + 1))
  if [ $((reads % 10)) -eq 0 ] && kill -0 "$rec" 2>/dev/null; then
    "$GW_BIN" report --format json live.db >"live-$reports.json" || fail "report on the live recording exited $?"
    python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d['gpus'], 'no GPU'" "live-$reports.json" ||
      fail "report $reports on the live recording is not a report"
    reports=$((reports + 1))
  fi
  sleep 0.05
done
set +e
wait "$rec"
rc=$?
set -e
assert_eq "exit status of the recorded command" "$rc" 2
assert_ge "snapshots read while recording" "$reads" 20
assert_ge "reports made while recording" "$reports" 2
assert_eq "integrity" "$(q live.db 'pragma integrity_check')" ok
assert_eq "GPUs recorded" "$(q live.db 'select count(*) from gpu')" 2
# The writer kept its pace: no gap over 10 ticks (200 ms) between GPU
# samples (written every tick), and the host sampled once a second all along.
gap_ms=$(q live.db 'select max(d) / 1000000 from (select t_ns - lag(t_ns) over (order by t_ns) as d from gpu_sample where gpu = 0)')
[ "$gap_ms" -lt 200 ] || fail "a $gap_ms ms gap in the GPU samples: the readers held up the writer"
assert_ge "host samples in a 6 s run" "$(q live.db 'select count(*) from host_sample')" 6
assert_eq "host samples not about a second apart" "$(host_gaps live.db)" 0
"$GW_BIN" report live.db >/dev/null || fail "report after the run exited $?"
echo "1 passed, 0 failed"
