#!/bin/bash
# Reports of real recordings edited into situations the fixtures lack:
# - input_slow_read without GPM (what an A100 or L4 records) is still an
#   input_pipeline run: GPU-Util of 1-4% marks its short bursts;
# - input_slow_read without host samples loses 99% of its time while no
#   class's evidence holds: the verdict is "unexplained" with the lost share
#   and the recording that would decide (record --trace), never "none";
# - another process on the GPU (gpu_proc rows of a pid outside the job) is
#   named with its pid and memory;
# - one GPU of a two-rank job with WORLD_SIZE=2 recorded says the other ranks
#   ran elsewhere;
# - sweep_bs256 (small batch: doubling it gained 23%) without GPM and
#   without a trace: nothing tells its resident kernels from real work, so
#   the report says the work was not measured ("sm_blind", the busy row not
#   called productive, underfilled unknown) and names record --trace, rather
#   than "the GPUs did real work";
# - every finding states the speed-up at most, 1 / (1 - share_of_active), and
#   findings are ranked by it.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
s="$GW_FIXTURES/scenarios"

cp "$s/input_slow_read.db" nogpm.db
null_gpm nogpm.db
"$GW_BIN" report --format json nogpm.db >nogpm.json
assert_eq "no-GPM slow read verdict" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' nogpm.json)" \
  input_pipeline

cp "$s/sweep_bs256.db" blind.db
null_gpm blind.db
drop_trace blind.db
"$GW_BIN" report --format json blind.db >blind.json
python3 - blind.json <<'PY' || fail "SM-blind sweep point: expected sm_blind with the trace experiment"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["sm_blind"] is True, r["sm_blind"]
rows = {row["row"]: row for row in r["gpus"][0]["ledger"]}
assert rows["underfilled"]["measured"] is False, rows["underfilled"]
assert any("record --trace" in e["command"] for e in r["experiments"]), r["experiments"]
PY
LANGUAGE=C LC_ALL=C "$GW_BIN" report blind.db >blind.txt
grep -q '^Verdict: none seen, but how much work the GPU did was not measured' blind.txt ||
  fail "text report: the SM-blind verdict line is missing: $(sed -n 2p blind.txt)"
if grep -q 'did real work' blind.txt; then fail "SM-blind report claims real work"; fi
grep -q 'busy (kernel resident, SM fill not measured)' blind.txt || fail "text ledger: no SM-blind busy row"
"$GW_BIN" report --format json "$s/sweep_bs256.db" >gpm.json
assert_eq "with GPM the same run is not SM-blind" \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sm_blind"])' gpm.json)" False

cp "$s/input_slow_read.db" nohost.db
q nohost.db "DELETE FROM proc_sample; DELETE FROM host_sample; DELETE FROM disk_sample; DELETE FROM cpu_sample"
"$GW_BIN" report --format json nohost.db >nohost.json
python3 - nohost.json <<'PY' || fail "host-less slow read: expected the verdict unexplained"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "unexplained", r["verdict"]
assert r["lost_share_of_active"] >= 1 / 3, r["lost_share_of_active"]
assert any("record --trace" in e["command"] for e in r["experiments"]), r["experiments"]
PY
LANGUAGE=C LC_ALL=C "$GW_BIN" report nohost.db >nohost.txt
grep -q '^Verdict: unexplained: 99% of the active GPU time was lost' nohost.txt ||
  fail "text report: no unexplained verdict line"
for fmt in md html; do
  LANGUAGE=C LC_ALL=C "$GW_BIN" report --format $fmt nohost.db >nohost.$fmt
  grep -qi 'unexplained' nohost.$fmt || fail "$fmt: no unexplained verdict"
done

cp "$s/healthy.db" shared.db
q shared.db "INSERT INTO gpu_proc(t_ns, gpu, pid, used_mem_bytes, sm_pct)
             SELECT DISTINCT t_ns, 0, 424242, 6442450944, 35 FROM gpu_proc"
LANGUAGE=C LC_ALL=C "$GW_BIN" report shared.db >shared.txt
grep -q 'GPU 0 was shared with process 424242.*6.0 GiB' shared.txt ||
  fail "the other process on the GPU is not named"
LANGUAGE=C LC_ALL=C "$GW_BIN" report "$s/healthy.db" >healthy.txt
grep -q 'shared with process' healthy.txt &&
  fail "the recorded healthy run names a foreign process"

cp "$s/ddp_straggler.db" onerank.db
q onerank.db "DELETE FROM gpu_sample WHERE gpu=1; DELETE FROM gpu_health WHERE gpu=1; DELETE FROM gpu WHERE gpu=1;
              DELETE FROM kernel WHERE device=1; DELETE FROM gpu_proc WHERE gpu=1;
              INSERT OR REPLACE INTO env(name, value) VALUES('WORLD_SIZE', '2')"
LANGUAGE=C LC_ALL=C "$GW_BIN" report onerank.db >onerank.txt
grep -q 'WORLD_SIZE=2 but this file holds 1 GPU' onerank.txt ||
  fail "one rank of a two-rank job: no WORLD_SIZE note"

"$GW_BIN" report --format json "$s/worked_case_s0.db" >wc.json
python3 - wc.json <<'PY' || fail "speedup_max missing, wrong or not ranked"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
assert len(fs) >= 2, fs
for f in fs:
    want = 1 / (1 - min(f["share_of_active"], 0.99))
    assert abs(f["speedup_max"] - want) < 1e-3 * want, (f["class"], f["speedup_max"], want)
ups = [f["speedup_max"] for f in fs]
assert ups == sorted(ups, reverse=True), ups
PY
echo "ok"
