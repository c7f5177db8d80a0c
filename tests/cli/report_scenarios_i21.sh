#!/bin/bash
# Issue 21's new H200 recordings (tests/fixtures/scenarios_i21) read for the
# physical reason, not only the label: the optimizer kept in host memory is the
# schedule's time (its PCIe round trip names it), not input; the DataLoader
# wait the Python hook measured in remote_store is input in the ledger itself,
# and its waits that vary are no sign of changing shapes; the inference server
# that waits for requests is "none", said to be demand-limited, with no input
# finding; the torch.compile'd model's recompiles are schedule_shape from the
# hook's compile times and first visits of each shape, not input.
source "$(dirname "$0")/lib.bash"
export LANGUAGE=C LC_ALL=C # the English notes are matched below
dir="$GW_FIXTURES/scenarios_i21"
for n in offload_accum remote_store bursty_serving compile_dynamic; do
  "$GW_BIN" report --format json "$dir/$n.db" >"$n.json" || fail "report $n failed"
done
"$GW_BIN" report "$dir/bursty_serving.db" >bursty_serving.txt || fail "text report failed"
python3 - <<'PY' || fail "a new scenario read for the wrong reason"
import json
def load(n):
    return json.load(open(n + ".json"))
def rows(r):
    return {x["row"]: x["share"] or 0 for x in r["gpus"][0]["ledger"]}
def evidence(r, cls):
    return [e["id"] for f in r["findings"] if f["class"] == cls for e in f.get("evidence", [])]
bad = []
o = load("offload_accum")
if o["verdict"] != "schedule_shape":
    bad.append("offload_accum: verdict %s, expected schedule_shape" % o["verdict"])
if "host_optimizer_phase" not in evidence(o, "schedule_shape"):
    bad.append("offload_accum: no host_optimizer_phase evidence")
if [f["class"] for f in o["findings"] if f["class"] == "input_pipeline"]:
    bad.append("offload_accum: an input_pipeline finding")
ro = rows(o)
# the host phase is 41% of each optimizer step by the program's own clock
if not (ro["idle_periodic"] >= 0.2 and ro["idle_input"] < 0.02):
    bad.append("offload_accum: ledger periodic %.3f input %.3f" % (ro["idle_periodic"], ro["idle_input"]))
r = load("remote_store")
if r["verdict"] != "input_pipeline" or [f for f in r["findings"] if f["class"] != "input_pipeline"]:
    bad.append("remote_store: %s %s" % (r["verdict"], [f["class"] for f in r["findings"]]))
rr = rows(r)
# the hook measured the loop waiting 60% of its step time with the GPU idle
if rr["idle_input"] < 0.3:
    bad.append("remote_store: ledger idle_input %.3f" % rr["idle_input"])
b = load("bursty_serving")
if b["verdict"] != "none" or b["findings"]:
    bad.append("bursty_serving: %s %s" % (b["verdict"], [f["class"] for f in b["findings"]]))
if not [n for n in b.get("notes", []) if n.startswith("Demand-limited")]:
    bad.append("bursty_serving: no demand-limited note")
c = load("compile_dynamic")
if c["verdict"] not in ("schedule_shape", "launch_overhead"):
    bad.append("compile_dynamic: verdict %s" % c["verdict"])
for e in ("recompile_time", "shape_first_visits"):
    if e not in evidence(c, "schedule_shape"):
        bad.append("compile_dynamic: no %s evidence for schedule_shape" % e)
if [f for f in c["findings"] if f["class"] == "input_pipeline"]:
    bad.append("compile_dynamic: an input_pipeline finding")
rc = rows(c)
# three first visits of about 7 s each (compiling, GPU idle) in 47 s active
if not (rc["idle_periodic"] >= 0.2 and rc["idle_input"] < 0.02):
    bad.append("compile_dynamic: ledger periodic %.3f input %.3f" % (rc["idle_periodic"], rc["idle_input"]))
for m in bad:
    print(m)
raise SystemExit(1 if bad else 0)
PY
grep -q "demand-limited" bursty_serving.txt || fail "the text verdict does not say demand-limited"
echo "offload_accum, remote_store, bursty_serving and compile_dynamic read for the physical reason"
