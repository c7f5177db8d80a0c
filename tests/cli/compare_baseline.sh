#!/bin/bash
# gpuwhy baseline: save a run, check later runs against it (exit 1 on a
# regression beyond the tolerance), list what is saved; bad names and missing
# baselines are refused.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
if ! "$GW_BIN" baseline --help >/dev/null 2>&1; then
  echo "gpuwhy baseline is not in src/main.c's command table yet: skipping"
  exit 77
fi
export GPUWHY_HOME=$SCRATCH/home
dir="$GW_FIXTURES/scenarios"
"$GW_BIN" baseline save stage1 "$dir/worked_case_s1.db" >save.txt || fail "save exited $?"
[ -f "$GPUWHY_HOME/baselines/stage1.json" ] || fail "no baseline file"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"] == "gpuwhy.baseline/2" and d["steps"] == 586' \
  "$GPUWHY_HOME/baselines/stage1.json" || fail "baseline file content"
"$GW_BIN" baseline check stage1 "$dir/worked_case_s1.db" >same.txt || fail "the same run failed the check ($?)"
grep -q "Result: holds" same.txt || fail "no result line"
"$GW_BIN" baseline check stage1 "$dir/worked_case_s2.db" >/dev/null || fail "a faster run failed the check"
set +e
"$GW_BIN" baseline check stage1 "$dir/worked_case_s0.db" >slow.txt
assert_eq "slower run: exit status" "$?" 1
grep -q "Result: REGRESSION: throughput -95" slow.txt || fail "the regression is not explained"
# CUDA Graphs (stage 3) shortened the median step by about 5% against stage 2:
# going back to stage 2 is a regression at a 2% tolerance, not at 10%.
"$GW_BIN" baseline save stage3 "$dir/worked_case_s3.db" >/dev/null || fail "save stage3"
"$GW_BIN" baseline check --tolerance 2 stage3 "$dir/worked_case_s2.db" >tol2.txt
assert_eq "median step +5%, tolerance 2%: exit status" "$?" 1
grep -q "median step time +5" tol2.txt || fail "the median step regression is not explained"
"$GW_BIN" baseline check --tolerance 10 stage3 "$dir/worked_case_s2.db" >/dev/null
assert_eq "median step +5%, tolerance 10%: exit status" "$?" 0
"$GW_BIN" baseline check nothing "$dir/worked_case_s0.db" >/dev/null 2>err.txt
assert_eq "missing baseline: exit status" "$?" 3
"$GW_BIN" baseline save ../up "$dir/worked_case_s0.db" >/dev/null 2>&1
assert_eq "bad name: exit status" "$?" 2
"$GW_BIN" baseline check --tolerance abc stage1 "$dir/worked_case_s0.db" >/dev/null 2>&1
assert_eq "bad tolerance: exit status" "$?" 2
set -e
"$GW_BIN" baseline list >list.txt
grep -q "stage1 .* 586 .*samples/s" list.txt || fail "list does not show the baseline"
echo "baselines: ok"
