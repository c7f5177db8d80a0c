#!/bin/bash
# Evidence is data: each line of a finding's evidence in the JSON report
# carries a stable id, the GPU (-1 for the host or the whole job) and its
# numbers with units, beside the English sentence made from them. The input
# scenario's GPU waited for input about 70% of its active time (the ledger's
# idle_input row says the same), so its input_pipeline finding carries that share as a
# number, and the sentence shows the same number.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
S="$GW_FIXTURES/scenarios"
for f in input_cpu_transforms ddp_straggler hardware_xid schedule_eval launch_tiny_ops_syncs; do
  in_env LANG=C report --format json "$S/$f.db" >"$f.json"
done
python3 - <<'PY' || fail "evidence ids and values"
import json, re

units = {"fraction", "pct", "points", "ratio", "correlation", "count", "cores", "W", "MHz", "s", "ms", "us",
         "GB/s", "MB/s", "per_min", "rank", "pstate", "pcie_gen", "lanes", "text"}

def evidence(name, cls):
    rep = json.load(open(f"{name}.json"))
    found = [f for f in rep["findings"] if f["class"] == cls]
    assert found, f"{name}: no {cls} finding: {[f['class'] for f in rep['findings']]}"
    for e in found[0]["evidence"]:
        assert re.fullmatch(r"[a-z0-9_]+", e["id"]), f"{name}: id {e['id']!r}"
        assert isinstance(e["gpu"], int) and e["gpu"] >= -1, f"{name}: gpu {e['gpu']!r}"
        for v in e["values"]:
            assert v["unit"] in units, f"{name} {e['id']}: unit {v['unit']!r}"
            assert isinstance(v["value"], str) == (v["unit"] == "text"), f"{name} {e['id']}: {v}"
    return {e["id"]: e for e in found[0]["evidence"]}

def value(e, name):
    return next(v for v in e["values"] if v["name"] == name)

ev = evidence("input_cpu_transforms", "input_pipeline")
wait = ev.get("input_wait_share_sm") or ev["input_wait_share"]
share = value(wait, "share")
assert share["unit"] == "fraction" and 0.6 <= share["value"] <= 0.8, f"input wait share {share}"
assert wait["gpu"] == 0 and int(wait["t1_ns"]) > int(wait["t0_ns"]) > 0, wait
assert f"waiting for input {share['value'] * 100:.0f}% of active time" in wait["text"], wait["text"]
power = ev["power_median"]
assert value(power, "power_limit")["unit"] == "W" and value(power, "power_limit")["value"] > 100, power

# several GPUs: the straggler is named by its label and its rank
ev = evidence("ddp_straggler", "multi_gpu_sync")
lab = [v for e in ev.values() for v in e["values"] if v["unit"] == "text"]
assert lab and all(v["value"].startswith("GPU ") for v in lab if v["name"].endswith("label")), lab
assert "peer_wait_share" in ev and ev["peer_wait_share"]["gpu"] == -1, ev.keys()

# counts and GPUs
ev = evidence("hardware_xid", "hardware_env")
xid = ev["xid_errors"]
assert value(xid, "xid_errors")["unit"] == "count" and value(xid, "xid_errors")["value"] >= 1, xid
assert xid["text"].startswith(f"GPU {xid['gpu']}: "), xid

# a period in seconds, disk writes in MB/s
ev = evidence("schedule_eval", "schedule_shape")
period = ev["periodic_dips_steps"]
assert value(period, "period")["unit"] == "s" and value(period, "period")["value"] > 1, period
writes = ev.get("dip_disk_writes") or ev["dip_disk_writes_checkpoint"]
assert value(writes, "write_in_dips")["unit"] == "MB/s", writes

# a ratio stays a ratio in the sentence
ev = evidence("launch_tiny_ops_syncs", "launch_overhead")
small = ev["kernels_too_small"]
ratio = value(small, "sm_per_util")
assert ratio["unit"] == "ratio" and 0 < ratio["value"] < 1, small
assert f"({ratio['value']:.3f} of util)" in small["text"], small["text"]
PY
echo "ok: evidence carries ids, GPUs and numbers with units"
