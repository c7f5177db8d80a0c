#!/usr/bin/env bash
# The single-GPU scenarios re-recorded on the H200 with the Python hook
# (tests/fixtures/hook_suite), with no truth file beside them (copies in an
# empty folder): compare s0 -> s1 -> s2 -> s3 decides with intervals, baseline
# check catches a 10% regression (exit 1) and sweep shows samples/s and a knee
# from the hook's steps alone. The steps and batch sizes against the truth
# files: tests/cli/fixtures_step_counts.sh.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
dir=$GW_FIXTURES/hook_suite

for s in 0 1 2 3; do cp "$dir/worked_case_s$s.db" "s$s.db"; done
ls ./*.truth.json > /dev/null 2>&1 && fail "a truth file beside the copies"
"$GW_BIN" compare --format json s0.db s1.db s2.db s3.db > cmp.json || fail "compare exited $?"
python3 - cmp.json << 'PY' || fail "compare without truth files: $(head -c 2000 cmp.json)"
import json, sys
d = json.load(open(sys.argv[1]))
runs, pairs = d["runs"], d["comparisons"]
assert all(r["step_source"] == "step_table" for r in runs), [r["step_source"] for r in runs]
assert [(p["a"], p["b"]) for p in pairs[:3]] == [("A", "B"), ("B", "C"), ("C", "D")], pairs
for p in pairs:
    iv = p["throughput"]
    assert p["verdict"] in ("better", "worse", "no_significant_change"), p["verdict"]
    assert iv["lo"] <= iv["ratio"] <= iv["hi"], iv
# stage 1 (DataLoader workers, pinned memory) against stage 0: about 21x the samples/s, decided
assert pairs[0]["verdict"] == "better" and pairs[0]["throughput"]["lo"] > 5, pairs[0]
PY

export GPUWHY_HOME=$PWD/home
cp s1.db slow.db
python3 - slow.db << 'PY' || fail "could not slow the copy"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
t0 = c.execute("select min(t_start_ns) from step").fetchone()[0]
k = 1 / 0.9  # every step 11.1% longer: 10% fewer steps a second
c.execute("update step set t_start_ns = ? + cast((t_start_ns - ?) * ? as integer), "
          "t_end_ns = ? + cast((t_end_ns - ?) * ? as integer)", (t0, t0, k, t0, t0, k))
c.commit()
PY
"$GW_BIN" baseline save stage1 s1.db > /dev/null || fail "baseline save exited $?"
"$GW_BIN" baseline check stage1 s1.db > same.txt || fail "the same run failed its baseline ($?)"
set +e
"$GW_BIN" baseline check stage1 slow.db > slow.txt
rc=$?
set -e
assert_eq "10% slower run against its baseline: exit status" "$rc" 1
grep -q "Result: REGRESSION" slow.txt || fail "no regression line: $(cat slow.txt)"

for b in 32 64 128 256 512 1024 2048; do cp "$dir/sweep_bs$b.db" "bs$b.db"; done
# The points come from two sessions (bs256 re-recorded on 2026-12-01 with 6 s
# of steady state, the others 8 s), so their command lines differ in
# --duration as well and the swept option is named, not inferred.
"$GW_BIN" sweep --from --param batch-size --format json bs*.db > sweep.json || fail "sweep exited $?"
python3 - sweep.json << 'PY' || fail "sweep without truth files: $(head -c 2000 sweep.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["throughput_unit"] == "samples/s", d["throughput_unit"]
sps = [r["samples_per_s"] for r in d["rows"]]
assert all(b > a for a, b in zip(sps, sps[1:])), sps
assert d["knee"]["found"] and d["knee"]["value"] in ("512", "1024", "2048"), d["knee"]
PY
# The kernel logs of the recordings made in the run of 2026-12-01 that had a
# program crash before them (input_slow_read is one, tests/fixtures/hook_suite/
# README.md) hold an Xid 31 from before the recording began: a note, not
# hardware_env; the verdict stays the program's own.
"$GW_BIN" report --format json "$dir/input_slow_read.db" > earlier_xid.json || fail "report exited $?"
python3 - earlier_xid.json << 'PY' || fail "an earlier program's Xid blamed on the hardware"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "input_pipeline", d["verdict"]
assert any("from before this recording" in n for n in d["notes"]), d["notes"]
assert not any(f["class"] == "hardware_env" for f in d["findings"]), d["findings"]
PY
echo "ok"
