#!/usr/bin/env bash
# report joins several files only when they are one job: two runs recorded
# hours apart on one host are refused (exit 2, with the reason), one file
# given twice (one path, a link, a copy with its run id) is refused, and
# --same-job joins anyway; recordings of one job (overlapping) still join.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
H=$GW_FIXTURES/hook_suite
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 command"; exit 77; }
cp "$H/healthy.db" healthy.db
cp "$H/small_batch.db" small_batch.db

# recorded hours apart: not one job
rc=0
"$GW_BIN" report healthy.db small_batch.db >apart.txt 2>apart.err || rc=$?
assert_eq "exit of two unrelated runs" "$rc" 2
grep -q "not one job" apart.err || fail "no reason given: $(cat apart.err)"
grep -q "different times" apart.err || fail "the reason does not name the times: $(cat apart.err)"
grep -q "Multi-GPU" apart.txt && fail "a two-GPU ledger for unrelated runs"
# --same-job insists
"$GW_BIN" report --same-job healthy.db small_batch.db >joined.txt || fail "--same-job exited $?"
grep -q "2 recordings reported together" joined.txt || fail "--same-job did not join"

# the same file twice, by one path and by a link
for pair in "healthy.db healthy.db" "healthy.db ./healthy.db"; do
  rc=0
  # shellcheck disable=SC2086
  "$GW_BIN" report --same-job $pair >twice.txt 2>twice.err || rc=$?
  assert_eq "exit of '$pair'" "$rc" 2
  grep -q "same file" twice.err || fail "'$pair': no reason: $(cat twice.err)"
done
ln healthy.db hard.db
rc=0
"$GW_BIN" report healthy.db hard.db 2>twice.err >/dev/null || rc=$?
assert_eq "exit of a hard link" "$rc" 2

# a copy of one recording keeps its run id: refused even with --same-job
cp healthy.db copy.db
q healthy.db "INSERT OR REPLACE INTO meta VALUES ('run_id', 'r1')"
q copy.db "INSERT OR REPLACE INTO meta VALUES ('run_id', 'r1')"
rc=0
"$GW_BIN" report --same-job healthy.db copy.db 2>copy.err >/dev/null || rc=$?
assert_eq "exit of a copy" "$rc" 2
grep -q "same recording" copy.err || fail "a copy: no reason: $(cat copy.err)"

# overlapping in time but launched as other jobs
cp "$H/healthy.db" n1.db
cp "$H/healthy.db" n2.db
q n1.db "UPDATE run SET hostname = 'node1'; INSERT OR REPLACE INTO env VALUES ('TORCHELASTIC_RUN_ID', 'job-a')"
q n2.db "UPDATE run SET hostname = 'node2'; INSERT OR REPLACE INTO env VALUES ('TORCHELASTIC_RUN_ID', 'job-b')"
rc=0
"$GW_BIN" report n1.db n2.db 2>ids.err >/dev/null || rc=$?
assert_eq "exit of two job ids" "$rc" 2
grep -q "job-a" ids.err || fail "the job ids are not named: $(cat ids.err)"
# one job id, overlapping: one job
q n2.db "UPDATE env SET value = 'job-a' WHERE name = 'TORCHELASTIC_RUN_ID'"
"$GW_BIN" report n1.db n2.db >one.txt || fail "one job refused"
grep -q "node2 GPU 0" one.txt || fail "one job's second node missing"

# a new recording carries a run id, each its own
export GPUWHY_NVML_LIB=${GW_FAKE_NVML:-/nonexistent}
"$GW_BIN" record -q -o rec1.db -- true || fail "record exited $?"
"$GW_BIN" record -q -o rec2.db -- true || fail "record exited $?"
id1=$(q rec1.db "SELECT value FROM meta WHERE key = 'run_id'")
id2=$(q rec2.db "SELECT value FROM meta WHERE key = 'run_id'")
[ "${#id1}" -eq 32 ] || fail "record wrote no run id: '$id1'"
[ "$id1" != "$id2" ] || fail "two recordings share the run id $id1"
echo "report_same_job: passed"
