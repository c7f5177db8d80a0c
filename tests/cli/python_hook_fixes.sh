#!/usr/bin/env bash
# The fixes the Python hook applies without an edit to the script
# (GPUWHY_PY_FIXES, tracer/python/gpuwhy_hook/_gpuwhy_fixes.py, for
# `gpuwhy experiment try`), on the fake torch under `gpuwhy record`: each fix
# changes the program's DataLoader or flags, is a fix_applied event in the
# recording, is undone at detach (hook_fixes_check.py); unsafe ones and bad
# fix strings are fix_refused events with their reason, and the program's
# output and exit status are its own; the workers fix speeds up an
# input-bound loop.
. "$(dirname "$0")/lib.bash"
use_fake_torch
TRAIN=$GW_SOURCE_DIR/tests/python/train_fake.py
# the lines of train_fake.py that build its DataLoader, as the fixes' messages name them
LINE=train_fake.py:$(grep -n "loader = torch.utils.data.DataLoader(dataset, batch_size" "$TRAIN" | cut -d: -f1)
SAMPLER_LINE=train_fake.py:$(grep -n "loader = torch.utils.data.DataLoader(dataset, batch_sampler" "$TRAIN" | cut -d: -f1)
events() { q "$1" "select message from event where kind = '$2' order by message"; }

# Applied and undone, in one process: every fix, each refusal, failures inside the fix code.
python3 "$GW_SOURCE_DIR/tests/python/hook_fixes_check.py" "$GW_SOURCE_DIR/tracer/python/gpuwhy_hook" ||
  fail "hook_fixes_check.py failed"

# Every fix at once, with a CUDA device (FAKE_TORCH_CUDA): the program sees them, the recording says so.
ALL=workers=4,pin_memory,persistent_workers,prefetch_factor=4,cudnn_benchmark,tf32,non_blocking,batch_size=x2
FAKE_TORCH_CUDA=1 GPUWHY_PY_FIXES=$ALL "$GW_BIN" record -q -o all.db -- \
  python3 "$TRAIN" 6 8 --print-loader --print-flags --to-cuda > all.out || fail "record with every fix exited $?"
grep -qx "loader num_workers=4 pin_memory=True persistent_workers=True prefetch_factor=4 batch_size=16" all.out ||
  fail "DataLoader not changed: $(head -1 all.out)"
grep -qx "flags cudnn_benchmark=True allow_tf32=True matmul_precision=high" all.out || fail "flags: $(grep flags all.out)"
# 6 batches, pinned by the loader: non-blocking; the weight's one move (a Parameter) is not the input pipeline
grep -qx "copies to cuda 7 non_blocking 6 pinned 6" all.out || fail "copies: $(grep copies all.out)"
assert_eq "steps with every fix" "$(q all.db 'select count(*) || " " || min(batch_size) from step')" "6 16"
assert_eq "fixes applied" "$(events all.db fix_applied)" "$(
  cat <<EOF
batch_size: DataLoader batch_size 8 -> 16 ($LINE)
cudnn_benchmark: torch.backends.cudnn.benchmark False -> True
non_blocking: 6 host-to-device copies made non-blocking, 0 from pageable memory left blocking
persistent_workers: DataLoader persistent_workers False -> True ($LINE)
pin_memory: DataLoader pin_memory False -> True ($LINE)
prefetch_factor: DataLoader prefetch_factor None -> 4 ($LINE)
tf32: float32 matmul precision highest -> high
workers: DataLoader num_workers 0 -> 4 ($LINE)
EOF
)"
assert_eq "nothing refused" "$(events all.db fix_refused)" ""
assert_eq "fix events are the hook's, code 0" "$(q all.db "select count(*) from event where kind like 'fix_%' and code = 0 and pid > 0")" 8
# Without a fix, the same program runs as written (its output is what it prints without the hook).
FAKE_TORCH_CUDA=1 "$GW_BIN" record -q -o none.db -- python3 "$TRAIN" 6 8 --print-loader --print-flags --to-cuda > none.out ||
  fail "record without fixes exited $?"
