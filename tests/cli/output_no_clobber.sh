#!/usr/bin/env bash
# record -o and import -o never replace a file that is not a gpuwhy recording
# unless --force is given; a recording of ours is replaced as before; a
# command that cannot be started leaves no file behind.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
export GPUWHY_NVML_LIB=${GW_FAKE_NVML:-/nonexistent}
trace=$GW_FIXTURES/import/query_2gpu.csv

printf 'print("train")\n' > train.py
cp train.py train.orig
rc=0
"$GW_BIN" record -q -o train.py -- true 2>err.txt || rc=$?
assert_eq "exit of record over a user's file (gpuwhy failed, 125)" "$rc" 125
cmp -s train.py train.orig || fail "record -o replaced train.py"
grep -q "not a gpuwhy recording" err.txt || fail "no reason: $(cat err.txt)"
grep -q -- "--force" err.txt || fail "the message does not name --force: $(cat err.txt)"
[ -e train.py-wal ] && fail "a -wal file was left beside train.py"
mkdir adir
rc=0
"$GW_BIN" record -q --force -o adir -- true 2>/dev/null || rc=$?
assert_eq "exit of record over a folder, even with --force (125)" "$rc" 125
[ -d adir ] || fail "the folder is gone"

# --force replaces it; a recording of ours is replaced without --force
"$GW_BIN" record -q --force -o train.py -- true || fail "record --force exited $?"
[ "$(head -c 15 train.py)" = "SQLite format 3" ] || fail "--force did not write a recording"
"$GW_BIN" record -q -o train.py -- true || fail "replacing a recording exited $?"

# a command that cannot be started: exit 127 and no file
rc=0
"$GW_BIN" record -q -o none.db -- /nonexistent/command 2>/dev/null || rc=$?
assert_eq "exit of a command that cannot start" "$rc" 127
ls none.db* 2>/dev/null && fail "a failed start left a file"

# import -o the same
if [ -f "$trace" ]; then
  cp train.orig notes.txt
  rc=0
  "$GW_BIN" import -q "$trace" -o notes.txt 2>err.txt || rc=$?
  assert_eq "exit of import over a user's file" "$rc" 3
  cmp -s notes.txt train.orig || fail "import -o replaced notes.txt"
  grep -q "not a gpuwhy recording" err.txt || fail "import: no reason: $(cat err.txt)"
  "$GW_BIN" import -q --force "$trace" -o notes.txt || fail "import --force exited $?"
  [ "$(head -c 15 notes.txt)" = "SQLite format 3" ] || fail "import --force did not write a recording"
  "$GW_BIN" import -q "$trace" -o notes.txt || fail "import over its own recording exited $?"
fi
echo "output_no_clobber: passed"
