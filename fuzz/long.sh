#!/usr/bin/env bash
# Long fuzzing of the targets that read files (recordings, imports, traces,
# ground truth, baselines, logs): each for MINUTES, N at a time (one core
# each), over its seeds and its past failures. Prints per target the
# executions, executions a second, coverage (libFuzzer's cov: edges and ft:
# features at the end) and findings (crash, leak, timeout, out-of-memory).
#
#   fuzz/long.sh [-b BUILD_DIR] [-j N] MINUTES [TARGET...]
#     -b BUILD_DIR where the fuzz_* binaries are (default build-fuzz, or $GW_FUZZ_BUILD)
#     -j N         targets at once (default: half the cores, at least 1)
#     TARGET       e.g. recording_file (default: every file-format target below)
#
# What each target found stays in BUILD_DIR/fuzz-long/<target>/ (the log, the
# failing input, the corpus it grew). Exit 1 when any target found something.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=fuzz/lib.sh
. "$src/fuzz/lib.sh"
build=${GW_FUZZ_BUILD:-$src/build-fuzz}
jobs=$(($(nproc) / 2))
[ "$jobs" -ge 1 ] || jobs=1
fuzz_build_and_count_opts j jobs "$@"
shift $((OPTIND - 1))
minutes=${1:-}
case $minutes in '' | 0 | *[!0-9]*) fuzz_usage ;; esac
shift
fuzz_need_count "$jobs" "long.sh: -j wants a number of jobs from 1"
fuzz_build_dir "see fuzz/run.sh for the build lines"

# The parsers of files: recordings (bytes, damage, SQL), the importers and
# their file sink, the tracer's wire format, truth files, baselines, the
# Python hook's spool, NCCL and kernel logs.
file_targets=(recording recording_file recording_sql import_kineto import_nsys import_nsys_sql import_smi import_file
  trace_reader truth baseline pyhook_spool nccl_log kmsg_file)
targets=()
if [ $# -gt 0 ]; then
  for t in "$@"; do targets+=("${t#fuzz_}"); done
else
  targets=("${file_targets[@]}")
fi

out=$build/fuzz-long
mkdir -p "$out"
fuzz_env "$src"

row() { printf '%-18s %12s %8s %7s %8s  %s\n' "$@"; }

# long_one NAME: fuzz one target; its row goes to $out/NAME/row.
long_one() {
  local name=$1 bin=$build/fuzz_$1 dir=$out/$1
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/tmp"
  if [ ! -x "$bin" ]; then
    row "$name" - - - - "not built" >"$dir/row"
    return
  fi
  local args=(-max_total_time=$((minutes * 60)) -timeout=25 -rss_limit_mb=2048 -print_final_stats=1
    -artifact_prefix="$dir/" "$dir/corpus")
  for d in "$src/fuzz/corpus/$name" "$src/fuzz/regress/$name"; do [ -d "$d" ] && args+=("$d"); done
  local rc=0
  TMPDIR=$dir/tmp "$bin" "${args[@]}" >"$dir/log.txt" 2>&1 || rc=$?
  local execs rate cov ft findings
  fuzz_log_stats "$dir/log.txt"
  # features, from the last status line: "#N <what> cov: C ft: F ..."
  ft=$(grep -oE 'ft: [0-9]+' "$dir/log.txt" | tail -1 | cut -d' ' -f2 || true)
  findings=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \
    -o -name 'slow-unit-*' \) | wc -l)
  local result="no finding"
  if [ "$findings" -gt 0 ] || [ "$rc" -ne 0 ]; then
    result="FINDING: $(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
      -o -name 'oom-*' \) -printf '%f ' | head -c 200)(exit $rc, log $dir/log.txt)"
    findings=$((findings > 0 ? findings : 1))
  fi
  row "$name" "${execs:--}" "${rate:--}" "${cov:--}" "${ft:--}" "$result" >"$dir/row"
  echo "$findings" >"$dir/findings"
}

echo "long.sh: ${#targets[@]} target(s), $minutes min each, $jobs at a time ($(date -u +%FT%TZ))"
row target executions exec/s cov ft result
running=0
for t in "${targets[@]}"; do
  if [ $running -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  long_one "$t" &
  running=$((running + 1))
done
wait
total=0
for t in "${targets[@]}"; do
  cat "$out/$t/row"
  total=$((total + $(cat "$out/$t/findings" 2>/dev/null || echo 0)))
done
echo "long.sh: done $(date -u +%FT%TZ); findings: $total (kept in $out/<target>/)"
[ "$total" -eq 0 ]