grep -qx "loader num_workers=0 pin_memory=False persistent_workers=False prefetch_factor=None batch_size=8" none.out ||
  fail "a loader changed without GPUWHY_PY_FIXES: $(head -1 none.out)"
grep -qx "copies to cuda 7 non_blocking 0 pinned 0" none.out || fail "copies without fixes: $(grep copies none.out)"
assert_eq "no fix events without GPUWHY_PY_FIXES" "$(q none.db "select count(*) from event where kind like 'fix_%'")" 0
# pageable copies: non_blocking says how many it could not change
GPUWHY_PY_FIXES=non_blocking "$GW_BIN" record -q -o pageable.db -- python3 "$TRAIN" 5 8 --to-cuda > pageable.out ||
  fail "record with non_blocking exited $?"
grep -qx "copies to cuda 6 non_blocking 0 pinned 0" pageable.out || fail "pageable copies: $(grep copies pageable.out)"
assert_eq "non_blocking on pageable copies" "$(events pageable.db fix_applied)" \
  "non_blocking: 0 host-to-device copies made non-blocking, 5 from pageable memory left blocking (pin_memory would let them overlap)"

# Refused where unsafe, with the reason; a bad fix string refused item by item; the program's
# output and exit status are those of the plain run.
set +e
"$GW_BIN" record -q -o plain.db -- python3 "$TRAIN" 5 8 --iterable --print-loader --status 3 > plain.out
rc=$?
set -e
assert_eq "plain exit status" "$rc" 3
set +e
GPUWHY_PY_FIXES="workers=2,pin_memory,prefetch_factor=2,bogus,batch_size=x0,tf32=on,workers=3,cudnn_benchmark" \
  "$GW_BIN" record -q -o refused.db -- python3 "$TRAIN" 5 8 --iterable --print-loader --status 3 > refused.out 2> refused.err
rc=$?
set -e
assert_eq "exit status with refused fixes" "$rc" 3
cmp -s plain.out refused.out || fail "refused fixes changed the program's output: $(diff plain.out refused.out)"
assert_eq "fixes refused" "$(events refused.db fix_refused)" "$(
  cat <<EOF
batch_size: refused, bad value 'x0' (batch_size=N >= 1 or xK, K >= 1)
bogus: refused, unknown fix 'bogus'
pin_memory: refused, no CUDA device ($LINE)
prefetch_factor: refused, the DataLoader has 0 workers and the workers fix was refused on it ($LINE)
tf32: refused, takes no value ('tf32=on')
workers: refused, IterableDataset: each worker would replay the whole stream ($LINE)
workers: refused, given twice ('workers=3')
EOF
)"
assert_eq "the good fix beside bad ones" "$(events refused.db fix_applied)" "cudnn_benchmark: torch.backends.cudnn.benchmark False -> True"
grep -q gpuwhy refused.err && fail "refusals reached stderr: $(cat refused.err)"
# batch_size with a batch_sampler; persistent_workers without workers; a program without DataLoader
GPUWHY_PY_FIXES=batch_size=32,persistent_workers "$GW_BIN" record -q -o sampler.db -- \
  python3 "$TRAIN" 4 8 --batch-sampler --print-loader > sampler.out || fail "record with a batch_sampler exited $?"
grep -q "batch_size=8$" sampler.out || fail "batch size changed beside a batch_sampler: $(head -1 sampler.out)"
assert_eq "batch_size beside a batch_sampler" "$(events sampler.db fix_refused)" "$(
  printf '%s\n' "batch_size: refused, the DataLoader has a batch_sampler: its batches are the sampler's ($SAMPLER_LINE)" \
    "persistent_workers: refused, the DataLoader has 0 workers and no workers fix ($SAMPLER_LINE)"
)"
cat > noloader.py <<'PY'
import torch
opt = torch.optim.SGD([], lr=0.1)
for _ in range(4):
    torch.nn.Module()(torch.zeros(8, 3))  # batches made in the loop: no DataLoader, no copy to the GPU
    opt.step()
