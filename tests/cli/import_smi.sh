#!/usr/bin/env bash
# gpuwhy import of nvidia-smi logs end to end: dmon and --query-gpu CSV become
# counters-only recordings that report reads; bad lines are named.
. "$(dirname "$0")/lib.bash"
F=$GW_FIXTURES/import
export TZ=UTC

"$GW_BIN" import "$F/h200_dmon_pucvmet.txt" -o dmon.db --start 1795976706 --interval 1 >out.txt ||
  fail "dmon import failed"
grep -q "8 GPU samples from 8 log lines" out.txt || fail "summary: $(cat out.txt)"
grep -q "no date/time columns" out.txt || fail "no note about laid-out times: $(cat out.txt)"
assert_eq "source" "$(q dmon.db 'select source from run')" "import:nvidia-smi"
assert_eq "counters_only" "$(q dmon.db "select value from meta where key = 'counters_only'")" 1
assert_eq "first sample" "$(q dmon.db 'select min(t_ns) from gpu_sample')" 1795976706000000000
assert_eq "last sample" "$(q dmon.db 'select max(t_ns) from gpu_sample')" 1795976713000000000
assert_eq "power" "$(q dmon.db 'select power_mw from gpu_sample order by t_ns limit 1')" 122000

"$GW_BIN" import -q "$F/dmon_2gpu_pucvmet_dt.txt" -o dt.db || fail "dmon -o DT import failed"
assert_eq "two GPUs" "$(q dt.db 'select count(distinct gpu) from gpu_sample')" 2
assert_eq "date and time read" "$(q dt.db 'select min(t_ns) from gpu_sample')" 1795946400000000000
"$GW_BIN" report dt.db >report.txt 2>&1 || fail "report on a dmon import failed: $(cat report.txt)"

"$GW_BIN" import -q "$F/h200_query_gpu.csv" -o query.db || fail "query import failed"
assert_eq "query samples" "$(q query.db 'select count(*) from gpu_sample')" 9
assert_eq "GPU name" "$(q query.db 'select name from gpu')" "NVIDIA H200"
assert_eq "clock reasons" "$(q query.db 'select clock_reasons from gpu_sample order by t_ns limit 1')" 1

printf '# gpu    pwr     sm\n# Idx      W      %%\n    0    100     50\n    0    100\n' >short.txt
fails_with "exit on a short line" 3 "short.txt: line 4: expected 3 values" "$GW_BIN" import short.txt -o x.db
echo "1 passed, 0 failed"
