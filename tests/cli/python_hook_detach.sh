#!/usr/bin/env bash
# The Python hook can be taken out again in the same process (_Recorder.detach,
# for bench/tracer/hook_ab.py), checked on the fake torch; and hook_ab.py's
# parts that need no GPU run: the CPU micro-benchmark and the A/B machinery on
# the fake workload.
. "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
export PYTHONPATH=$GW_SOURCE_DIR/tests/python/fake_torch
unset GPUWHY_PY_SPOOL_DIR
HOOK=$GW_SOURCE_DIR/tracer/python/gpuwhy_hook
mkdir spool
python3 "$GW_SOURCE_DIR/tests/python/hook_detach_check.py" "$HOOK" "$PWD/spool" || fail "attach/detach check failed"

AB=$GW_SOURCE_DIR/bench/tracer/hook_ab.py
python3 "$AB" --micro --iterations 2000 > micro.txt || fail "hook_ab.py --micro exited $?"
grep -q "^micro_ns_per_step_pre_post [0-9.]* (one spool line written per step: 2000 lines)" micro.txt ||
  fail "micro-benchmark output: $(cat micro.txt)"
# 2 warm-up rounds and 6 measured ones, each with a hook block of 5 steps: 40 steps written
python3 "$AB" --workload fake --block 5 --rounds 6 --warmup-rounds 2 --cpus none --bootstrap 200 > ab.txt ||
  fail "hook_ab.py --workload fake exited $?"
for k in hook_vs_plain control_vs_plain cpu_hook_vs_plain cpu_control_vs_plain; do
  grep -q "^${k}_median_pct [-+][0-9.]* ci95 [-+][0-9.]* [-+][0-9.]*  mean_pct [-+][0-9.]* ci95 [-+][0-9.]* [-+][0-9.]*  resolves_0.5pct " ab.txt ||
    fail "A/B output ($k): $(cat ab.txt)"
done
grep -q "^hook_vs_plain_best_pct [-+][0-9.]* control_vs_plain_best_pct [-+][0-9.]*" ab.txt || fail "best-of-N: $(cat ab.txt)"
assert_eq "measured rounds" "$(sed -n 's/.* measured_rounds \([0-9]*\) .*/\1/p' ab.txt)" 6
assert_eq "hook steps written in the hook blocks only" "$(sed -n 's/^hook_steps_written \([0-9]*\) expected \([0-9]*\)$/\1=\2/p' ab.txt)" "40=40"
assert_eq "no temporary spool left" "$(ls -d "${TMPDIR:-/tmp}"/gpuwhy-hook-ab-* "${TMPDIR:-/tmp}"/gpuwhy-hook-micro-* 2>/dev/null | wc -l)" 0
GPUWHY_PY_SPOOL_DIR=$PWD/spool python3 "$AB" --micro --iterations 10 > /dev/null 2>&1 && fail "hook_ab.py ran under a recording's hook"
echo "python_hook_detach: ok"
