#!/bin/bash
# The replay GPU backend drives `gpuwhy record` end to end without a GPU: an
# H200 scenario fixture's GPU rows, played back through record at the
# fixture's own interval, give a recording whose report has the fixture's
# verdict and findings, its GPU facts, the same GPU profile, and the same
# ledger rows the GPU alone decides. The host rows are this machine's (a
# `sleep`, not the training program), so the rows the host splits (idle time
# blamed on launches, input or other) are compared as their sum, and
# confidences and shares of lost time, which lean on the host, are not.
source "$(dirname "$0")/lib.bash"
fixture="$GW_FIXTURES/scenarios/sweep_bs64.db" # 21 s at 100 ms, verdict small_batch
# the command outlasts the rows with room for late ticks on a loaded machine
# (a GPU whose rows ran out reads as lost; the recording goes on with the host)
span_s=$(q "$fixture" "select cast((max(t_ns) - min(t_ns)) / 1e9 * 1.25 + 3 as int) from gpu_sample")

GPUWHY_GPU_BACKEND="replay:$fixture" "$GW_BIN" record -o replayed.db --interval 100 -- sleep "$span_s" 2>record.log ||
  fail "record with the replay backend failed: $(cat record.log)"
grep -q "recording 1 GPU" record.log || fail "record did not see the replayed GPU: $(cat record.log)"
assert_eq "replayed GPU name" "$(q replayed.db 'select name from gpu')" "$(q "$fixture" 'select name from gpu')"
assert_eq "replayed driver" "$(q replayed.db 'select driver_version from run')" "$(q "$fixture" 'select driver_version from run')"
nfix=$(q "$fixture" "select count(*) from gpu_sample")
assert_eq "replayed GPU rows" "$(q replayed.db 'select count(*) from gpu_sample')" "$nfix"

"$GW_BIN" report --format json "$fixture" >fixture.json
"$GW_BIN" report --format json replayed.db >replayed.json
same_findings replay fixture.json replayed.json || fail "the replayed recording's findings differ from the fixture's"
python3 - fixture.json replayed.json <<'PY' || fail "the replayed GPU side differs from the fixture's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ga, gb = a["gpus"][0], b["gpus"][0]
# the GPU profile comes from the GPU rows alone: equal
for k, v in ga["profile"].items():
    if v != gb["profile"][k]:
        sys.exit(f"profile {k}: fixture {v}, replay {gb['profile'][k]}")
row = lambda g, name: next(r["share"] or 0 for r in g["ledger"] if r["row"] == name)
# rows keep the fixture's spacing; 0.005 of the wall time is 1 tick in 200
for name in ("productive", "underfilled", "throttled", "startup"):
    if abs(row(ga, name) - row(gb, name)) > 0.005:
        sys.exit(f"ledger {name}: fixture {row(ga, name)}, replay {row(gb, name)}")
idle = lambda g: sum(row(g, n) for n in ("idle_input", "idle_launch", "idle_periodic", "idle_other"))
if abs(idle(ga) - idle(gb)) > 0.005:
    sys.exit(f"idle rows: fixture {idle(ga)}, replay {idle(gb)}")
if abs(a["active_s"] - b["active_s"]) > 0.3:
    sys.exit(f"active_s: fixture {a['active_s']}, replay {b['active_s']}")
PY

# A name no backend has is refused with the names there are.
GPUWHY_GPU_BACKEND=bogus "$GW_BIN" record -o bogus.db --duration 1 -- true 2>bogus.log || true
grep -q "no such GPU backend (known: nvml, replay)" bogus.log || fail "unknown backend not named: $(cat bogus.log)"
echo "replay through record: $(q replayed.db 'select count(*) from gpu_sample') GPU rows, verdict $(python3 -c 'import json;print(json.load(open("replayed.json"))["verdict"])')"
