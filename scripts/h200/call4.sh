#!/usr/bin/env bash
# Device call 4: sampler benchmark again (after the cost changes), tracer
# variants on the storm, and kernel counts against torch.profiler.
set -u
out=$1
bin=$PWD/build-dev/gpuwhy
export PYTHONUNBUFFERED=1
mkdir -p "$out/rec"
timeout 100 bash bench/sampler/run.sh "$bin" "$out/rec" 60 > "$out/sampler_bench.log" 2>&1
cat "$out/rec/sampler_bench.txt"
lib=$PWD/build-dev/tracer/libgpuwhy-tracer.so
storm() { python3 bench/tracer/storm.py --reps 5 | tail -1; }
for r in 1 2; do
  for cfg in plain inject_only count_only window_nokernel sampled full_nomem full; do
    d=$(mktemp -d)
    case $cfg in
      plain) line=$(storm) ;;
      inject_only) line=$(CUDA_INJECTION64_PATH=$lib GPUWHY_TRACE_DIR=$d GPUWHY_TRACE_MODE=sampled GPUWHY_TRACE_SAMPLED_KIND=none GPUWHY_TRACE_COUNT_LAUNCHES=0 storm) ;;
      count_only) line=$(CUDA_INJECTION64_PATH=$lib GPUWHY_TRACE_DIR=$d GPUWHY_TRACE_MODE=sampled GPUWHY_TRACE_SAMPLED_KIND=none storm) ;;
      window_nokernel) line=$(CUDA_INJECTION64_PATH=$lib GPUWHY_TRACE_DIR=$d GPUWHY_TRACE_MODE=sampled GPUWHY_TRACE_SAMPLED_KIND=nokernel GPUWHY_TRACE_COUNT_LAUNCHES=0 storm) ;;
      sampled) line=$(CUDA_INJECTION64_PATH=$lib GPUWHY_TRACE_DIR=$d GPUWHY_TRACE_MODE=sampled storm) ;;
      full_nomem) line=$(CUDA_INJECTION64_PATH=$lib GPUWHY_TRACE_DIR=$d GPUWHY_TRACE_MODE=full GPUWHY_TRACE_MEMORY=0 storm) ;;
      full) line=$(CUDA_INJECTION64_PATH=$lib GPUWHY_TRACE_DIR=$d GPUWHY_TRACE_MODE=full storm) ;;
    esac
    rm -rf "$d"
    echo "round $r $cfg $line" | tee -a "$out/tracer_variants.txt"
  done
done
python3 bench/tracer/count_compare.py profile "$out/prof_counts.json" 2>&1 | grep -v WARNING | tail -2
"$bin" record -q --trace=full -o "$out/rec/count.db" -- python3 bench/tracer/count_compare.py plain
python3 bench/tracer/count_compare.py compare "$out/prof_counts.json" "$out/rec/count.db" | tee "$out/count_compare.txt"
rm -f "$out/rec/count.db"
tar -C "$out/rec" -czf "$out/rec4.tgz" . && rm -rf "$out/rec"
