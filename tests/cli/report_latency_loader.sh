#!/usr/bin/env bash
# A loader bound by latency, not CPU: its workers sleep (1.8% of a core,
# asleep, none running, as workers waiting on a remote store are) while the
# GPU idles with no other signal to explain it, and the main process is not
# saturated. Whatever the GPU's power over the run (this one computes half
# the time, 49% of its limit), the unexplained idle time goes to the data
# side, not to launches, and the verdict is not `unexplained`.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"

for name in worked_case_s2 worked_case_s3; do
  cp "$GW_FIXTURES/scenarios/$name.db" "$name.db"
  q "$name.db" "UPDATE proc_sample SET cpu_pct = min(cpu_pct, 1.8), state = 'S', threads_running = 0 WHERE role = 1"
  "$GW_BIN" report --format json "$name.db" >"$name.json" || fail "report of $name exited $?"
  python3 - "$name.json" <<'PY' || fail "$name: a latency-bound loader is not the verdict"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "input_pipeline", r["verdict"]
f = [f for f in r["findings"] if f["class"] == "input_pipeline"][0]
assert "host_waits" in [e["id"] for e in f["evidence"]], [e["id"] for e in f["evidence"]]
PY
done
