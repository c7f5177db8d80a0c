# Shared helpers for the shell tests: a scratch folder and assertions.
set -euo pipefail
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
# in_env NAME=VALUE... ARGS: gpuwhy with only the locale variables given
# (LANGUAGE, LC_ALL, LC_MESSAGES, LANG and NO_COLOR unset unless given).
in_env() {
  local vars=()
  while [ $# -gt 0 ] && [[ $1 == *=* ]]; do
    vars+=("$1")
    shift
  done
  env -u LANGUAGE -u LC_ALL -u LC_MESSAGES -u LANG -u NO_COLOR "${vars[@]}" "$GW_BIN" "$@"
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
