#!/usr/bin/env bash
# Rebuilds the seed corpora fuzz/corpus/<target>/ from the real fixtures in
# tests/fixtures (proc and check trees, kernel logs, trace files, scenario
# recordings and their truth files), plus a few hand-made hostile variants.
# Seeds are named by the SHA-1 of their bytes, as libFuzzer names its finds.
# The folder is rebuilt from scratch: inputs worth keeping for good go to
# fuzz/regress/<target>/, which this script leaves alone.
#   fuzz/seed.sh [GPUWHY_BIN]   (the binary makes the baseline seeds; default build/gpuwhy)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
fx=$src/tests/fixtures
out=$src/fuzz/corpus
gw=${1:-${GW_BIN:-$src/build/gpuwhy}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# add TARGET FILE: copy FILE into the corpus of TARGET under its hash.
add() {
  mkdir -p "$out/$1"
  cp "$2" "$out/$1/$(sha1sum <"$2" | cut -c1-40)"
}
# add_text TARGET TEXT
add_text() {
  printf '%s' "$2" >"$tmp/text"
  add "$1" "$tmp/text"
}

rm -rf "$out"
mkdir -p "$out"

# ---- /proc files, from the host fixture trees and the check trees ----
# The files of a fixture tree (run inside it), sorted.
tree_files() {
  local dirs=(proc)
  [ -d sys ] && dirs+=(sys)
  find "${dirs[@]}" -type f | sort
}
trees=$(find "$fx/proc" "$fx/check" -path '*/proc/stat' -type f | sed 's|/proc/stat$||' | sort)
for t in $trees; do
  add proc_stat "$t/proc/stat"
  [ -f "$t/proc/diskstats" ] && add diskstats "$t/proc/diskstats"
  for f in "$t"/proc/pressure/*; do [ -f "$f" ] && add psi "$f"; done
  find "$t/proc" -name stat -path '*/proc/[0-9]*' | while read -r f; do add pid_stat "$f"; done
  # The whole tree as one host_tree input: "== path" entries, then a second
  # sample with the next step of the same tree when there is one.
  {
    (cd "$t" && tree_files) | while read -r f; do
      printf '== %s\n' "$f"
      cat "$t/$f"
      printf '\n'
    done
  } >"$tmp/tree"
  # t0 -> t1 -> t2 in the host fixtures: the next step of the same job.
  next=
  [[ $t == */t[0-9] ]] && next=${t%t[0-9]}t$((${t##*/t} + 1))
  if [ -n "$next" ] && [ -d "$next" ]; then
    printf '== @next\n' >>"$tmp/tree"
    (cd "$next" && tree_files) | while read -r f; do
      printf '== %s\n' "$f"
      cat "$next/$f"
      printf '\n'
    done >>"$tmp/tree"
  fi
  add host_tree "$tmp/tree"
done

# ---- kernel log: whole files, single records, driver messages ----
find "$fx/kmsg" "$fx/check" -path '*/dev/kmsg' -type f | sort >"$tmp/kmsg-files"
while IFS= read -r k; do
  add kmsg_file "$k"
  n=0
  while IFS= read -r line && [ $n -lt 40 ]; do
    n=$((n + 1))
    printf '%s' "$line" >"$tmp/rec"
    add kmsg_record "$tmp/rec"
    case $line in
    *NVRM*) printf '%s' "${line#*;}" >"$tmp/msg" && add xid_line "$tmp/msg" ;;
    esac
  done <"$k"
done <"$tmp/kmsg-files"
# A record with its continuation lines, as one read() of /dev/kmsg returns it.
add_text kmsg_record $'4,1234,966503025,-;NVRM: Xid (PCI:0000:10:1c GPU-I:01 GPU-CI:00): 79, pid=\'<unknown>\', name=<unknown>, GPU has fallen off the bus.\n SUBSYSTEM=pci\n DEVICE=+pci:0000:10:1c.0\n'
add_text xid_line 'NVRM: Xid (PCI:0000:3b:00): 48, pid=2211, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 3, subpartition 0.'
add_text xid_line 'NVRM: GPU at PCI:0000:3b:00: GPU-8f1b3c2e-0000-0000-0000-000000000000'

# ---- NCCL_DEBUG=INFO logs ----
for f in "$fx"/nccl/*.log; do add nccl_log "$f"; done
# the real lines a 2-GPU DDP run wrote (rank 0 of tests/fixtures/scenarios/ddp_balanced.db)
if command -v sqlite3 >/dev/null; then
  lines=$(mktemp)
  sqlite3 "$fx/scenarios/ddp_balanced.db" "SELECT line FROM nccl_log WHERE pid = (SELECT min(pid) FROM nccl_log)" >"$lines"
  add nccl_log "$lines"
  rm -f "$lines"
fi
add_text nccl_log $'[0] w1:227602:227667 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IBext_v8/0/GDRDMA\nh:1:2 [0] NCCL INFO Channel 00/02 :    0   1\n'

# ---- the Python hook's spool (py-PID.steps), lines as the hook writes them ----
# The first byte says where the file is cut for the poll made while it grows.
# spool_seed CUT FILE: CUT (0..255, as three octal digits) then FILE.
spool_seed() {
  { printf "\\$1"; cat "$2"; } >"$tmp/spool"
  add pyhook_spool "$tmp/spool"
}
# hook_lines DB WHERE: steps of a real H200 recording made with the hook, back into its S lines.
hook_lines() {
  sqlite3 "$1" "SELECT printf('S|%d|%d|%d|%d|%d|%d|%d|%s', step, t_start_ns, t_end_ns, coalesce(data_wait_ns, 0),
                coalesce(batch_size, 0), coalesce(samples, 0), coalesce(rank, -1),
                CASE source WHEN 'python_hook' THEN 'optim' ELSE 'loader' END)
                FROM step WHERE $2 ORDER BY step LIMIT 40" | tr '|' '\t'
}
if command -v sqlite3 >/dev/null; then
  hook_lines "$fx/hook/small_batch.db" 1 >"$tmp/lines" && spool_seed 200 "$tmp/lines"
  hook_lines "$fx/hook/ddp_tiny.db" "rank = 1" >"$tmp/lines" && spool_seed 115 "$tmp/lines"
  # events after the steps (as the hook words them) and a torn last line
  hook_lines "$fx/hook/healthy.db" "step <= 10" >"$tmp/lines"
  printf 'E\t1796140853000000000\trecompile\t2\ttorch.compile graphs: 5\n' >>"$tmp/lines"
  printf 'E\t1796140853000000001\tcuda_alloc_retry\t1\tcaching allocator retries: 1\n' >>"$tmp/lines"
  printf 'E\t1796140853000000002\tfixed_batch\t4\treplaying the first 4 DataLoader batches\n' >>"$tmp/lines"
  printf 'S\t11\t1796140853000000000\t1796140853050000000\t20000000\t16\t32\t0\toptim\nS\t12\t17961' >>"$tmp/lines"
  spool_seed 310 "$tmp/lines"
fi
# DataLoader iterations as steps, then optimizer steps in the same process (the collector keeps the latter)
: >"$tmp/lines"
for i in 0 1 2 3 4; do
  printf 'S\t%d\t%d\t%d\t20000000\t16\t16\t-1\tloader\n' $((i + 1)) $((1796140852000000000 + i * 25000000)) \
    $((1796140852000000000 + (i + 1) * 25000000)) >>"$tmp/lines"
done
spool_seed 074 "$tmp/lines"
for i in 0 1 2 3 4; do
  printf 'S\t%d\t%d\t%d\t40000000\t16\t32\t3\toptim\n' $((i + 1)) $((1796140852125000000 + i * 50000000)) \
    $((1796140852125000000 + (i + 1) * 50000000)) >>"$tmp/lines"
done
spool_seed 214 "$tmp/lines"
# lines the collector must skip: out of order, not numbers, unknown kinds, negative wait, empty
printf 'S\t1\t2\t1\t0\t0\t0\t-1\toptim\nS\tx\t1\t2\t0\t0\t0\t-1\toptim\nE\t1\tbogus\t1\tm\nQ\n' >"$tmp/lines"
printf 'S\t1\t1796140852000000000\t1796140852000000001\t-5\t0\t0\t-1\toptim\nS\t1\t1\t2\t0\t0\t0\t-1\tsgd\n\n' >>"$tmp/lines"
spool_seed 144 "$tmp/lines"

# ---- tracer wire files ----
for f in "$fx"/trace/*.gwt; do add trace_reader "$f"; done

# The schema version this build writes; "a newer recording" is one above it.
schema=$(sed -n 's/^#define GW_STORE_SCHEMA_VERSION \([0-9]*\).*/\1/p' "$src/lib/store/store.h")
newer=$((schema + 1))

# ---- recordings: the scenario fixtures cut to their first seconds ----
shrink="CREATE TEMP TABLE w AS SELECT min(t_ns) + 5000000000 AS t1 FROM gpu_sample;
DELETE FROM gpu_sample WHERE t_ns > (SELECT t1 FROM w); DELETE FROM gpu_health WHERE t_ns > (SELECT t1 FROM w);
DELETE FROM gpu_proc WHERE t_ns > (SELECT t1 FROM w); DELETE FROM host_sample WHERE t_ns > (SELECT t1 FROM w);
DELETE FROM cpu_sample WHERE t_ns > (SELECT t1 FROM w) OR core > 1; DELETE FROM proc_sample WHERE t_ns > (SELECT t1 FROM w);
DELETE FROM disk_sample WHERE t_ns > (SELECT t1 FROM w); DELETE FROM env; DROP TABLE w;
PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;"
for name in healthy hardware_xid input_slow_read schedule_eval launch_tiny_ops power_cap worked_case_s2; do
  cp "$fx/scenarios/$name.db" "$tmp/r.db"
  sqlite3 -batch "$tmp/r.db" "$shrink" >/dev/null
  add recording "$tmp/r.db"
  # the same, whole, for the damage mutator of fuzz_recording_file
  add recording_file "$tmp/r.db"
done
# Hostile headers on a valid file: another application, schema version 0
# and one newer than this build's, a file cut after its first pages, WAL
# mode without its -wal file.
cp "$tmp/r.db" "$tmp/base.db"
for pragma in "PRAGMA application_id=0" "PRAGMA application_id=1179011410" "PRAGMA user_version=0" \
  "PRAGMA user_version=$newer" "DROP TABLE run" "PRAGMA journal_mode=WAL"; do
  cp "$tmp/base.db" "$tmp/h.db"
  sqlite3 -batch "$tmp/h.db" "$pragma" >/dev/null
  add recording "$tmp/h.db"
done
head -c 4096 "$tmp/base.db" >"$tmp/cut.db" && add recording "$tmp/cut.db"
add_text recording 'SQLite format 3'

# ---- SQL against a base recording (fuzz_recording_sql) ----
sqlseed() { add_text recording_sql "$(printf -- '-- %s\n%s' "$1" "$2")"; }
sqlseed healthy 'SELECT 1;'
sqlseed healthy 'UPDATE gpu_sample SET sm_active_pct = NULL WHERE rowid % 3 = 0; UPDATE gpu_sample SET power_mw = -5;'
sqlseed healthy "UPDATE gpu_sample SET gpu = 7 WHERE rowid % 2 = 0; INSERT INTO gpu (gpu, name) VALUES (2147483647, 'x');"
sqlseed healthy "UPDATE gpu_sample SET t_ns = 9223372036854775807 WHERE rowid = 3; UPDATE gpu_sample SET t_ns = -9223372036854775808 WHERE rowid = 5;"
sqlseed healthy "UPDATE gpu_sample SET util_gpu_pct = 'abc', mem_used_bytes = 1e308, clock_reasons = -1;"
sqlseed healthy 'DELETE FROM gpu_sample; DELETE FROM host_sample;'
sqlseed healthy 'DROP TABLE gpu_health; DROP TABLE kernel;'
sqlseed healthy 'UPDATE run SET started_ns = NULL, ended_ns = 0, interval_ms = 0;'
sqlseed healthy 'DELETE FROM run;'
sqlseed healthy 'UPDATE step SET t_end_ns = t_start_ns - 1000; INSERT INTO step (t_start_ns, t_end_ns, step, source) VALUES (0, 9223372036854775807, -1, NULL);'
sqlseed healthy 'UPDATE kernel SET start_ns = end_ns + 5, device = 99; UPDATE memcpy SET bytes = -1, copy_kind = 250;'
sqlseed healthy 'UPDATE kernel SET end_ns = 9223372036854775807; UPDATE marker SET start_ns = -1;'
sqlseed hardware_xid "UPDATE event SET code = 2147483648, gpu = -7, message = NULL; INSERT INTO event VALUES (0, 'xid', 0, 79, 0, 'PCI 0000:10:1c: fell off the bus');"
sqlseed schedule_eval 'UPDATE gpu_sample SET sm_active_pct = (rowid % 40) * 2.5, util_gpu_pct = 100;'
sqlseed input_slow_read 'UPDATE proc_sample SET cpu_pct = 1e300, role = 5; UPDATE disk_sample SET util_pct = -1;'
sqlseed launch_tiny_ops 'UPDATE cpu_sample SET core = 100000; UPDATE host_sample SET ncores = -1;'
sqlseed power_cap 'UPDATE gpu_health SET power_limit_mw = 0, viol_power_cap_ns = -1;'
sqlseed healthy "PRAGMA user_version = $newer;"
sqlseed healthy 'ALTER TABLE gpu_sample DROP COLUMN sm_active_pct; ALTER TABLE run RENAME TO r;'

# ---- ground-truth files: the scenarios' own, their step lists cut ----
for f in "$fx"/scenarios/*.truth.json; do
  python3 - "$f" "$tmp/truth.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
if isinstance(d.get("steps"), list):
    d["steps"] = d["steps"][:24]
json.dump(d, open(sys.argv[2], "w"))
EOF
  add truth "$tmp/truth.json"
done
add_text truth '{"samples_per_step": 0}'
add_text truth '{"steps": [{"start_ns": 9223372036854775807, "end_ns": 9223372036854775807}, {"start_ns": -9223372036854775808, "end_ns": 9223372036854775807}]}'
add_text truth '{"steps": {"start_ns": 1}}'

# ---- baselines, saved by gpuwhy from the fixtures ----
if [ -x "$gw" ]; then
  for name in healthy schedule_eval worked_case_s2; do
    GPUWHY_HOME=$tmp/home "$gw" baseline save "$name" "$fx/scenarios/$name.db" >/dev/null
    python3 - "$tmp/home/baselines/$name.json" "$tmp/b.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["step_times_s"] = d["step_times_s"][:24]
json.dump(d, open(sys.argv[2], "w"))
EOF
    add baseline "$tmp/b.json"
  done
else
  echo "seed.sh: $gw not found, no baseline seeds" >&2
fi
add_text baseline '{"schema": "gpuwhy.baseline", "schema_version": 1, "saved_ns": 1e300, "step_times_s": [1, 0.5, 2]}'
add_text baseline '{"schema": "gpuwhy.baseline", "schema_version": 2}'

# ---- importers: Kineto JSON (plain and gzip), nvidia-smi logs, nsys exports ----
if [ -d "$fx/import" ]; then
  for f in "$fx"/import/*.json "$fx"/import/ranks/*.json; do [ -f "$f" ] && add import_kineto "$f"; done
  for f in "$fx"/import/*.json.gz "$fx"/import/ranks/*.json.gz; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le 4096 ] && add import_kineto "$f" # small ones also as gzip
    { gzip -dc "$f" || true; } | head -c 65536 >"$tmp/k.json"
    add import_kineto "$tmp/k.json"
  done
  add_text import_kineto '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1e300, "dur": -5, "pid": 0, "tid": 7, "args": {"device": 2147483648}}]}'
  for f in "$fx"/import/*.csv "$fx"/import/*.txt; do [ -f "$f" ] && add import_smi "$f"; done
  nsys=$fx/import/nsys_small.sql
  if [ -f "$nsys" ]; then
    rm -f "$tmp/n.sqlite" && sqlite3 -batch "$tmp/n.sqlite" <"$nsys" && add import_nsys "$tmp/n.sqlite"
    add import_nsys_sql "$nsys"
    for change in "DROP TABLE StringIds;" "DROP TABLE TARGET_INFO_GPU;" "DELETE FROM META_DATA_EXPORT;" \
      "UPDATE META_DATA_EXPORT SET value = '99.0' WHERE name = 'EXPORT_SCHEMA_VERSION';" \
      "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = end + 1000, deviceId = -1;" \
      "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 12345, start = 9223372036854775807;" \
      "UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = -1;" \
      "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY DROP COLUMN bytes;" \
      "UPDATE NVTX_EVENTS SET text = NULL, textId = 999, end = NULL;"; do
      { cat "$nsys"; printf '%s\n' "$change"; } >"$tmp/n.sql"
      add import_nsys_sql "$tmp/n.sql"
    done
  fi
fi

# ---- the importers' file sink (fuzz_import_file): a byte picking the importer, then the input ----
# import_file_seeds IMPORTER_BYTE (octal) COUNT CORPUS: the first COUNT seeds of CORPUS
import_file_seeds() {
  local f n=0
  for f in "$out/$3"/*; do
    [ -f "$f" ] && [ $n -lt "$2" ] || continue
    { printf '%b' "\\$1"; cat "$f"; } >"$tmp/if"
    add import_file "$tmp/if"
    n=$((n + 1))
  done
}
import_file_seeds 000 3 import_kineto
import_file_seeds 001 2 import_nsys
import_file_seeds 002 3 import_smi

# ---- the exporter's HTTP side ----
add_text http $'GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n'
add_text http $'GET / HTTP/1.0\r\n\r\n'
add_text http $'HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
add_text http $'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello'
add_text http $'GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n'
add_text http $'GET /../../etc/passwd?x=%00%ff HTTP/1.1\r\nHost: x\r\nCookie: a=b\r\n\r\n'

for d in "$out"/*/; do echo "$(basename "$d"): $(find "$d" -type f | wc -l) seeds, $(du -sk "$d" | cut -f1) KiB"; done
