#!/usr/bin/env bash
# Every sentence checked against the numbers beside it (issue 35, item 5):
# each recording fixture, the Kineto imports and one recording whose memory
# peaks far above its median rendered in text and JSON, then
# sentence_check.py fails on a contradiction ("never became active" beside
# kernels, "0.0 s active" with active time, "0.00 s traced"
# beside kernels, "has no GPM" about a Hopper GPU,
# "room for a larger batch" past compare's memory peak, `record --trace`
# advice on a traced recording, "-- CMD" where the command is recorded).
. "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR must point at the source tree}"
command -v sqlite3 >/dev/null || {
  echo "sqlite3 missing: skipped"
  exit 77
}
mkdir recs
# copies, named after their folder (the same name recurs across folders), with
# the truth files compare reads beside them; reports never touch the fixtures
n=0
for db in "$GW_FIXTURES"/*/*.db; do
  [ -s "$db" ] || continue
  folder=$(basename "$(dirname "$db")")
  name=${folder}__$(basename "$db" .db)
  cp "$db" "recs/$name.db"
  [ -f "${db%.db}.truth.json" ] && cp "${db%.db}.truth.json" "recs/$name.truth.json"
  n=$((n + 1))
done
assert_ge "recording fixtures" "$n" 80

# Kineto imports: kernels and no samples, GPU names from the trace (an H100 among them)
for k in kineto_small.json kineto_flops.json kineto_old_absolute.json.gz; do
  "$GW_BIN" import "$GW_FIXTURES/import/$k" -o "recs/import__${k%%.*}.db" >/dev/null 2>&1 || fail "import $k failed"
done

# A run whose memory peaks at 92% for one second of its steady steps while its median stays at 2%:
# a larger batch does not fit, whatever the median says.
cp "$GW_FIXTURES/hook_suite/small_batch.db" recs/synthetic__memory_peak.db
cp "$GW_FIXTURES/hook_suite/small_batch.truth.json" recs/synthetic__memory_peak.truth.json 2>/dev/null || true
q recs/synthetic__memory_peak.db "UPDATE gpu_sample SET mem_used_bytes = 0.92 * (SELECT mem_total_bytes FROM gpu
  WHERE gpu.gpu = gpu_sample.gpu) WHERE t_ns BETWEEN (SELECT started_ns FROM run) + 9000000000
  AND (SELECT started_ns FROM run) + 10000000000"
assert_ge "samples at the peak" "$(q recs/synthetic__memory_peak.db \
  'SELECT count(*) FROM gpu_sample WHERE mem_used_bytes > 1e11')" 5

for db in recs/*.db; do
  base=${db%.db}
  in_env LANG=C NO_COLOR=1 report "$db" >"$base.txt" 2>&1 || fail "report $db failed: $(tail -3 "$base.txt")"
  in_env LANG=C report --format json "$db" >"$base.json" 2>"$base.err" || fail "report --format json $db failed"
done
# the memory peak as compare shows it, one run per recording in the order of their names
mapfile -t sorted < <(printf '%s\n' recs/*.db | LC_ALL=C sort)
in_env LANG=C compare --format json "${sorted[@]}" >compare.json 2>compare.err ||
  fail "compare failed: $(tail -3 compare.err)"

python3 "$GW_SOURCE_DIR/tests/cli/sentence_check.py" compare.json recs || fail "sentences contradict their numbers"

# the checker is no rubber stamp: each kind of contradiction, planted in a copy, is caught
# plant NAME LINE KIND: NAME's report with LINE added must fail as KIND
plant() {
  rm -rf planted && mkdir planted
  cp "recs/$1.db" "recs/$1.json" "recs/$1.txt" planted/
  printf '%s\n' "$2" >>"planted/$1.txt"
  python3 - "$1" <<'PY'
import json, sys
runs = [r for r in json.load(open("compare.json"))["runs"] if r["path"].endswith("/" + sys.argv[1] + ".db")]
json.dump({"runs": runs}, open("planted_compare.json", "w"))
PY
  if python3 "$GW_SOURCE_DIR/tests/cli/sentence_check.py" planted_compare.json planted >planted.out; then
    fail "the checker let through: $2"
  fi
  grep -q ": $3:" planted.out || fail "'$2' not caught as $3: $(cat planted.out)"
}
plant hook_suite__small_batch "  - GPU 0 never became active during the recording." never-active
plant hook_suite__small_batch "  lost GPU time: 30.0% of 0.0 s active (all GPUs)" active-time
plant hook_suite__small_batch "  GPU 0: 3 kernels in 0.00 s traced: 5019 launches/s" traced-time
plant hook_suite__small_batch "    this GPU has no GPM: PM sampling measures" no-gpm
plant hook_suite__small_batch "  \$ gpuwhy record --trace -o traced.db -- CMD" trace-advice
plant hook_suite__small_batch "  \$ gpuwhy experiment fixed-batch -- CMD" cmd
plant hook_suite__small_batch "  \$ gpuwhy experiment fixed-batch -- python3 other.py" cmd
plant synthetic__memory_peak "  - GPU 0: 2% of device memory used: room for a larger batch (keep 20-30% headroom)." memory-room
plant synthetic__memory_peak "  - GPU 0: 2% of device memory used: healthy headroom." memory-used
