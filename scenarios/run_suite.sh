#!/usr/bin/env bash
# Run the gpuwhy scenario suite: each scenario is recorded by `gpuwhy record`
# and writes its ground truth next to the recording.
#
#   scenarios/run_suite.sh GPUWHY_BIN OUTDIR [NAME...]    run all, or the named scenarios
#   scenarios/run_suite.sh --list                         names, expected class, planned seconds
#
# NAME may also be @1, @2, @3 or @4: the first or second half of the original
# suite, the third part (scenarios aimed at the diagnosis' weak spots) or the
# fourth (weak_spots.py's modes, where run-wide averages mislead); each fits in one 10-minute device command.  GPUWHY_BIN "-" runs the scenarios
# without recording (to test the scripts alone).
# Environment: SCN_DURATION=S overrides every duration (quick smoke runs),
# SCN_DATA_DIR (default /tmp/gpuwhy_scn) for data files and checkpoints,
# SCN_PYTHON (default python3), SCN_TIMEOUT_EXTRA (default 150 s of slack per scenario),
# SCN_RECORD_OPTS: more `gpuwhy record` options for every scenario (e.g. "--trace=full" or "--no-gpm --trace").
set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${SCN_PYTHON:-python3}"
DATA_DIR="${SCN_DATA_DIR:-/tmp/gpuwhy_scn}"
SLACK="${SCN_TIMEOUT_EXTRA:-150}"

# name | expected classes | seconds | half | script and options
SCENARIOS=(
  "input_cpu_transforms|input_pipeline|30|1|input_cpu_transforms.py"
  "input_slow_read|input_pipeline|30|1|input_slow_read.py --data-dir @DATA@"
  "input_pageable_copies|input_pipeline|30|1|input_pageable_copies.py"
  "small_batch|small_batch|30|1|small_batch.py --batch-size 4"
  "sweep_bs32|small_batch|12|1|small_batch.py --sweep --batch-size 32"
  "sweep_bs64|small_batch|12|1|small_batch.py --sweep --batch-size 64"
  "sweep_bs128|small_batch|12|1|small_batch.py --sweep --batch-size 128"
  "sweep_bs256|small_batch|12|1|small_batch.py --sweep --batch-size 256"
  "sweep_bs512|none|12|1|small_batch.py --sweep --batch-size 512"
  "sweep_bs1024|none|12|1|small_batch.py --sweep --batch-size 1024"
  "sweep_bs2048|none|12|1|small_batch.py --sweep --batch-size 2048"
  "launch_tiny_ops|launch_overhead|30|1|launch_overhead.py"
  "launch_tiny_ops_syncs|launch_overhead|30|1|launch_overhead.py --sync-every-op --log-file @DATA@/launch_syncs.log"
  "schedule_eval|schedule_shape|30|2|schedule_eval.py"
  "schedule_checkpoint|schedule_shape|30|2|schedule_checkpoint.py --data-dir @DATA@"
  "schedule_logging|schedule_shape|30|2|schedule_logging.py --data-dir @DATA@"
  "dynamic_shapes|schedule_shape|30|2|dynamic_shapes.py"
  "power_cap|none|30|2|power_cap.py"
  "hardware_xid|hardware_env|30|2|power_cap.py"
  "healthy|none|30|2|healthy.py"
  "worked_case_s0|input_pipeline,launch_overhead,schedule_shape|20|2|worked_case.py --stage 0"
  "worked_case_s1|launch_overhead|20|2|worked_case.py --stage 1"
  "worked_case_s2|launch_overhead|20|2|worked_case.py --stage 2"
  "worked_case_s3|none|20|2|worked_case.py --stage 3"
  "remote_store|input_pipeline|20|3|remote_store.py"
  "offload_accum|schedule_shape|20|3|offload_accum.py"
  "logging_thread|none|20|3|logging_thread.py --data-dir @DATA@"
  "compile_dynamic|schedule_shape|30|3|compile_dynamic.py"
  "healthy_midpower|none|20|3|healthy_midpower.py"
  "attention_lowocc|none|20|3|attention_lowocc.py"
  "bursty_serving|none|20|3|bursty_serving.py"
  "ws_loader_latency_procs|input_pipeline|20|4|weak_spots.py --mode loader_latency_procs"
  "ws_loader_latency_threads|input_pipeline|20|4|weak_spots.py --mode loader_latency_threads"
  "ws_respawn_epoch|input_pipeline|20|4|weak_spots.py --mode respawn_epoch"
  "ws_eval_respawn|schedule_shape|20|4|weak_spots.py --mode eval_respawn"
  "ws_eval_own_loader|schedule_shape|20|4|weak_spots.py --mode eval_own_loader"
  "ws_checkpoint_short|schedule_shape|20|4|weak_spots.py --mode checkpoint_short"
  "ws_inline_numpy|input_pipeline|20|4|weak_spots.py --mode inline_numpy"
  "ws_shapes_vary|schedule_shape|20|4|weak_spots.py --mode shapes_vary"
)

