#!/usr/bin/env bash
# The four DDP scenarios (scenarios/ddp.py) over torchrun on two GPUs, each recorded by `gpuwhy record`.
# Needs a machine with two GPUs (kind nvidia-h200-x2 or nvidia-h100-x2). One recording per mode, packed with its
# truth, its log and its report as OUT/ddp_MODE.tar.xz (how tests/fixtures/scenarios/ddp_*.db are made); then
# lib/check_steps.py: steps on every rank, batch per rank against the truth's.
# Environment: DDP_SECONDS (default 25) per mode, DDP_RECORD_OPTS (default "--trace"), DDP_MODES (default all four).
# usage: scripts/h200/run.sh record_ddp OUT
set -u
. scripts/h200/lib/plan_start.sh
plan_start record_ddp "${1:?usage: record_ddp.sh OUT}"
secs=${DDP_SECONDS:-25}
{ nvidia-smi topo -m; env | grep -E '^NCCL_'; } >> "$log" 2>&1
for m in ${DDP_MODES:-balanced straggler comm_heavy grad_accum}; do
  # shellcheck disable=SC2086 # the options split on purpose
  timeout $((secs + 150)) "$bin" record ${DDP_RECORD_OPTS:---trace} -o "$w/ddp_$m.db" -- \
    torchrun --standalone --nproc_per_node=2 scenarios/ddp.py --mode "$m" --duration "$secs" \
    --out "$w/ddp_$m.truth.json" > "$w/ddp_$m.log" 2>&1
  say "ddp_$m: exit $?, $(stat -c %s "$w/ddp_$m.db" 2>/dev/null) bytes"
  "$bin" report "$w/ddp_$m.db" > "$w/ddp_$m.report.txt" 2>&1
  tar -C "$w" -cJf "$out/ddp_$m.tar.xz" "ddp_$m.db" "ddp_$m.truth.json" "ddp_$m.log" "ddp_$m.report.txt"
done
python3 scripts/h200/lib/check_steps.py batch "$w"/ddp_*.db > "$out/steps.txt" 2>&1
cat "$out/steps.txt"
say "all done in $(elapsed)s"
