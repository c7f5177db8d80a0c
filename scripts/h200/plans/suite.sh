#!/usr/bin/env bash
# One device call: environment check, optional checks against nvidia-smi, the
# sampler benchmark (over the first minute of the suite) and NVML call costs,
# then scenarios one by one, packing the recordings after each so that a call
# cut short still brings back what was recorded.
# usage: scripts/h200/run.sh suite OUT HALF|NAME,NAME... [validate] [bench] [cost]
set -u
out=$1 half=$2
shift 2
bin=$PWD/build-dev/gpuwhy
mkdir -p "$out/rec"
export PYTHONUNBUFFERED=1
{
  echo "== $(date -u) $(hostname)"
  nvidia-smi -L
  ldd "$bin" | grep -i "not found" && echo "MISSING LIBRARIES"
} > "$out/env.txt" 2>&1
for arg in "$@"; do
  case $arg in
    validate) bash scripts/h200/lib/validate_nvsmi.sh "$bin" "$out/rec" > "$out/validate.log" 2>&1 ;;
    cost) build-dev/bench/nvml_cost 200 > "$out/nvml_cost.txt" 2>&1 ;;
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
  1 | 2 | 3) names=$(bash scenarios/run_suite.sh --list | awk -v h="$half" 'NR > 1 && $NF == h { print $1 }') ;;
  *) names=$(echo "$half" | tr ',' ' ') ;;
esac
for n in $names; do
  bash scenarios/run_suite.sh "$bin" "$out/rec" "$n" 2>&1 | tee -a "$out/suite.log" | grep -E "^(OK|FAIL)"
  tar -C "$out/rec" -czf "$out/recordings.tgz.part" . && mv "$out/recordings.tgz.part" "$out/recordings.tgz"
done
wait
tar -C "$out/rec" -czf "$out/recordings.tgz" .
cat "$out/sampler_bench.txt" "$out/nvml_cost.txt" 2>/dev/null
