#!/bin/bash
# gpuwhy sweep: the table from the H200 batch-size sweep says where samples/s
# stops rising; a sweep that runs its command makes one recording per value.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}" "${GW_FAKE_NVML:?}"
if ! "$GW_BIN" sweep --help >/dev/null 2>&1; then
  echo "gpuwhy sweep is not in src/main.c's command table yet: skipping"
  exit 77
fi
dir="$GW_FIXTURES/scenarios"
(cd "$dir" && "$GW_BIN" sweep --from sweep_bs32.db sweep_bs64.db sweep_bs128.db sweep_bs256.db sweep_bs512.db \
  sweep_bs1024.db sweep_bs2048.db) >sweep.txt || fail "sweep --from exited $?"
diff -u "$GW_SOURCE_DIR/tests/expected/compare_sweep.txt" sweep.txt || fail "sweep table differs from the golden"
"$GW_BIN" sweep --from --format json "$dir"/sweep_bs*.db >sweep.json || fail "sweep json exited $?"
python3 - sweep.json <<'PY' || fail "sweep JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["param"] == "batch-size" and d["throughput_unit"] == "samples/s", d
values = [r["value"] for r in d["rows"]]
assert values == ["32", "64", "128", "256", "512", "1024", "2048"], values
sps = [r["samples_per_s"] for r in d["rows"]]
assert all(b > a for a, b in zip(sps, sps[1:])), sps
assert d["knee"]["found"] and d["knee"]["value"] == "1024", d["knee"]
PY

export GPUWHY_NVML_LIB=$GW_FAKE_NVML
"$GW_BIN" sweep -q --param n=1,2 -o runs -- sh -c 'sleep 0.3' 'n={n}' >run.txt || fail "sweep run exited $?"
for v in 1 2; do
  [ -f "runs/sweep_n_$v.db" ] || fail "no recording for n=$v"
  assert_eq "argument of n=$v" "$(q "runs/sweep_n_$v.db" "select json_extract(command, '\$[3]') from run")" "n=$v"
  assert_eq "label of n=$v" "$(q "runs/sweep_n_$v.db" "select value from meta where key = 'sweep_value'")" "$v"
done
grep -q "gpuwhy sweep: n over 2 runs" run.txt || fail "no table after the runs"
set +e
"$GW_BIN" sweep -q --param n=1,2 -o runs -- true >/dev/null 2>err.txt
assert_eq "command without {n}: exit status" "$?" 2
"$GW_BIN" sweep -q -- true >/dev/null 2>&1
assert_eq "no --param: exit status" "$?" 2
echo "sweep: ok"