PY
GPUWHY_PY_FIXES=workers=2,non_blocking "$GW_BIN" record -q -o noloader.db -- python3 noloader.py ||
  fail "record without a DataLoader exited $?"
assert_eq "steps without a DataLoader" "$(q noloader.db 'select count(*) from step')" 4
assert_eq "fixes never reached" "$(events noloader.db fix_refused)" "$(
  printf '%s\n' "non_blocking: refused, no host-to-device copy seen" "workers: refused, no DataLoader built by exit"
)"

# A fix that breaks the program: its own exception and exit status, the fix reported as applied.
set +e
GPUWHY_PY_FIXES=workers=2 "$GW_BIN" record -q -o crash.db -- python3 "$TRAIN" 4 8 --crash-if-workers > /dev/null 2> crash.err
rc=$?
set -e
assert_eq "exit status of a program the fix breaks" "$rc" 1
grep -q "RuntimeError: this program breaks with DataLoader workers" crash.err || fail "the program's error: $(cat crash.err)"
assert_eq "the breaking fix is reported" "$(events crash.db fix_applied)" "workers: DataLoader num_workers 0 -> 2 ($LINE)"
"$GW_BIN" record -q -o nocrash.db -- python3 "$TRAIN" 4 8 --crash-if-workers > /dev/null || fail "the baseline broke: $?"

# An input-bound loop (each batch 20 ms to load in one process, 2 ms of compute): 4 workers load
# 4 batches at once (the fake's model), so the median step drops from about 22 ms to about 7 ms.
median_ms() {
  q "$1" "select (t_end_ns - t_start_ns) / 1e6 from step where step > 1 order by 1" |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
"$GW_BIN" record -q -o slow.db -- python3 "$TRAIN" 40 16 --delay-ms 20 --compute-ms 2 > /dev/null || fail "baseline exited $?"
GPUWHY_PY_FIXES=workers=4 "$GW_BIN" record -q -o fast.db -- python3 "$TRAIN" 40 16 --delay-ms 20 --compute-ms 2 > /dev/null ||
  fail "workers=4 exited $?"
slow=$(median_ms slow.db)
fast=$(median_ms fast.db)
assert_ge "baseline median step (ms)" "$slow" 20
awk -v s="$slow" -v f="$fast" 'BEGIN { exit !(f > 0 && s / f >= 2) }' ||
  fail "workers=4: median step $slow ms -> $fast ms, less than 2x"
echo "python_hook_fixes: median step $slow ms -> $fast ms with workers=4"

# batch_size=x2 on a small-batch loop whose compute is per step (the fake's --compute-ms): the
# samples per second double, the steps per second stay.
samples_per_s() {
  q "$1" "select sum(samples) * 1e9 / sum(t_end_ns - t_start_ns) from step where step > 1"
}
"$GW_BIN" record -q -o small.db -- python3 "$TRAIN" 30 8 --compute-ms 5 > /dev/null || fail "small batch exited $?"
GPUWHY_PY_FIXES=batch_size=x2 "$GW_BIN" record -q -o double.db -- python3 "$TRAIN" 30 8 --compute-ms 5 > /dev/null ||
  fail "batch_size=x2 exited $?"
assert_eq "samples per step with batch_size=x2" "$(q double.db 'select group_concat(distinct samples) from step')" 16
a=$(samples_per_s small.db)
b=$(samples_per_s double.db)
awk -v a="$a" -v b="$b" 'BEGIN { exit !(b / a >= 1.6 && b / a <= 2.5) }' ||
  fail "batch_size=x2: $a -> $b samples/s, not about 2x"
echo "python_hook_fixes: $a -> $b samples/s with batch_size=x2"
echo "1 passed, 0 failed"
