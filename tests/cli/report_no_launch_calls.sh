#!/usr/bin/env bash
# A full trace without the kernel launch calls (GPUWHY_TRACE_API=nolaunch, or
# an import that lacks them): the H200 launch-storm trace, imported, then its
# launch rows deleted. The calls left (copies, synchronisation, attribute
# queries) still show where the host was busy, but a gap through which it
# only launched would look quiet: the report must note that idle: launch
# may be low, and must not note it for the trace with its launch calls.
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || {
  echo "SKIP: no python3"
  exit 77
}
"$GW_BIN" import "$GW_FIXTURES/import/h200_launch_tiny_ops.json.gz" -o with.db >/dev/null 2>err.txt ||
  fail "import: $(cat err.txt)"
cp with.db without.db
q without.db "delete from api where (domain = 'runtime' and cbid in (211, 214, 269, 311, 312, 430, 431))
                 or (domain = 'driver' and cbid in (307, 442, 514, 515, 652, 653))"
assert_ge "API calls left besides launches" "$(q without.db 'select count(*) from api')" 1
for f in with without; do
  "$GW_BIN" report --format json "$f.db" >"$f.json" 2>err.txt || fail "report $f: $(cat err.txt)"
done
python3 - with.json without.json <<'PY' || fail "a trace without launch calls was not flagged"
import json, sys

def notes(path):
    r = json.load(open(path))
    return r["verdict"], r["notes"]

note = "holds no kernel launch calls"
v_with, ev_with = notes(sys.argv[1])
v_without, ev_without = notes(sys.argv[2])
bad = []
if any(note in e for e in ev_with):
    bad.append(f"with launch calls, flagged anyway: {ev_with}")
if not any(note in e for e in ev_without):
    bad.append(f"without launch calls, not flagged: {ev_without}")
if v_with != v_without:
    bad.append(f"verdict {v_with} -> {v_without}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
echo "ok: a trace without launch calls notes that idle: launch may be low"
