#!/usr/bin/env bash
# Issue 37's acceptance on the GPU machine: `gpuwhy experiment try` on
# scenarios whose cause is known, then the table of predicted against
# measured gain (tests/accuracy/experiment_table.py).
#
#   scenarios/experiment_try_suite.sh GPUWHY_BIN OUTDIR [NAME...]
#
# NAME: input_cpu_transforms, input_pageable_copies, small_batch, healthy
# (default: all four; healthy runs healthy_dataloader.py, a compute-bound loop
# with a DataLoader). Each experiment takes about 2 rounds x (1 + fixes) runs
# of warm-up + TRY_SECONDS (default 20) steady seconds: 4-6 minutes, so run
# one NAME per 10-minute device command, then the table:
#   python3 tests/accuracy/experiment_table.py OUTDIR/*/
# The loader-bound ones take the fixes their diagnosis points to (no --fix);
# the healthy compute-bound one is given fixes that should all show no
# significant change; small_batch is the healthy transformer at batch 1 with
# the batch-size fix (samples per second); input_pageable_copies serves its
# pageable batches through a DataLoader without pin_memory. Needs the hook's fixes (docs/FIXES.md).
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GPUWHY=${1:?usage: experiment_try_suite.sh GPUWHY_BIN OUTDIR [NAME...]}
OUT=${2:?usage: experiment_try_suite.sh GPUWHY_BIN OUTDIR [NAME...]}
shift 2
PY="${SCN_PYTHON:-python3}"
SECONDS_STEADY="${TRY_SECONDS:-20}"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(input_cpu_transforms input_pageable_copies small_batch healthy)
mkdir -p "$OUT"
for name in "${names[@]}"; do
  fixes=()
  case $name in
  input_cpu_transforms) script=(input_cpu_transforms.py) ;;
  # the batches come from a DataLoader without pin_memory (the fixes act on loaders and on pinned sources)
  # 4096 hidden units: GPU work a pinned copy can overlap (bench/h2d/pinning_probe.py; with 256 the step is the
  # copy, and the pin thread's own host copy costs what pinning saves)
  input_pageable_copies) script=(input_pageable_copies.py --loader --batch-mib 64 --hidden 4096) fixes=(--fix pin_memory --fix non_blocking) ;;
  # the healthy transformer at one sequence a batch: the batch-size fix acts on its DataLoader
  small_batch) script=(healthy_dataloader.py --batch-size 1) fixes=(--fix batch_size=x4) ;;
  healthy) script=(healthy_dataloader.py) fixes=(--fix workers=4 --fix prefetch_factor=8 --fix cudnn_benchmark) ;;
  *) echo "unknown scenario $name" >&2; exit 2 ;;
  esac
  [ -e "$OUT/$name" ] && { echo "$OUT/$name exists: skipped" >&2; continue; }
  # the experiment stops each run once it has its steady seconds: the scenario's own duration is only a ceiling
  "$GPUWHY" experiment try "${fixes[@]}" --rounds "${TRY_ROUNDS:-2}" --seconds "$SECONDS_STEADY" \
    --max-seconds "${TRY_MAX_SECONDS:-240}" --keep "$OUT/$name" \
    --format text -- "$PY" -u "$HERE/${script[0]}" "${script[@]:1}" --duration 3600 --max-setup-s 600 \
    > "$OUT/$name.txt" 2> "$OUT/$name.log"
  echo "$name: exit $?"
  cat "$OUT/$name.txt"
done
python3 "$HERE/../tests/accuracy/experiment_table.py" "$OUT"/*/ 2>/dev/null || true
