#!/usr/bin/env bash
# gpuwhy export --perfetto: valid Trace Event Format JSON on a real H200
# recording (counters, dips, findings), and on a copy given tracer rows
# (kernels on two streams, a copy, a sync, an NVTX range, marked steps,
# a kernel name with quotes, a backslash and an invalid UTF-8 byte), written
# out of order: every track comes out in time order with its names.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
"$GW_BIN" export --help >/dev/null 2>&1 || { echo "SKIP: this gpuwhy has no export command yet"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)

"$GW_BIN" export "$GW_FIXTURES/scenarios/schedule_eval.db" --perfetto eval.json 2>export.log ||
  fail "export exited $?: $(cat export.log)"
cat >eval.want <<'WANT'
{"counters": ["SM activity", "GPU-Util", "Power", "SM clock", "PCIe rx", "CPU busy, all cores",
              "Disk util, busiest"],
 "slices": ["dip", "The training schedule or changing shapes stall the GPU"]}
WANT
python3 "$here/perfetto_check.py" eval.json eval.want || fail "schedule_eval: trace is malformed"

# A traced copy: rows inserted in reverse time order.
cp "$GW_FIXTURES/scenarios/worked_case_s0.db" traced.db
t0=$(q traced.db 'select started_ns from run') || fail "no run row"
q traced.db "
insert into trace_name values (1, 4242, 'ampere_sgemm_128x64_tn');
insert into trace_name values (2, 4242, 'ncclDevKernel_AllReduce_Sum_f32');
insert into trace_name values (3, 4242, cast(x'7765697264223c6b65726e656c5c3eff' as text));
insert into trace_name values (4, 4242, 'forward');
insert into step (t_start_ns, t_end_ns, step, source) values ($t0 + 3000000000, $t0 + 4000000000, 2, 'test');
insert into step (t_start_ns, t_end_ns, step, source) values ($t0 + 2000000000, $t0 + 3000000000, 1, 'test');
" || fail "cannot add step rows"
for i in $(seq 40 -1 1); do
  s=$((t0 + 2000000000 + i * 50000000))
  echo "insert into kernel (pid, device, stream, start_ns, end_ns, name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, nccl) values (4242, 0, 7, $s, $((s + 20000000)), 1, 132, 1, 1, 256, 1, 1, 0);"
  echo "insert into kernel (pid, device, stream, start_ns, end_ns, name_id, nccl) values (4242, 0, 13, $((s + 5000000)), $((s + 15000000)), $((i % 2 ? 2 : 3)), $((i % 2)));"
done >rows.sql
echo "insert into memcpy (pid, device, stream, start_ns, end_ns, bytes, copy_kind, async) values (4242, 0, 7, $((t0 + 1900000000)), $((t0 + 1950000000)), 268435456, 1, 0);" >>rows.sql
echo "insert into sync (pid, stream, start_ns, end_ns, sync_type) values (4242, 7, $((t0 + 1950000000)), $((t0 + 1990000000)), 1);" >>rows.sql
echo "insert into marker (pid, tid, start_ns, end_ns, name_id, instant) values (4242, 4243, $((t0 + 2000000000)), $((t0 + 4000000000)), 4, 0);" >>rows.sql
sqlite3 traced.db <rows.sql || fail "cannot add tracer rows"

"$GW_BIN" export traced.db --perfetto traced.json 2>export.log || fail "export of the traced copy exited $?"
cat >traced.want <<'WANT'
{"categories": {"kernel": 60, "nccl": 20, "memcpy": 1, "sync": 1, "nvtx": 1},
 "counters": ["SM activity", "Power", "Main process CPU"],
 "slices": ["ampere_sgemm_128x64_tn", "ncclDevKernel_AllReduce_Sum_f32", "Memcpy HtoD", "synchronize", "forward",
            "step 1", "step 2"]}
WANT
python3 "$here/perfetto_check.py" traced.json traced.want || fail "traced copy: trace is malformed"
python3 - traced.json <<'PY' || fail "traced copy: details wrong"
import json, sys
ev = json.load(open(sys.argv[1], encoding="utf-8"))["traceEvents"]
names = {e["name"] for e in ev}
weird = 'weird"<kernel\\>\ufffd'
assert weird in names, "the odd kernel name did not survive escaping: %r" % [n for n in names if "weird" in n]
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["name"] == "thread_name"}
assert threads.get((4242, 7)) == "stream 7" and threads.get((4242, 13)) == "stream 13", threads
k = [e for e in ev if e.get("cat") == "kernel" and e["tid"] == 7]
assert k[0]["args"]["grid"] == [132, 1, 1] and abs(k[0]["dur"] - 20000.0) < 1e-6, k[0]
copy = [e for e in ev if e.get("cat") == "memcpy"][0]
assert copy["args"]["bytes"] == 268435456 and copy["tid"] == 7, copy
print("kernel names, streams, durations and copy sizes as inserted")
PY
# A real traced run: the torch.profiler trace captured on the H200, imported,
# then exported: every one of its 174 kernels comes out, tracks in order.
"$GW_BIN" import "$GW_FIXTURES/import/h200_torch211_single.json.gz" -o real.db >import.log 2>&1 ||
  fail "import of the H200 trace exited $?: $(cat import.log)"
"$GW_BIN" export real.db --perfetto real.json 2>export.log || fail "export of the imported H200 trace exited $?"
cat >real.want <<'WANT'
{"categories": {"kernel": 174}}
WANT
python3 "$here/perfetto_check.py" real.json real.want || fail "imported H200 trace: export is malformed"
echo "3 traces checked"
