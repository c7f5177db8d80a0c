#!/usr/bin/env bash
# Damaged copies of three recordings (cut at a page boundary and 1000 bytes
# short, bytes flipped in the middle, text in sm_active_pct, a dropped column,
# a dropped table, a newer user_version): each gives exit 3 with a message, or the
# verdict of the undamaged file. Never another verdict silently, never a
# crash, never a hang. Read-only commands leave no -wal/-shm beside the file;
# a recording in a folder the user cannot write is still read; a pipe, a
# folder or /dev/zero is refused at once.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 command"; exit 77; }
verdict() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$1"; }

check() { # check NAME ORIGINAL_VERDICT
  local f=$1.db want=$2 rc=0
  timeout 60 "$GW_BIN" report --format json "$f" >"$1.json" 2>"$1.err" || rc=$?
  case $rc in
    0)
      got=$(verdict "$1.json") || fail "$1: exit 0 without a JSON report"
      if [ "$got" != "$want" ] && ! grep -qi damaged "$1.json"; then
        fail "$1: verdict '$got' instead of '$want', and no damaged notice"
      fi ;;
    3) [ -s "$1.err" ] || fail "$1: exit 3 without a message" ;;
    *) fail "$1: exit $rc ($(head -c 300 "$1.err"))" ;;
  esac
  ls "$f"-wal "$f"-shm 2>/dev/null && fail "$1: report left side files"
  echo "$1: exit $rc $(head -c 160 "$1.err")"
}

for src in hook_suite/healthy.db hook_suite/small_batch.db scenarios/launch_tiny_ops.db; do
  [ -f "$GW_FIXTURES/$src" ] || continue
  b=$(basename "$src" .db)
  cp "$GW_FIXTURES/$src" "$b.db"
  "$GW_BIN" report --format json "$b.db" >"$b.json" || fail "$b: the undamaged copy exited $?"
  want=$(verdict "$b.json")
  size=$(stat -c %s "$b.db")
  page=$(q "$b.db" "PRAGMA page_size")
  ls "$b.db"-wal "$b.db"-shm 2>/dev/null && fail "$b: report left side files beside a good recording"

  head -c $((size / page / 2 * page)) "$b.db" >"${b}_cut_page.db"
  check "${b}_cut_page" "$want"
  head -c $((size - 1000)) "$b.db" >"${b}_cut_1000.db"
  check "${b}_cut_1000" "$want"
  cp "$b.db" "${b}_flip.db"
  python3 - "${b}_flip.db" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
mid = len(b) // 2
for i in range(mid, mid + 64):
    b[i] ^= 0xA5
open(p, "wb").write(bytes(b))
PY
  check "${b}_flip" "$want"
  cp "$b.db" "${b}_text.db"
  q "${b}_text.db" "UPDATE gpu_sample SET sm_active_pct = 'high' WHERE rowid % 3 = 0"
  check "${b}_text" "$want"
  grep -q "sm_active_pct" "${b}_text.err" || fail "${b}_text: the message does not name the column"
  cp "$b.db" "${b}_dropcol.db"
  q "${b}_dropcol.db" "ALTER TABLE host_sample DROP COLUMN cpu_busy_pct"
  check "${b}_dropcol" "$want"
  cp "$b.db" "${b}_droptable.db"
  q "${b}_droptable.db" "DROP TABLE event"
  check "${b}_droptable" "$want"
  cp "$b.db" "${b}_newer.db"
  # a version no gpuwhy has written yet (the fixtures' own is older than this build's)
  q "${b}_newer.db" "PRAGMA user_version = 999"
  check "${b}_newer" "$want"
  grep -q "version 999 is newer" "${b}_newer.err" || fail "${b}_newer: the refusal does not name the version"
done

# A table the loaders would pass over as "from an older gpuwhy" but that
# every recording of the file's schema version has: losing it is damage.
# gpu_proc names the other process that shares the GPU (without it
# shared_gpu read launch_overhead, exit 0); py_sample holds the stack samples
# of a version-2 recording; kernel goes with the tracer's other tables.
for case in "scenarios_i21/shared_gpu gpu_proc" "weak_spots_h100/ws_eval_respawn py_sample" \
  "scenarios/ddp_straggler kernel"; do
  set -- $case
  [ -f "$GW_FIXTURES/$1.db" ] || continue
  b=$(basename "$1")_lost_$2
  cp "$GW_FIXTURES/$1.db" "$b.db"
  q "$b.db" "DROP TABLE $2"
  rc=0
  "$GW_BIN" report --format json "$b.db" >"$b.json" 2>"$b.err" || rc=$?
  [ "$rc" = 3 ] || fail "$b: exit $rc, expected 3 (a table of its version is missing)"
  grep -q "table $2 is missing" "$b.err" || fail "$b: the refusal does not name the table: $(cat "$b.err")"
done

# Read-only use writes nothing: report, sweep and compare leave no side files.
cp "$GW_FIXTURES/hook_suite/healthy.db" ro.db
cp "$GW_FIXTURES/hook_suite/small_batch.db" ro2.db
"$GW_BIN" report ro.db >/dev/null || fail "report ro.db"
"$GW_BIN" compare ro.db ro2.db >/dev/null 2>&1 || true
"$GW_BIN" sweep --from ro.db ro2.db >/dev/null 2>&1 || true
ls ro.db-* ro2.db-* 2>/dev/null && fail "a read-only command left side files"

# A recording in WAL mode in a folder the user cannot write is still read.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  mkdir rofolder
  cp "$GW_FIXTURES/hook_suite/healthy.db" rofolder/w.db
  q rofolder/w.db "PRAGMA journal_mode=WAL" >/dev/null
  rm -f rofolder/w.db-wal rofolder/w.db-shm
  chmod 555 rofolder
  chmod 755 "$SCRATCH"
  chmod 444 rofolder/w.db
  setpriv --reuid=65534 --regid=65534 --clear-groups "$GW_BIN" report rofolder/w.db >ro.txt 2>ro.err ||
    fail "report in a read-only folder: $(cat ro.err)"
  grep -q "Verdict\|verdict" ro.txt || fail "no report from a read-only folder"
  chmod 755 rofolder
else
  echo "read-only folder: not root or no setpriv, not tested"
fi

# Not regular files: refused at once, never a hang.
mkfifo pipe.db
for f in pipe.db /dev/zero "$SCRATCH"; do
  for cmd in report compare; do
    rc=0
    if [ "$cmd" = compare ]; then
      timeout 10 "$GW_BIN" compare "$f" ro.db >/dev/null 2>nr.err || rc=$?
    else
      timeout 10 "$GW_BIN" report "$f" >/dev/null 2>nr.err || rc=$?
    fi
    [ "$rc" = 124 ] && fail "$cmd $f hangs"
    [ "$rc" = 0 ] && fail "$cmd $f exited 0"
    [ -s nr.err ] || fail "$cmd $f: no message"
  done
done
rc=0
timeout 10 "$GW_BIN" import pipe.db -o imp.db >/dev/null 2>nr.err || rc=$?
[ "$rc" = 124 ] && fail "import of a pipe hangs"
[ "$rc" != 0 ] || fail "import of a pipe exited 0"
echo "damaged_recordings: passed"
