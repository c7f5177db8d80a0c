# Shared helpers for the shell tests: a scratch folder and assertions.
set -euo pipefail
# Under pipefail, gpuwhy piped into `grep -q` or `head` fails at random: they
# exit at the first match or line, and the next write kills it with SIGPIPE.
# Pipe into `grep PATTERN >/dev/null` (reads to the end) or write a file first.
: "${GW_BIN:?GW_BIN must point at the gpuwhy binary}"
# Text reports are wrapped at COLUMNS when it is set: golden files hold the
# unwrapped text, whatever the developer's shell exports.
unset COLUMNS
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
cd "$SCRATCH"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# assert_ge NAME VALUE MIN
assert_ge() { awk -v v="$2" -v m="$3" 'BEGIN { exit !(v + 0 >= m + 0) }' || fail "$1 = $2, expected >= $3"; }
assert_eq() { [ "$2" = "$3" ] || fail "$1 = '$2', expected '$3'"; }
q() { sqlite3 -batch -noheader "$1" "$2"; }
# The JSON report of fixture REL (under GW_FIXTURES, unpacked at configure time) into OUT.
fixture_report_json() {
  [ -s "$GW_FIXTURES/$1" ] || fail "$1 missing (unpacked at configure time)"
  "$GW_BIN" report --format json "$GW_FIXTURES/$1" >"$2" || fail "report of $1 exited $?"
}
# The host is sampled once a second (whatever --interval is), plus one closing
# sample at the end of the run (run.ended_ns, absent in a run cut by kill -9).
# host_gaps DB [WHERE]: consecutive host rows (of those matching WHERE) more
# than 1.5 s or less than 0.5 s apart, the closing row left out; 0 when the
# host was sampled about once a second all along.
host_gaps() {
  q "$1" "select count(*) from (select t_ns, t_ns - lag(t_ns) over (order by t_ns) as d from host_sample
            where ${2:-1} and t_ns is not (select ended_ns from run))
          where d is not null and (d < 500000000 or d > 1500000000)"
}
# same_findings NAME A.json B.json: two JSON reports give the same verdict and
# the same list of finding classes (prints both when they differ).
same_findings() {
  python3 - "$@" <<'PY'
import json, sys
name, a, b = sys.argv[1:4]
ra, rb = json.load(open(a)), json.load(open(b))
fa = [f["class"] for f in ra.get("findings", [])]
fb = [f["class"] for f in rb.get("findings", [])]
if ra["verdict"] != rb["verdict"] or fa != fb:
    print(f"{name}: {a} {ra['verdict']} {fa}, {b} {rb['verdict']} {fb}")
    sys.exit(1)
PY
}
# has FILE TEXT, lacks FILE TEXT: FILE holds TEXT, or does not.
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 600 "$1")"; }
lacks() { ! grep -qF -- "$2" "$1" || fail "$1 has '$2'"; }
# in_env [-C DIR] NAME=VALUE... ARGS: gpuwhy with only the locale variables
# given (LANGUAGE, LC_ALL, LC_MESSAGES, LANG and NO_COLOR unset unless given),
# in DIR when -C names one (relative paths in ARGS are DIR's; redirections
# stay the caller's).
in_env() {
  local dir=. vars=()
  if [ "${1:-}" = -C ]; then
    dir=$2
    shift 2
  fi
  while [ $# -gt 0 ] && [[ $1 == *=* ]]; do
    vars+=("$1")
    shift
  done
  (cd "$dir" && env -u LANGUAGE -u LC_ALL -u LC_MESSAGES -u LANG -u NO_COLOR "${vars[@]}" "$GW_BIN" "$@")
}
# fails_with NAME STATUS PATTERN CMD...: CMD exits with STATUS and its stderr
# matches PATTERN (grep).
fails_with() {
  local name=$1 want=$2 pattern=$3 rc=0
  shift 3
  "$@" 2>"$SCRATCH/fails_with.err" || rc=$?
  assert_eq "$name" "$rc" "$want"
  grep -q -- "$pattern" "$SCRATCH/fails_with.err" || fail "$name: message: $(cat "$SCRATCH/fails_with.err")"
}
# use_zh_catalog: the zh_CN catalog beside the binary (the build tree's locale
# folder). A build that has the po/ subdirectory must have compiled it; an
# older build tree without it gets one compiled here from po/zh_CN.po and named
# through GPUWHY_LOCALEDIR (skipped, 77, without msgfmt).
use_zh_catalog() {
  : "${GW_SOURCE_DIR:?GW_SOURCE_DIR must point at the source tree}"
  local bindir
  bindir=$(dirname "$GW_BIN")
  unset GPUWHY_LOCALEDIR
  [ ! -f "$bindir/locale/zh_CN/LC_MESSAGES/gpuwhy.mo" ] || return 0
  [ ! -d "$bindir/po" ] || fail "the build has po/ but no $bindir/locale/zh_CN/LC_MESSAGES/gpuwhy.mo"
  command -v msgfmt >/dev/null || {
    echo "msgfmt missing: skipped"
    exit 77
  }
  mkdir -p "$SCRATCH/built/zh_CN/LC_MESSAGES"
  msgfmt --check -o "$SCRATCH/built/zh_CN/LC_MESSAGES/gpuwhy.mo" "$GW_SOURCE_DIR/po/zh_CN.po"
  export GPUWHY_LOCALEDIR="$SCRATCH/built"
  echo "note: no catalog beside $GW_BIN; using one compiled from po/zh_CN.po"
}
# require_command NAME: skipped (77) when gpuwhy has no command NAME yet.
require_command() {
  local help_text
  help_text=$("$GW_BIN" "$1" --help 2>&1 || true)
  if [[ $help_text == *"unknown command"* ]]; then
    echo "SKIP: gpuwhy has no $1 command in its table yet"
    exit 77
  fi
}
# use_troubled_check_host: gpuwhy check's setting for the troubled tree of
# tests/fixtures/check (check_golden.sh's golden files): the stand-in python
# by name from PATH, so no checkout path lands in the output, no nvcc, and two
# scripted fake GPUs (pass --nvml-lib "$GW_FAKE_NVML") with faults to report.
use_troubled_check_host() {
  : "${GW_FAKE_NVML:?}" "${GW_FIXTURES:?}"
  export PATH="$GW_FIXTURES/check/bin:$PATH" GPUWHY_PYTHON=python3-fake
  unset GPUWHY_NVCC GPUWHY_NVML_LIB
  export FAKE_NVML_GPUS=2 FAKE_NVML_REASONS=0x1 FAKE_NVML_PSTATE=8 FAKE_NVML_SM_CLOCK_MHZ=345 \
    FAKE_NVML_POWER_LIMIT_MW=700000,450000 FAKE_NVML_PCIE_GEN=5,3 FAKE_NVML_TEMP_C=41,83 \
    FAKE_NVML_PERSISTENCE=1,0 FAKE_NVML_COMPUTE_MODE=0,3 FAKE_NVML_ECC_UNCORRECTED=0,2 \
    FAKE_NVML_REMAP_PENDING=0,1 FAKE_NVML_VIOL_HW_THERMAL_NS=0,12500000000
}
# use_fake_torch: Python programs import tests/python/fake_torch as torch and
# gpuwhy reads the fake NVML; skipped (77) without python3.
use_fake_torch() {
  : "${GW_FAKE_NVML:?}" "${GW_SOURCE_DIR:?}"
  export GPUWHY_NVML_LIB=$GW_FAKE_NVML
  command -v python3 >/dev/null || {
    echo "SKIP: no python3"
    exit 77
  }
  export PYTHONPATH=$GW_SOURCE_DIR/tests/python/fake_torch
}
# drop_trace DB: the recording as `record --no-trace` gives it: the rows of
# every table the tracer writes deleted (docs/RECORDING.md lists them).
drop_trace() {
  local t
  for t in kernel api memcpy memset sync graph_launch launch_count marker memory trace_window trace_process \
    trace_dropped trace_overhead trace_note trace_name; do
    if [ -n "$(q "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name = '$t'")" ]; then
      q "$1" "DELETE FROM $t"
    fi
  done
}
# null_gpm DB: the recording as a GPU without GPM gives it (A100, L4, T4,
# GeForce): every GPM column of gpu_sample NULL.
null_gpm() {
  q "$1" "UPDATE gpu_sample SET gr_active_pct = NULL, sm_active_pct = NULL, sm_occupancy_pct = NULL,
          tensor_active_pct = NULL, dram_bw_pct = NULL, fp32_active_pct = NULL, fp16_active_pct = NULL"
}
