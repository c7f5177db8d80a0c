#!/usr/bin/env bash
# gpuwhy import of torch.profiler (Kineto) traces end to end: the command
# line, the recording it writes, report on it, a directory of ranks, kernel
# counts against the trace's own (jq), bad input and the progress bar.
. "$(dirname "$0")/lib.bash"
F=$GW_FIXTURES/import

# usage
"$GW_BIN" import --help | grep "gpuwhy import \[OPTION\]\.\.\. TRACE -o FILE" >/dev/null || fail "no usage text"
set +e
"$GW_BIN" import 2>/dev/null; r1=$?
"$GW_BIN" import "$F/kineto_small.json" 2>/dev/null; r2=$?
"$GW_BIN" import a b -o x.db 2>/dev/null; r3=$?
"$GW_BIN" import "$F/kineto_small.json" -o x.db --interval -1 2>/dev/null; r4=$?
set -e
assert_eq "exit without a trace" "$r1" 2
assert_eq "exit without -o" "$r2" 2
assert_eq "exit with two traces" "$r3" 2
assert_eq "exit with a bad --interval" "$r4" 2

# one trace
"$GW_BIN" import "$F/kineto_small.json" -o small.db >out.txt 2>err.txt || fail "import failed: $(cat err.txt)"
grep -q "4 kernels, 2 copies, 1 memsets, 1 syncs, 4 API calls, 5 markers, 2 steps on 1 GPU" out.txt ||
  fail "summary: $(cat out.txt)"
assert_eq "kernel rows" "$(q small.db 'select count(*) from kernel')" 4
assert_eq "source" "$(q small.db 'select source from run')" "import:kineto"
assert_eq "GEMM start (base + 1030.001 us)" "$(q small.db 'select start_ns from kernel where correlation = 101')" \
  1790857026001030001
assert_eq "steps" "$(q small.db "select group_concat(step) from step where source = 'kineto'")" "1,2"
# report reads it like any recording, from the kernel timeline
"$GW_BIN" report small.db >report.txt 2>&1 || fail "report on the import failed: $(cat report.txt)"
grep -q "kernel timeline" report.txt || fail "report does not use the timeline: $(head -5 report.txt)"
# no "flops" in its args (recorded without with_flops=True): no step_flops row, MFU not measured
assert_eq "no FLOPs rows without flops" "$(q small.db 'select count(*) from step_flops')" 0
"$GW_BIN" report --format json small.db >small.json || fail "report --format json failed"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["mfu"] is None and d["mfu_note"].startswith("not measured"), d["mfu"]' \
  small.json || fail "MFU said measured without FLOPs"

# with_flops=True: ProfilerStep#2 and #3 (1 ms each) hold addmm 3e11, conv2d 5e10 (its nested convolution
# carries the same 5e10 and is not added again) and mm 1e11 on the autograd thread; a mm before step 2 is
# in no step. One row, the median step, source kineto: 4.5e11 FLOPs in 1 ms on an H100 SXM (989.4 dense BF16)
"$GW_BIN" import -q "$F/kineto_flops.json" -o flops.db || fail "import of kineto_flops.json failed"
assert_eq "step_flops row" "$(q flops.db "select step || ' ' || pid || ' ' || flops || ' ' || source from step_flops")" \
  "2 4242 450000000000 kineto"
"$GW_BIN" report --format json flops.db >flops.json || fail "report --format json on the FLOPs import failed"
python3 - flops.json <<'PY' || fail "report JSON MFU of the FLOPs import wrong"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["mfu"][0]
assert m["measured"] and m["flops_per_step"] == 4.5e11 and abs(m["step_s"] - 1e-3) < 1e-9, m
assert abs(m["achieved_tflops"] - 450) < 1e-6 and abs(m["mfu"] - 450 / 989.4) < 1e-6, m
assert m["counting_cost_share"] is None and d["mfu_note"] is None, m
PY

# gzip, and a directory of ranks with a stray file in it
"$GW_BIN" import -q "$F/kineto_old_absolute.json.gz" -o old.db || fail "gzip import failed"
assert_eq "absolute ts" "$(q old.db 'select start_ns from kernel')" 1740461679470850125
"$GW_BIN" import "$F/ranks" -o ranks.db >out.txt || fail "directory import failed"
grep -q "2 files, 2 ranks" out.txt || fail "directory summary: $(cat out.txt)"
assert_eq "GPUs of two ranks" "$(q ranks.db 'select count(*) from gpu')" 2
assert_eq "pids" "$(q ranks.db 'select group_concat(distinct pid) from (select pid from kernel order by pid)')" \
  "4242,4243"

# every real trace: kernel rows equal the trace's own kernel count
if command -v jq >/dev/null; then
  for t in "$F"/h200_*.json.gz "$F"/real/*.json "$F"/real/*.json.gz; do
    [ -f "$t" ] || continue
    want=$(gzip -dcf "$t" | jq '[.traceEvents[] | select((.cat // "") | ascii_downcase == "kernel")] | length')
    "$GW_BIN" import -q "$t" -o real.db || fail "import of $t failed"
    assert_eq "kernel rows of $(basename "$t")" "$(q real.db 'select count(*) from kernel')" "$want"
    assert_eq "kernel count in meta of $(basename "$t")" \
      "$(q real.db "select value from meta where key = 'kineto_kernel_events'")" "$want"
  done
else
  echo "note: jq not installed, the kernel counts of real traces were not cross-checked"
fi

# bad input: exit 3, the file and the byte offset named, an existing output kept (even with --force)
echo precious >keep.db
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1' >cut.json
fails_with "exit on a truncated trace" 3 "cut.json: ends at byte 53" "$GW_BIN" import --force cut.json -o keep.db
assert_eq "output kept" "$(cat keep.db)" precious
printf 'PK\003\004 not a trace' >zip.json
fails_with "exit on an unknown format" 3 "not a format gpuwhy imports" "$GW_BIN" import zip.json -o x.db
set +e
"$GW_BIN" import /nonexistent/trace.json -o x.db 2>err2.txt
r2=$?
set -e
assert_eq "exit on a missing file" "$r2" 3

# the progress bar: on a terminal only, for large inputs
awk 'BEGIN { printf "{\"baseTimeNanoseconds\": 1700000000000000000, \"traceEvents\": [\n";
  for (i = 0; i < 90000; i++) printf "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op_with_a_long_name_%d\", \"pid\": 7, \"tid\": 7, \"ts\": %d.5, \"dur\": 1.25, \"args\": {\"External id\": %d, \"Record function id\": 0, \"Sequence number\": %d}}\n", (i ? "," : ""), i % 977, i, i, i;
  printf "]}\n" }' >big.json
[ "$(stat -c %s big.json)" -gt 16777216 ] || fail "big.json too small for the progress bar"
"$GW_BIN" import big.json -o big.db 2>err.txt >/dev/null || fail "big import failed"
if grep -q "importing" err.txt; then fail "progress bar drawn on a pipe"; fi
if command -v script >/dev/null; then
  script -qec "\"$GW_BIN\" import big.json -o big2.db" /dev/null >tty.txt || fail "import under a tty failed"
  grep -q "importing \[" tty.txt || fail "no progress bar on a terminal: $(head -c 300 tty.txt)"
fi
assert_eq "markers of the big trace" "$(q big.db 'select count(*) from marker')" 90000
echo "1 passed, 0 failed"
