#!/usr/bin/env bash
# gpuwhy experiment fixed-batch measures each run on its steady steps: every
# run goes on until it has run --seconds of steps after its warm-up (MSER-5,
# lib/analysis/steady_steps.c), the warm-up's steps are left out of both
# throughputs and of the interval, and --max-seconds ends a run that never
# settles with a clear message. On the H200, input_cpu_transforms' DataLoader
# workers took 13.5 s to start: its "as it is" run measured 10 steps and the
# ratio's interval was 1.42x..17.65x.
. "$(dirname "$0")/lib.bash"
use_fake_torch
TRAIN=$GW_SOURCE_DIR/tests/python/train_fake.py
# the experiment's recordings go to a folder of this test's own ($TMPDIR), checked empty at the end
mkdir tmp
export TMPDIR=$PWD/tmp

# A cold start of 2.1 s (3 steps of 0.7 s, as DataLoader workers starting),
# then an input-bound loop: 20 ms to load each batch, 5 ms to compute on it.
# The loop would run for an hour: the experiment must stop it. Asked 2 s of
# steady steps, each run measures at least that, after its cold steps.
t0=$(date +%s)
"$GW_BIN" experiment fixed-batch -q --batches 4 --seconds 2 -- \
  python3 "$TRAIN" 100000 16 --delay-ms 20 --compute-ms 5 --warmup-steps 3 --warmup-ms 700 > fb.out 2> fb.err ||
  { cat fb.out fb.err; fail "fixed-batch of a loop with a cold start exited $?"; }
elapsed=$(($(date +%s) - t0))
[ "$elapsed" -le 60 ] || fail "fixed-batch took $elapsed s for 2 s of steady steps per run"
grep -q "^Input-bound" fb.out || { cat fb.out; fail "an input-bound loop with a cold start is not called input-bound"; }
python3 - fb.out <<'PY' || { cat fb.out; fail "fixed-batch did not measure steady steps"; }
import re, sys
text = open(sys.argv[1]).read()
runs = re.findall(r"\((\d+) steady steps in ([0-9.]+) s after (\d+) warm-up steps, median step ([0-9.]+) ms\)", text)
assert len(runs) == 2, runs
(n_a, s_a, w_a, med_a), (n_b, s_b, w_b, med_b) = runs
# each run measured the steady seconds asked (the recorder stops at its next look, about a second later)
assert 2.0 <= float(s_a) <= 8.0 and 2.0 <= float(s_b) <= 8.0, runs
# the first step and the two cold steps after it are warm-up, not measured
assert int(w_a) >= 3 and int(w_b) >= 3, runs
assert 20 <= float(med_a) <= 40 and float(med_b) < 15, runs
lo, hi = map(float, re.search(r"95% interval ([0-9.]+)x \.\. ([0-9.]+)x", text).groups())
ratio = float(re.search(r"throughput ratio ([0-9.]+)x", text).group(1))
# 25 ms against 5 ms a step: about 5x; from steady steps alone the interval is narrow
assert 2.5 <= lo <= ratio <= hi <= 8 and hi / lo < 1.5, (lo, ratio, hi)
PY

# A loop that never settles (each step 0.5 ms longer than the one before):
# --max-seconds ends each run, and nothing is compared.
t0=$(date +%s)
set +e
"$GW_BIN" experiment fixed-batch -q --seconds 2 --max-seconds 3 -- \
  python3 "$TRAIN" 100000 16 --compute-ms 1 --drift-ms 0.5 > drift.out 2> drift.err
rc=$?
set -e
elapsed=$(($(date +%s) - t0))
assert_eq "fixed-batch of a loop that never settles exits" "$rc" 2
[ "$elapsed" -le 30 ] || fail "--max-seconds 3 did not end the runs: $elapsed s"
grep -q 'reached no steady steps in 3 s (--max-seconds)' drift.out || { cat drift.out; fail "no clear message for a loop that never settles"; }
grep -q "throughput ratio" drift.out && fail "a loop that never settled was compared"
assert_eq "fixed-batch leaves no recordings behind" "$(ls -A tmp | wc -l)" 0
echo "1 passed, 0 failed"
