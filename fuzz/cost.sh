#!/usr/bin/env bash
# The cost of one execution of each fuzz target, measured in CPU time rather
# than wall time (a shared machine makes wall exec/s move with its load):
# RUNS executions from a fixed seed (-seed=1) over a copy of the target's
# seeds and past failures, under /usr/bin/time. Prints per target the runs,
# user+sys seconds, executions per CPU second and per wall second.
#
#   fuzz/cost.sh [-b BUILD_DIR] [-n RUNS] TARGET...
#     -b BUILD_DIR where the fuzz_* binaries are (default build-fuzz, or $GW_FUZZ_BUILD)
#     -n RUNS      executions per target (default 1500; startup is included)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=fuzz/lib.sh
. "$src/fuzz/lib.sh"
build=${GW_FUZZ_BUILD:-$src/build-fuzz}
runs=1500
fuzz_build_and_count_opts n runs "$@"
shift $((OPTIND - 1))
[ $# -gt 0 ] || fuzz_usage
fuzz_need_count "$runs" "cost.sh: -n wants a number of runs from 1"
fuzz_scratch cost
fuzz_env "$src"

printf '%-18s %7s %9s %11s %11s\n' target runs cpu_s exec/cpu_s exec/wall_s
for t in "$@"; do
  name=${t#fuzz_}
  rm -rf "$work/corpus" "$work/tmp"
  mkdir -p "$work/corpus" "$work/tmp"
  for d in "$src/fuzz/corpus/$name" "$src/fuzz/regress/$name"; do
    [ -d "$d" ] && cp "$d"/* "$work/corpus/" 2>/dev/null || true
  done
  TMPDIR=$work/tmp /usr/bin/time -f '%U %S %e' -o "$work/time" "$build/fuzz_$name" -seed=1 -runs="$runs" \
    -timeout=25 "$work/corpus" >"$work/log" 2>&1 || {
    echo "cost.sh: fuzz_$name failed, log:" >&2
    tail -20 "$work/log" >&2
    exit 1
  }
  read -r user sys wall <"$work/time"
  awk -v t="$name" -v n="$runs" -v u="$user" -v s="$sys" -v w="$wall" \
    'BEGIN { c = u + s; printf "%-18s %7d %9.2f %11.0f %11.0f\n", t, n, c, n / c, n / w }'
done
