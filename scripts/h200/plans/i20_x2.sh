#!/usr/bin/env bash
# Issue 20 on nvidia-h200-x2 (at most 9 minutes): the four DDP scenarios re-recorded with the Python hook.
# Each mode of scenarios/ddp.py under torchrun --nproc_per_node=2, recorded by plain `gpuwhy record` (the
# hook is on by default; no --trace, only steps are wanted), 20 s of steady state each; then per recording:
# every rank has steps, its batch size equals the truth's (ranks[].batch: 4096, straggler rank 1 5734,
# comm_heavy 32, grad_accum 256), rank 0's steps inside the truth window match the truth's within 1%; the
# report's Steps section.
# usage: scripts/h200/run.sh i20_x2 OUTDIR [SECONDS_PER_SCENARIO]
# Output under OUTDIR: i20_x2.log (everything), ddp_steps.txt (checks and Steps sections),
# ddp_recordings.tar.gz (.db, .truth.json, .log, report of each mode)
set -u
out=${1:?usage: i20_x2.sh OUTDIR [SECONDS]}
secs=${2:-20}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$PWD/build-dev/gpuwhy
w=/tmp/gw_i20_x2
rm -rf "$w" && mkdir -p "$w/rec"
rec=$w/rec
log=$out/i20_x2.log
t_start=$(date +%s)
say() { echo "[$(date -u +%H:%M:%S) +$(($(date +%s) - t_start))s] $*" | tee -a "$log"; }
export PYTHONUNBUFFERED=1
say "host $(hostname); $(nvidia-smi --query-gpu=index,name --format=csv,noheader 2>&1 | tr '\n' ' ')"
python3 -c 'import torch; print("torch", torch.__version__, "gpus", torch.cuda.device_count())' >> "$log" 2>&1
for m in balanced straggler comm_heavy grad_accum; do
  if [ $(($(date +%s) - t_start)) -gt 420 ]; then
    say "--- ddp_$m: skipped, out of time"
    continue
  fi
  say "--- ddp_$m"
  timeout -k 10 $((secs + 90)) "$bin" record -q -o "$rec/ddp_$m.db" --interval 100 -- \
    torchrun --standalone --nproc_per_node=2 scenarios/ddp.py --mode "$m" --duration "$secs" \
    --out "$rec/ddp_$m.truth.json" --scenario-name "ddp_$m" > "$rec/ddp_$m.log" 2>&1
  say "    rc=$?"
  "$bin" report "$rec/ddp_$m.db" > "$rec/ddp_$m.report.txt" 2>&1
done
python3 scripts/h200/plans/i20b_check.py batch "$rec"/ddp_*.db > "$out/ddp_steps.txt" 2>&1
for f in "$rec"/ddp_*.report.txt; do
  { echo "===== $(basename "$f")"; sed -n '/^Steps (measured/,/^$/p' "$f"; sed -n 1,3p "$f"; } >> "$out/ddp_steps.txt"
done
tar -C "$w" -czf "$out/ddp_recordings.tar.gz" rec >> "$log" 2>&1
say "done"
cat "$out/ddp_steps.txt" >> "$log"
