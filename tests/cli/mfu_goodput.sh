#!/usr/bin/env bash
# MFU and goodput (issue 38): the hook counts exactly one step's FLOPs on the
# fake torch (tests/python/hook_flops_check.py: the 11th step alone, the mode
# left when a step raises or the program ends); under `gpuwhy record` that
# count reaches the step_flops table and the report's MFU; every fixture's
# goodput buckets add up to its GPUs' wall time; fixtures without a counted
# step say "not measured" in JSON and print no MFU line in text.
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}" "${GW_SOURCE_DIR:?}" "${GW_FIXTURES:?}"
use_fake_torch
HOOK=$GW_SOURCE_DIR/tracer/python/gpuwhy_hook
mkdir spool
(unset GPUWHY_PY_SPOOL_DIR; python3 "$GW_SOURCE_DIR/tests/python/hook_flops_check.py" "$HOOK" "$PWD/spool") ||
  fail "hook FLOP count check failed"

# 30 steps of 5e12 fake FLOPs each: one counted (step 11), its FLOPs in the table
"$GW_BIN" record -q -o f.db -- python3 "$GW_SOURCE_DIR/tests/python/train_fake.py" 30 16 --compute-ms 5 \
  --flops-per-step 5000000000000 > /dev/null || fail "record exited $?"
assert_eq "one counted step" "$(q f.db 'select count(*) from step_flops')" 1
assert_eq "its step, FLOPs and batch" "$(q f.db 'select step || " " || flops || " " || batch_size from step_flops')" \
  "11 5000000000000 16"
assert_eq "schema version" "$(q f.db 'pragma user_version')" 2
"$GW_BIN" report --format json f.db > f.json || fail "report --format json exited $?"
python3 - f.json <<'PY' || fail "report JSON mfu wrong"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["mfu"][0]
assert m["measured"] and m["flops_per_step"] == 5e12 and m["batch_size"] == 16, m
# 5e12 FLOPs in steps of about 5 ms: about 1000 TFLOP/s
assert 200 < m["achieved_tflops"] < 1100, m
assert m["counted_step"] == 11 and m["counted_step_s"] > 0 and m["neighbour_steps_median_s"] > 0, m
assert d["mfu_note"] is None
PY
"$GW_BIN" report f.db > f.txt || fail "report exited $?"
grep -q "^MFU GPU 0: .*TFLOP/s achieved\|^  [0-9.]* TFLOP/s achieved" f.txt || fail "no MFU line: $(cat f.txt)"

# A loop that does not wait for the GPU each step times its steps on the
# host: three short ones (1 ms, running ahead) and a long one (17 ms, blocked
# on a full launch queue) in every four. Its pace is their mean, 5 ms; the
# median, 1 ms, would claim five times the FLOP rate.
cp f.db bursty.db
sqlite3 bursty.db 'update step set t_end_ns = t_start_ns + (case when step % 4 = 0 then 17000000 else 1000000 end)' ||
  fail "cannot reshape the steps"
"$GW_BIN" report --format json bursty.db > bursty.json || fail "report of the bursty loop exited $?"
python3 - bursty.json <<'PY' || fail "the bursty loop's MFU is not at its pace"
import json, sys
m = json.load(open(sys.argv[1]))["mfu"][0]
assert 0.0045 < m["step_s"] < 0.0055, m["step_s"]
assert abs(m["achieved_tflops"] - 5e12 / m["step_s"] / 1e12) < 1e-6 * m["achieved_tflops"], m
PY

# FLOPs counted but no step timed (the steps lost, as a damaged or trimmed
# recording may be): no MFU and no rate, said so, never "nan"
cp f.db nostep.db
sqlite3 nostep.db 'delete from step' || fail "cannot delete the steps"
"$GW_BIN" report nostep.db > nostep.txt || fail "report without steps exited $?"
grep -q "^MFU GPU 0: unknown, no step was timed" nostep.txt || fail "no 'unknown' MFU line: $(grep -A1 MFU nostep.txt)"
grep -q "^  5e+12 FLOPs a step (forward and backward)\.$" nostep.txt || fail "no FLOPs line: $(grep -A1 MFU nostep.txt)"
grep -qi "nan" nostep.txt && fail "nan in the report: $(grep -i nan nostep.txt)"

