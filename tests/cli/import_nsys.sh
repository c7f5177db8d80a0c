#!/usr/bin/env bash
# gpuwhy import of an Nsight Systems SQLite export end to end, built here from
# the fixture's SQL with the sqlite3 shell.
. "$(dirname "$0")/lib.bash"
F=$GW_FIXTURES/import

sqlite3 export.sqlite <"$F/nsys_small.sql"
"$GW_BIN" import export.sqlite -o nsys.db >out.txt || fail "nsys import failed"
grep -q "3 kernels, 1 copies, 1 memsets, 1 syncs, 4 API calls, 2 markers, 1 steps on 2 GPU" out.txt ||
  fail "summary: $(cat out.txt)"
assert_eq "source" "$(q nsys.db 'select source from run')" "import:nsys"
assert_eq "pids" "$(q nsys.db 'select group_concat(pid) from (select distinct pid from kernel order by pid)')" \
  "5001,5002"
assert_eq "kernel start" "$(q nsys.db 'select min(start_ns) from kernel')" 1790857026001000000
"$GW_BIN" report nsys.db >report.txt 2>&1 || fail "report on an nsys import failed: $(cat report.txt)"

# a required column missing: named, exit 3
sqlite3 export.sqlite 'ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY DROP COLUMN copyKind'
fails_with "exit on a missing column" 3 "CUPTI_ACTIVITY_KIND_MEMCPY lacks column(s) copyKind" \
  "$GW_BIN" import export.sqlite -o x.db
echo "1 passed, 0 failed"
