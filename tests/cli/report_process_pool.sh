#!/usr/bin/env bash
# A loop fed by a process pool that is not a DataLoader (oos2_h100/
# oos_process_pool_decode: a ProcessPoolExecutor of three decoding
# processes, recorded on an H100): its training thread waits on a Future's
# lock while the pool's processes decode. The idle time is the wait for the
# next batch, with the workers running through it (CPU-bound), not "sleeping
# or waiting on its own threads".
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
fixture_report_json oos2_h100/oos_process_pool_decode.db r.json
python3 - r.json <<'PY' || fail "the pool's batches are not read as the wait for data"
import json, sys
r = json.load(open(sys.argv[1]))
a = [g["idle_attribution"] for g in r["gpus"] if g.get("idle_attribution")][0]
c = {x["cause"]: x for x in a["causes"]}
wait = c.get("data_wait")
assert wait and wait["class"] == "input_pipeline", sorted(c)
assert wait["share_of_idle"] >= 0.8, wait["share_of_idle"]
assert wait["workers"]["running"] >= 0.9, wait["workers"]
idle = c.get("idle", {"share_of_idle": 0})
assert idle["share_of_idle"] < 0.1, idle
assert r["verdict"] == "input_pipeline", r["verdict"]
print("waiting for the pool's batch %.0f%% of the idle time, its workers running %.0f%% of that" %
      (100 * wait["share_of_idle"], 100 * wait["workers"]["running"]))
PY
echo "a process pool's batches read as the wait for data"