# compare and sweep carry the job's figures: one GPU, so the report's own
"$GW_BIN" compare --format json f.db f.db > c.json || fail "compare --format json exited $?"
python3 - f.json c.json <<'PY' || fail "compare JSON mfu_pct / achieved_tflops wrong"
import json, sys
m = json.load(open(sys.argv[1]))["mfu"][0]
for r in json.load(open(sys.argv[2]))["runs"]:
    assert abs(r["achieved_tflops"] - m["achieved_tflops"]) < 1e-3 * m["achieved_tflops"], (r, m)
    if m["mfu"] is None:
        assert r["mfu_pct"] is None, r
    else:
        assert abs(r["mfu_pct"] - 100 * m["mfu"]) < 1e-3 * 100 * m["mfu"], (r, m)
PY
"$GW_BIN" compare f.db f.db > c.txt || fail "compare exited $?"
grep -Eq "^  achieved TFLOP/s +[0-9]+\.[0-9] +[0-9]+\.[0-9]" c.txt || fail "no achieved TFLOP/s row: $(cat c.txt)"
cp f.db g.db
"$GW_BIN" sweep --format json --from f.db g.db > s.json || fail "sweep exited $?"
python3 - s.json <<'PY' || fail "sweep JSON has no achieved_tflops"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert all(r["achieved_tflops"] > 0 and "mfu_pct" in r for r in rows), rows
PY

# every fixture: the buckets add up to the wall time, per GPU and for the job
n=0
while IFS= read -r db; do
  "$GW_BIN" report --format json "$db" > r.json 2>/dev/null || continue
  counted=$(q "$db" "select count(*) from sqlite_master where name = 'step_flops'")
  [ "$counted" = 0 ] || counted=$(q "$db" "select count(*) from step_flops")
  python3 - r.json "$counted" <<'PY' || fail "goodput buckets or MFU wrong in $db"
import json, sys
d = json.load(open(sys.argv[1]))
counted = int(sys.argv[2]) > 0
g = d["goodput"]
def check(b, what):
    total = b["goodput_s"] + sum(b["badput_s"].values())
    assert abs(total - b["wall_s"]) <= 1e-6 * max(1.0, b["wall_s"]) + 1e-5, (what, total, b)
    assert all(v >= 0 for v in b["badput_s"].values()) and b["goodput_s"] >= 0, (what, b)
check(g["job"], "job")
for x in g["gpus"]:
    check(x["buckets"], "gpu %d" % x["gpu"])
    ledger = [gp for gp in d["gpus"] if gp["gpu"] == x["gpu"]][0]
    assert abs(x["buckets"]["wall_s"] - ledger["wall_s"]) < 1e-3, (x, ledger["wall_s"])
assert abs(sum(x["buckets"]["wall_s"] for x in g["gpus"]) - g["job"]["wall_s"]) < 1e-3
if counted:
    # a recording whose hook counted a step (the H100 weak_spots ones): one MFU per GPU, a share of the peak
    assert all(m["measured"] and 0 < m["mfu"] <= 1 for m in d["mfu"]), d["mfu"]
else:
    assert d["mfu"] is None and d["mfu_note"].startswith("not measured"), d["mfu"]
PY
  if [ "$counted" = 0 ]; then
    "$GW_BIN" report "$db" 2>/dev/null | grep -q "^MFU" && fail "MFU line in the text of $db (no counted step)"
  fi
  n=$((n + 1))
done < <(find "$GW_FIXTURES" -name '*.db' | sort)
assert_ge "fixtures checked" "$n" 20
echo "mfu_goodput: ok ($n fixtures)"
