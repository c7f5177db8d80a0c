#!/usr/bin/env bash
# A DataLoader whose four workers are started anew each 1.5 s epoch
# (weak_spots_h100/ws_respawn_epoch, recorded on an H100): each worker lives
# too briefly for a CPU rate, yet the recorder counted four at a time. The
# input finding says so and counts them; it does not claim the loading ran
# in the main process.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
fixture_report_json weak_spots_h100/ws_respawn_epoch.db r.json
python3 - r.json <<'PY' || fail "respawned workers are not counted"
import json, sys
r = json.load(open(sys.argv[1]))
f = [x for x in r["findings"] if x["class"] == "input_pipeline"][0]
ev = {e["id"]: {v["name"]: v["value"] for v in e["values"]} for e in f["evidence"]}
assert "no_loader_workers" not in ev, sorted(ev)
assert ev.get("loader_workers_unmeasured", {}).get("workers") == 4, sorted(ev)
room = ev.get("loader_workers_room") or ev.get("loader_workers_enough")
assert room and room["workers"] == 4, room
print("4 workers counted, their CPU unmeasured")
PY
echo "workers started anew each epoch are counted, not called absent"