field() { # field LINE N
  local IFS='|'
  # shellcheck disable=SC2206
  local a=($1)
  printf '%s' "${a[$2]}"
}

list() {
  local total=0 line
  printf '%-24s %-48s %5s %4s\n' NAME EXPECTED SECS HALF
  for line in "${SCENARIOS[@]}"; do
    local d
    d="$(field "$line" 2)"
    [ -n "${SCN_DURATION:-}" ] && d="$SCN_DURATION"
    printf '%-24s %-48s %5s %4s\n' "$(field "$line" 0)" "$(field "$line" 1)" "$d" "$(field "$line" 3)"
    total=$(( total + ${d%.*} ))
  done
  printf 'total planned steady-state seconds: %d (plus start-up, warm-up and compile: ~6-10 s per scenario)\n' "$total"
}

if [ "${1:-}" = "--list" ] || [ "${1:-}" = "-l" ]; then
  list
  exit 0
fi
if [ $# -lt 2 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi

GPUWHY="$1"
OUT="$2"
shift 2
mkdir -p "$OUT" "$DATA_DIR" || exit 3
OUT="$(cd "$OUT" && pwd)"
LOG="$OUT/suite.log"

# which scenarios
SELECTED=()
if [ $# -eq 0 ]; then
  for line in "${SCENARIOS[@]}"; do SELECTED+=("$line"); done
else
  for want in "$@"; do
    found=0
    for line in "${SCENARIOS[@]}"; do
      name="$(field "$line" 0)"
      half="$(field "$line" 3)"
      if [ "$want" = "$name" ] || [ "$want" = "@$half" ]; then
        SELECTED+=("$line")
        found=1
      fi
    done
    if [ $found -eq 0 ]; then
      echo "unknown scenario: $want (see --list)" >&2
      exit 2
    fi
  done
fi

say() { printf '%s\n' "$*" | tee -a "$LOG"; }

# kmsg fixture for hardware_xid: Xid 63 (row remap pending), Xid 13 and
# Xid 94 (contained ECC error), stamped 10, 15 and 20 s after "now".
write_kmsg_fixture() {
  local f="$1" bus kbus dom b devfn dev usec
  bus="$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' \r' | tr 'A-F' 'a-f')"
  kbus="0000:00:00"
  if [ -n "$bus" ]; then
    IFS=: read -r dom b devfn <<< "$bus"
    dev="${devfn%%.*}"
    if [ -n "$dom" ] && [ -n "$b" ] && [ -n "$dev" ]; then
      kbus="${dom: -4}:$b:$dev"
    fi
  fi
  usec="$(awk '{printf "%.0f", $1 * 1000000}' /proc/uptime)"
  {
    printf '4,90001,%s,-;NVRM: Xid (PCI:%s): 63, pid='"'"'<unknown>'"'"', name=<unknown>, Row Remapper: New row (0x00000000003a1c40) marked for remapping, reset gpu to activate.\n' \
      "$(( usec + 10000000 ))" "$kbus"
    printf '3,90002,%s,-;NVRM: Xid (PCI:%s): 13, pid='"'"'<unknown>'"'"', name=python3, Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address\n' \
      "$(( usec + 15000000 ))" "$kbus"
    printf '3,90003,%s,-;NVRM: Xid (PCI:%s): 94, pid='"'"'<unknown>'"'"', name=python3, Contained: SM (0x1). RST: No, D-RST: No\n' \
      "$(( usec + 20000000 ))" "$kbus"
  } > "$f"
  say "  kmsg fixture $f (PCI $kbus, boot-time usec $usec + 10/15/20 s)"
}

say "=== gpuwhy scenario suite: $(date -u +%Y-%m-%dT%H:%M:%SZ) host $(hostname) -> $OUT"
say "    gpuwhy: $GPUWHY   python: $("$PY" -c 'import sys; print(sys.version.split()[0])' 2>&1)   scenarios: ${#SELECTED[@]}"
suite_t0=$(date +%s.%N)
n_ok=0
n_fail=0
SUMMARY=()

for line in "${SELECTED[@]}"; do
  name="$(field "$line" 0)"
  expected="$(field "$line" 1)"
  dur="$(field "$line" 2)"
  [ -n "${SCN_DURATION:-}" ] && dur="$SCN_DURATION"
  cmd="$(field "$line" 4)"
  cmd="${cmd//@DATA@/$DATA_DIR}"
  script="${cmd%% *}"
  rest=""
  [ "$script" != "$cmd" ] && rest="${cmd#* }"
  truth="$OUT/$name.truth.json"
  db="$OUT/$name.db"
  rm -f "$truth" "$db" "$db-wal" "$db-shm"
  # shellcheck disable=SC2206
  pyargs=(-u "$HERE/$script" --out "$truth" --duration "$dur" --scenario-name "$name" --expected-class "$expected")
  if [ -n "$rest" ]; then
    # shellcheck disable=SC2206
    pyargs+=($rest)
  fi
  rec=()
  if [ "$name" = "hardware_xid" ]; then
    # gpuwhy record --kmsg wants a path ending in /dev/kmsg
    mkdir -p "$OUT/hardware_xid.kmsg/dev"
    write_kmsg_fixture "$OUT/hardware_xid.kmsg/dev/kmsg"
    pyargs+=(--description-extra "The recorder was given a kernel-log fixture (hardware_xid.kmsg/dev/kmsg) with NVRM Xid 63 (row remapping pending), Xid 13 (graphics engine exception) and Xid 94 (contained ECC error) for this GPU, stamped 10-20 s into the run: the driver reported hardware errors, so hardware_env is expected although the workload itself is the healthy power_cap loop.")
    rec=(--kmsg "$OUT/hardware_xid.kmsg/dev/kmsg")
  fi
  limit=$(( ${dur%.*} + SLACK ))
  say "--- $name (expect $expected, ${dur}s): $script $rest"
  t0=$(date +%s.%N)
  if [ "$GPUWHY" = "-" ]; then
    timeout -k 20 "$limit" "$PY" "${pyargs[@]}" 2>&1 | tee -a "$LOG"
    rc=${PIPESTATUS[0]}
  else
    # shellcheck disable=SC2086
    timeout -k 20 "$limit" "$GPUWHY" record -o "$db" --interval 100 ${SCN_RECORD_OPTS:-} "${rec[@]}" -- "$PY" "${pyargs[@]}" 2>&1 | tee -a "$LOG"
    rc=${PIPESTATUS[0]}
  fi
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}')
  info="$("$PY" - "$truth" <<'EOF' 2>/dev/null
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("truth=MISSING")
    sys.exit(0)
sps = d.get("samples_per_s")
med = d.get("median_step_ms")
print("status=%s steps=%d samples/s=%s median_ms=%s" % (
    d.get("status"), len(d.get("steps", [])),
    "%.1f" % sps if sps else "-", "%.2f" % med if med else "-"))
EOF
)"
  [ -z "$info" ] && info="truth=?"
  if [ "$rc" -eq 0 ] && [ -s "$truth" ]; then
    n_ok=$((n_ok + 1)); verdict=OK
  else
    n_fail=$((n_fail + 1)); verdict=FAIL
  fi
  s=$(printf '%-4s %-24s rc=%-3s wall=%6ss expect=%-40s %s' "$verdict" "$name" "$rc" "$wall" "$expected" "$info")
  SUMMARY+=("$s")
  say "$s"
done
rm -f "${DATA_DIR:?}"/samples_*.bin 2>/dev/null
suite_t1=$(date +%s.%N)
total=$(awk -v a="$suite_t0" -v b="$suite_t1" 'BEGIN{printf "%.1f", b - a}')
say "=== summary ($n_ok ok, $n_fail failed, ${total}s wall)"
for s in "${SUMMARY[@]}"; do say "$s"; done
[ "$n_fail" -eq 0 ]
