# shellcheck shell=bash
# Shared by fuzz/run.sh, long.sh and cost.sh (sourced, not run): their usage
# and argument checks, the scratch folder and environment of a target run,
# and what libFuzzer's log says at the end.

# fuzz_usage: the script's header comment (after the #! line) on stderr, exit 2.
fuzz_usage() {
  awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" >&2
  exit 2
}

# fuzz_need_count VALUE MESSAGE: exit 2 with "MESSAGE, got 'VALUE'" unless
# VALUE is a whole number from 1.
fuzz_need_count() {
  case $1 in '' | 0 | *[!0-9]*)
    echo "$2, got '$1'" >&2
    exit 2
    ;;
  esac
}

# fuzz_build_and_count_opts LETTER VAR ARGS...: the options cost.sh and
# long.sh share, -b BUILD_DIR into $build and -LETTER N into the variable VAR
# (checked later with fuzz_need_count); anything else is a usage error. The
# caller then drops the options with shift $((OPTIND - 1)).
fuzz_build_and_count_opts() {
  local letter=$1 var=$2 opt
  shift 2
  OPTIND=1
  while getopts "b:$letter:" opt; do
    case $opt in
    b) build=$OPTARG ;;
    "$letter") printf -v "$var" '%s' "$OPTARG" ;;
    *) fuzz_usage ;;
    esac
  done
}

# fuzz_build_dir HINT: $build made absolute, or exit 2 saying where the
# build lines are (HINT).
fuzz_build_dir() {
  local given=$build
  build=$(cd "$given" 2>/dev/null && pwd) || {
    echo "$(basename "$0"): no build folder $given ($1)" >&2
    exit 2
  }
}

# fuzz_scratch NAME: a scratch folder in $work, removed when the script
# exits; on tmpfs when there is one, since the targets write a file per input.
fuzz_scratch() {
  local base=/dev/shm
  [ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
  work=$(mktemp -d "$base/gw-fuzz-$1.XXXXXX")
  trap 'rm -rf "$work"' EXIT
}

# fuzz_env SRC: LeakSanitizer on, and any sanitizer report ends the run with
# an error; the targets find the fixtures below SRC.
fuzz_env() {
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:allocator_may_return_null=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export GW_SOURCE_DIR=$1
}

# fuzz_log_stats LOG: execs and rate from libFuzzer's final stats
# (-print_final_stats=1), cov (edges) from its last status line; empty when
# the log has none.
# shellcheck disable=SC2034 # the caller prints them
fuzz_log_stats() {
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$1" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$1" | tail -1 | cut -d' ' -f2 || true)
}
