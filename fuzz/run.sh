#!/usr/bin/env bash
# Runs every libFuzzer target (or the ones named) for a bounded time over its
# seed corpus and fails on any crash, leak, sanitizer report, timeout or
# out-of-memory. Prints the executions of each target.
#
#   fuzz/run.sh [-t SECONDS] [-b BUILD_DIR] [-j JOBS] [-m] [TARGET...]
#     -t SECONDS   time per target (default 60, or $GW_FUZZ_SECONDS)
#     -b BUILD_DIR where the fuzz_* binaries are (default build-fuzz, or $GW_FUZZ_BUILD)
#     -j JOBS      targets fuzzed at once (default 1; one core each)
#     -m           merge inputs that found new coverage into fuzz/corpus/<target>
#     TARGET       e.g. proc_stat or fuzz_proc_stat (default: every fuzz_* built)
#
# Build first:
#   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DGW_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
#   cmake --build build-fuzz -j2 --target fuzz
# A failing input is kept as BUILD_DIR/fuzz-out/<target>/crash-* (or leak-,
# timeout-, oom-); replay it with BUILD_DIR/fuzz_<target> FILE.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=fuzz/lib.sh
. "$src/fuzz/lib.sh"
seconds=${GW_FUZZ_SECONDS:-60}
build=${GW_FUZZ_BUILD:-$src/build-fuzz}
merge=0
jobs=1
while getopts "t:b:j:m" opt; do
  case $opt in
  t) seconds=$OPTARG ;;
  j) jobs=$OPTARG ;;
  b) build=$OPTARG ;;
  m) merge=1 ;;
  *) fuzz_usage ;;
  esac
done
shift $((OPTIND - 1))
case $seconds in '' | *[!0-9]*)
  echo "run.sh: -t wants whole seconds, got '$seconds'" >&2
  exit 2
  ;;
esac
fuzz_need_count "$jobs" "run.sh: -j wants a number of jobs from 1"
fuzz_build_dir "see the build lines at the top of this script"

targets=()
if [ $# -gt 0 ]; then
  for t in "$@"; do targets+=("fuzz_${t#fuzz_}"); done
else
  for f in "$build"/fuzz_*; do [ -x "$f" ] && [ -f "$f" ] && targets+=("$(basename "$f")"); done
fi
[ ${#targets[@]} -gt 0 ] || {
  echo "run.sh: no fuzz_* targets in $build (configure with -DGW_FUZZ=ON and clang)" >&2
  exit 2
}

fuzz_scratch run
out=$build/fuzz-out
mkdir -p "$out"
fuzz_env "$src"

row() { printf '%-22s %12s %9s %7s  %s\n' "$@"; }

# run_one TARGET: fuzz one target; its table row (and details on failure) go
# to $work/result/TARGET, so that parallel jobs print in order at the end.
run_one() {
  local t=$1 bin=$build/$1 name=${1#fuzz_} rc execs rate cov result res=$work/result/$1
  if [ ! -x "$bin" ]; then
    row "$t" - - - "not built" >"$res"
    return 1
  fi
  local seeds=$src/fuzz/corpus/$name log=$out/$name/log.txt
  mkdir -p "$work/corpus/$name" "$work/tmp/$name" "$out/$name"
  local args=(-max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1
    -artifact_prefix="$out/$name/" "$work/corpus/$name")
  [ -d "$seeds" ] && args+=("$seeds")
  # Inputs that once failed, kept so that the bug stays fixed.
  [ -d "$src/fuzz/regress/$name" ] && args+=("$src/fuzz/regress/$name")
  set +e
  # The limit on top of -max_total_time covers a target that hangs at exit.
  TMPDIR=$work/tmp/$name timeout --kill-after=10 $((seconds + 120)) "$bin" "${args[@]}" >"$log" 2>&1
  rc=$?
  set -e
  fuzz_log_stats "$log"
  if [ $rc -eq 0 ]; then
    result=ok
  else
    result="FAILED (exit $rc): $(grep -m1 -oE '(ERROR: [A-Za-z]+: [^ ]+( [^ ]+)?|runtime error: .{0,60}|broken promise: .{0,60})' "$log" || echo "see $log")"
  fi
  {
    row "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$result"
    if [ $rc -ne 0 ]; then
      grep -m3 -E 'SUMMARY|Test unit written to' "$log" | sed 's/^/    /' || true
      echo "    log: $log"
    fi
    if [ $merge -eq 1 ] && [ $rc -eq 0 ]; then
      mkdir -p "$seeds"
      TMPDIR=$work/tmp/$name "$bin" -merge=1 "$seeds" "$work/corpus/$name" >"$out/$name/merge.txt" 2>&1 ||
        echo "    merge into $seeds failed: $out/$name/merge.txt"
    fi
  } >"$res"
  return $rc
}

mkdir -p "$work/result"
row target executions exec/s cov result
failed=()
running=0
printed=0
# print_done: print the rows of the finished targets that come next in order
print_done() {
  while [ $printed -lt ${#targets[@]} ] && [ -f "$work/result/${targets[$printed]}.done" ]; do
    cat "$work/result/${targets[$printed]}"
    grep -qx ok "$work/result/${targets[$printed]}.done" || failed+=("${targets[$printed]}")
    printed=$((printed + 1))
  done
}
for t in "${targets[@]}"; do
  if [ $running -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
    print_done
  fi
  (if run_one "$t"; then echo ok; else echo failed; fi >"$work/result/$t.done.tmp" &&
    mv "$work/result/$t.done.tmp" "$work/result/$t.done") &
  running=$((running + 1))
done
wait
print_done

if [ ${#failed[@]} -gt 0 ]; then
  echo "run.sh: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "run.sh: ${#targets[@]} target(s), ${seconds} s each, no crash, leak or sanitizer report"
