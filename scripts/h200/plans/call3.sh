#!/usr/bin/env bash
# One device call (at most 9.5 minutes) for issues 20, 21 and 23:
#  A. worked_case stage 3 (torch.compile with CUDA graphs) under `record --trace`, default windows:
#     ran into Xid 31 before the tracer learnt to keep CUPTI in with graphs; now it must end ok;
#  B. gpuwhy experiment fixed-batch on input_slow_read (input-bound expected) and on worked_case
#     stage 3 (a healthy loop with a DataLoader: no significant change expected);
#  C. scripts/h200/plans/hookcost.sh (the hook's cost in one process, NVTX injection on torch);
#  D. scripts/h200/plans/i21new.sh (the new scenarios) with what time is left (I21NEW_LIMIT_S).
# usage: scripts/h200/run.sh call3 OUT
set -u
out=${1:?usage: call3.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$PWD/build-dev/gpuwhy
export GPUWHY_TRACER_LIB=$PWD/build-dev/tracer/libgpuwhy-tracer.so
say() { echo "[$(date -u +%H:%M:%S)] $*"; }
t0=$(date +%s)
mkdir -p "$out/s3"
say "A. worked_case_s3 under record --trace"
SCN_DURATION=8 SCN_TIMEOUT_EXTRA=60 SCN_RECORD_OPTS="--trace" bash scenarios/run_suite.sh "$bin" "$out/s3" worked_case_s3 2>&1 |
  grep -E "^(OK|FAIL)|xid|Xid|error" | head -20
python3 scripts/dbq.py "$out/s3/worked_case_s3.db" "select level, text from trace_note where text like '%graph%' or level > 0; select kind, count(*) from event group by kind; select count(*), count(batch_size) from step" 2>&1 | head -20
tar -C "$out/s3" -czf "$out/worked_case_s3.tar.gz" . && rm -rf "$out/s3"
say "B. fixed-batch"
: > "$out/fixed_batch.txt"
mkdir -p /tmp/gpuwhy_scn
for s in "input_slow_read|input_slow_read.py --data-dir /tmp/gpuwhy_scn" "worked_case_s3|worked_case.py --stage 3"; do
  name=${s%%|*} cmd=${s#*|}
  echo "===== fixed-batch $name: $cmd" >> "$out/fixed_batch.txt"
  # shellcheck disable=SC2086
  timeout -k 10 130 "$bin" experiment fixed-batch --seconds 28 -- python3 -u scenarios/$cmd \
    --out "/tmp/gpuwhy_scn/fb_$name.truth.json" --duration 10 >> "$out/fixed_batch.txt" 2>&1
  echo "rc=$?" >> "$out/fixed_batch.txt"
done
cat "$out/fixed_batch.txt"
say "C. hook cost ($(( $(date +%s) - t0 )) s so far)"
mkdir -p "$out/hc"
timeout -k 10 130 bash scripts/h200/plans/hookcost.sh "$out/hc" > /dev/null 2>&1
say "   rc=$?"
cat "$out/hc/hook_ab.txt" "$out/hc/nvtx.txt" > "$out/hookcost.txt" 2>&1
echo "===== hookcost.log" >> "$out/hookcost.txt"
cat "$out/hc/hookcost.log" >> "$out/hookcost.txt" 2>&1
cp "$out/hc/nvtx_steps.db" "$out/" 2>/dev/null
rm -rf "$out/hc"
left=$(( 560 - ($(date +%s) - t0) ))
say "D. new scenarios with $left s"
mkdir -p "$out/n"
I21NEW_LIMIT_S=$left bash scripts/h200/plans/i21new.sh "$out/n" > /dev/null 2>&1
cp "$out/n/i21new_recordings.tar.gz" "$out/" 2>/dev/null
cat "$out/n/summary.txt" "$out/n/i21new_run.log" > "$out/i21new.txt" 2>&1
rm -rf "$out/n"
say "done: $(ls "$out" | tr '\n' ' ')"
