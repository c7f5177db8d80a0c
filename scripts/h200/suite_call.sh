#!/usr/bin/env bash
# One device call: environment check, optional checks against nvidia-smi and
# the sampler benchmark (over the first minute of the suite), then scenarios.
# usage: scripts/h200/suite_call.sh OUT HALF [validate] [bench]
set -u
out=$1 half=$2
shift 2
bin=$PWD/build-dev/gpuwhy
mkdir -p "$out/rec"
export PYTHONUNBUFFERED=1
{
  echo "== $(date -u) $(hostname)"
  nvidia-smi -L
  nvidia-smi --query-gpu=driver_version,power.limit,clocks.max.sm,pcie.link.gen.max --format=csv
  ldd "$bin" | grep -i "not found" && echo "MISSING LIBRARIES"
  python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))'
  nproc; free -g | head -2
} > "$out/env.txt" 2>&1
cat "$out/env.txt"
for arg in "$@"; do
  case $arg in
    validate) bash scripts/h200/validate_nvsmi.sh "$bin" "$out/rec" > "$out/validate.log" 2>&1 ;;
  esac
done
if printf '%s\n' "$@" | grep -qx bench; then
  # Over the first minute of the suite: 10 Hz and 1 Hz recorders following this
  # shell's tree (the scenarios), and nvidia-smi dmon, side by side.
  (
    sleep 3
    python3 bench/sampler/cputime.py "gpuwhy record 10 Hz" "$bin" record -q --interval 100 --duration 60 --pid $$ -o "$out/rec/bench_10hz.db" > "$out/b10.txt" &
    python3 bench/sampler/cputime.py "gpuwhy record 1 Hz" "$bin" record -q --interval 1000 --duration 60 --pid $$ -o "$out/rec/bench_1hz.db" > "$out/b1.txt" &
    python3 bench/sampler/cputime.py "nvidia-smi dmon -s pucvmet 1 Hz" nvidia-smi dmon -s pucvmet -d 1 -c 60 > "$out/bd.txt" &
    wait
    cat "$out/b10.txt" "$out/b1.txt" "$out/bd.txt" > "$out/sampler_bench.txt"
  ) &
fi
case $half in
  1 | 2) names=@$half ;;
  *) names=$(echo "$half" | tr ',' ' ') ;;
esac
bash scenarios/run_suite.sh "$bin" "$out/rec" $names 2>&1 | tee "$out/suite.log"
cat "$out/rec/validate_compare.txt" 2>/dev/null
wait
tar -C "$out/rec" -czf "$out/recordings.tgz" . && rm -rf "$out/rec"
ls -la "$out"
