#!/usr/bin/env bash
# What gpuwhy costs the program it watches, and whether its readings agree with nvidia-smi (bench/RESULTS.md).
#   sampler   bench/sampler/run.sh: `gpuwhy record` at 10 Hz and 1 Hz beside nvidia-smi dmon over 60 s of a steady
#             load, with the recorder's own accounting (recorder_* in meta) of each run (about 2 minutes)
#   tracer    bench/tracer/run.sh: the storm and a transformer training step, plain against --trace (sampled),
#             --trace=full and torch.profiler, in interleaved rounds (TRACER_ROUNDS, default 3, of TRACER_SECONDS,
#             default 10; about 6 minutes)
#   validate  lib/validate_nvsmi.sh: a bf16 load recorded while nvidia-smi reads the same GPU, side by side (1 minute)
# usage: scripts/h200/run.sh costs OUT [sampler] [tracer] [validate]   (none named: sampler and validate)
# Output under OUT: log.txt, sampler_bench.txt, tracer_bench.txt, validate_compare.txt.
set -u
. scripts/h200/lib/plan_start.sh
plan_start costs "${1:?usage: costs.sh OUT [sampler] [tracer] [validate]}"
shift
[ $# -gt 0 ] || set -- sampler validate
for part in "$@"; do
  say "--- $part"
  case $part in
    sampler)
      mkdir -p "$w/sampler"
      bash scripts/h200/lib/sampler_bench.sh "$bin" "$w/sampler" "$out"
      cat "$out/sampler_bench.txt" ;;
    tracer)
      bash bench/tracer/run.sh "$bin" "$w/tracer" "${TRACER_ROUNDS:-3}" "${TRACER_SECONDS:-10}" > "$out/tracer_bench.log" 2>&1
      cp "$w/tracer/tracer_bench.txt" "$out/" 2>/dev/null
      tail -12 "$out/tracer_bench.log" ;;
    validate)
      bash scripts/h200/lib/validate_nvsmi.sh "$bin" "$w/validate" > "$out/validate.log" 2>&1
      cp "$w/validate/validate_compare.txt" "$out/" 2>/dev/null
      cat "$out/validate.log" ;;
    *) say "unknown part '$part' (sampler, tracer, validate)" ;;
  esac
done
say "all done in $(elapsed)s"
