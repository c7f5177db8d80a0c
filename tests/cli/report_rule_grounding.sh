#!/bin/bash
# Rules grounded on physics (issue 21): the speed-up bound printed as "more
# than 50x" where a class holds nearly all of the time (JSON keeps the number);
# a process outside the job on the GPU is a hardware_env finding naming its
# pid, name and SM share; PCIe receive is input only when the traffic is one
# way (an optimizer offloaded to the host sends as much back); a loop paced
# by its loader has no small-batch cause.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
dir="$GW_FIXTURES/scenarios"
export LANGUAGE=C LANG=C LC_ALL=C

# 1. launch_tiny_ops_syncs loses 98% of its active time to launches
"$GW_BIN" report "$dir/launch_tiny_ops_syncs.db" >syncs.txt
grep -q "more than 50x faster" syncs.txt || fail "no 'more than 50x' for a class holding 98% of the time"
if grep -q "at most 5[0-9]\.[0-9]*x" syncs.txt; then fail "a bound above 50x printed as a number"; fi
"$GW_BIN" report --format json "$dir/launch_tiny_ops_syncs.db" >syncs.json
python3 -c "
import json, sys
f = json.load(open('syncs.json'))['findings'][0]
sys.exit(0 if isinstance(f['speedup_max'], (int, float)) and f['speedup_max'] > 50 else 1)" ||
  fail "JSON speedup_max not the number above 50"

# 2. a neighbour on the GPU: 35% of SM time by the driver's count, with its name
cp "$dir/healthy.db" shared.db
q shared.db "ALTER TABLE gpu_proc ADD COLUMN comm TEXT" 2>/dev/null || true
q shared.db "INSERT INTO gpu_proc(t_ns, gpu, pid, used_mem_bytes, sm_pct, comm)
             SELECT DISTINCT t_ns, 0, 424242, 6442450944, 35.0, 'render-farm' FROM gpu_proc WHERE gpu = 0"
"$GW_BIN" report --format json shared.db >shared.json
assert_eq "verdict with a neighbour taking 35% of the SMs" \
  "$(python3 -c "import json; print(json.load(open('shared.json'))['verdict'])")" hardware_env
"$GW_BIN" report shared.db >shared.txt
grep -q "process 424242 (render-farm) outside the job: 6.0 GiB of device memory, its kernels ran 35%" shared.txt ||
  fail "the finding does not name the neighbour's pid, name, memory and SM share"
grep -q "move the other process off this GPU" shared.txt || fail "no fix for the shared GPU"
# the same without the column (files made before it): named by pid
cp "$dir/healthy.db" old.db
q old.db "INSERT INTO gpu_proc(t_ns, gpu, pid, used_mem_bytes, sm_pct)
          SELECT DISTINCT t_ns, 0, 424242, 6442450944, 35.0 FROM gpu_proc WHERE gpu = 0"
"$GW_BIN" report old.db >old.txt
grep -q "process 424242 (name not recorded)" old.txt || fail "a file without gpu_proc.comm: neighbour not named by pid"

# 3. PCIe: pageable copies one way are input; the same bytes both ways are not
cp "$dir/input_pageable_copies.db" oneway.db
cp oneway.db twoway.db
q twoway.db "UPDATE gpu_sample SET pcie_tx_bps = pcie_rx_bps"
input_share() {
  "$GW_BIN" report --format json "$1" | python3 -c "
import json, sys
d = json.load(sys.stdin)
print(sum(f['share_of_active'] for f in d['findings'] if f['class'] == 'input_pipeline'))"
}
one=$(input_share oneway.db)
two=$(input_share twoway.db)
assert_ge "input share with one-way PCIe traffic" "$one" 0.5
awk -v a="$two" -v b="$one" 'BEGIN { exit !(a + 0 < b / 2) }' ||
  fail "two-way PCIe traffic still counted as input ($two against $one one way)"

# 4. without GPM and trace, small_batch's underfilled kernels are invisible:
# the time with no kernel resident is "unexplained", not "none", and the
# report names the recordings that decide
cp "$dir/small_batch.db" blind.db
null_gpm blind.db
cp blind.db traced.db
drop_trace blind.db
"$GW_BIN" report --format json blind.db >blind.json
python3 - blind.json <<'PY' || fail "small_batch without GPM: not unexplained with --trace and the sweep"
import json, sys
d = json.load(open(sys.argv[1]))
cmds = " ".join(e.get("command", e.get("what", "")) for e in d.get("experiments", []))
ok = d["verdict"] == "unexplained" and "record --trace" in cmds and "sweep" in cmds
print(d["verdict"], cmds)
sys.exit(0 if ok else 1)
PY
# ... and with the sampled trace that `record` keeps on a GPU without GPM, the
# traced kernels' launch configurations show the SMs mostly empty
assert_eq "small_batch without GPM, traced" \
  "$("$GW_BIN" report --format json traced.db | python3 -c 'import json,sys; print(json.load(sys.stdin)["verdict"])')" \
  small_batch

# 5. the printed confidence is the calibrated rate of the raw score's band
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR must point at the source tree}"
python3 - syncs.json "$GW_SOURCE_DIR/lib/analysis/confidence_calibration.c" <<'PY' ||
import json, re, sys
bands = [tuple(float(x) for x in m.groups()) for m in
         re.finditer(r"\{([0-9.]+), ([0-9.]+), [0-9]+, [0-9]+, ([0-9.]+)\}", open(sys.argv[2]).read())]
f = json.load(open(sys.argv[1]))["findings"][0]
raw = f["confidence_raw"]
want = next((c for lo, hi, c in bands if raw + 1e-6 < hi), bands[-1][2])
print("raw %.3f -> %.3f (table %.3f)" % (raw, f["confidence"], want))
sys.exit(0 if abs(f["confidence"] - want) < 1e-3 else 1)
PY
  fail "confidence is not the calibrated rate of its raw score's band"
# 6. a loop paced by its loader has no small-batch cause: hook_suite/worked_case_s3's typical step waits for
# data 42% of its time, and its part-empty SMs would only lengthen the wait; with the waits zeroed (the same
# counters, a loop that never waits) the small_batch finding is back
classes() { "$GW_BIN" report --format json "$1" | python3 -c "import json,sys; print(' '.join(f['class'] for f in json.load(sys.stdin)['findings']))"; }
s3="$GW_FIXTURES/hook_suite/worked_case_s3.db"
case " $(classes "$s3") " in *" small_batch "*) fail "worked_case_s3, paced by its loader, reads small_batch" ;; esac
cp "$s3" nowait.db
q nowait.db "UPDATE step SET data_wait_ns = 0"
case " $(classes nowait.db) " in *" small_batch "*) ;; *) fail "with no data waits worked_case_s3 lost small_batch too" ;; esac
echo "speed-up bound, neighbour finding, PCIe direction, the SM-blind verdict, calibration and a loader-paced loop: ok"
