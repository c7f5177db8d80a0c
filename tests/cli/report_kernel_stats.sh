#!/usr/bin/env bash
# The report's kernel statistics (lib/analysis/kernel_stats.c) on real
# torch.profiler traces from an H200, checked against the traces' own counts
# (computed here with python3): count, launch rate, durations and their
# histogram, kernels per step from the repeating kernel sequence, the same
# from a step table (the program's step ranges), and the sampled figures of
# the DDP recordings (trace windows).
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || {
  echo "SKIP: no python3"
  exit 77
}
F=$GW_FIXTURES/import

# check_trace TRACE: imports it, reports it as JSON and compares with the
# trace. The Kineto traces here mark no ProfilerStep#N ranges (so the step
# table is empty and steps come from the kernel sequence); the host's
# Optimizer.zero_grad and Optimizer.step annotations mark each iteration, and
# give the step table filled in below.
check_trace() {
  local trace=$1 db
  db=$(basename "$trace" .json.gz).db
  "$GW_BIN" import "$trace" -o "$db" >/dev/null 2>err.txt || fail "import $trace: $(cat err.txt)"
  assert_eq "$db: step rows from the import" "$(q "$db" 'select count(*) from step')" 0
  "$GW_BIN" report --format json "$db" >seq.json || fail "report $db"
  "$GW_BIN" report "$db" >seq.txt || fail "text report $db"
  grep -q "^Kernel timeline (traced kernels)" seq.txt || fail "$db: no kernel section: $(cat seq.txt)"
  grep -q "steps (from the repeating kernel sequence: every" seq.txt || fail "$db: steps line: $(cat seq.txt)"

  # a step table made of the iterations: zero_grad start to the next one's (the last to its Optimizer.step end),
  # in the recording's clock (the import's offset read from one kernel's correlation id)
  local corr start
  corr=$(q "$db" 'select correlation from kernel order by start_ns limit 1')
  start=$(q "$db" "select start_ns from kernel where correlation = $corr")
  cp "$db" table.db
  python3 - "$trace" "$corr" "$start" <<'EOF' | sqlite3 table.db
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
corr, start = int(sys.argv[2]), int(sys.argv[3])
k = next(e for e in ev if e.get("cat") == "kernel" and e["args"].get("correlation") == corr)
off = start - round(k["ts"] * 1000)
zg = sorted(e["ts"] for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("Optimizer.zero_grad"))
st = sorted(e["ts"] + e["dur"] for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("Optimizer.step"))
for i, t in enumerate(zg):
    end = zg[i + 1] if i + 1 < len(zg) else st[-1]
    print(f"insert into step (t_start_ns, t_end_ns, step, source) values ({round(t * 1000) + off}, {round(end * 1000) + off}, {i}, 'test');")
EOF
  "$GW_BIN" report --format json table.db >table.json || fail "report table.db"
  # and the same copy with the step table emptied again
  sqlite3 table.db 'delete from step'
  "$GW_BIN" report --format json table.db >emptied.json || fail "report emptied table.db"

  python3 - "$trace" seq.json table.json emptied.json <<'EOF' || fail "$db: figures differ from the trace"
import gzip, json, statistics, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
seq, table, emptied = (json.load(open(p))["gpus"][0]["kernels"] for p in sys.argv[2:5])
ks = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
n = len(ks)
assert not any(str(e.get("name", "")).startswith("ProfilerStep#") for e in ev), "trace has ProfilerStep ranges"
steps = sum(1 for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("Optimizer.step"))
per_step = n // steps
names = [e["name"] for e in ks]
# the trace itself repeats its kernel names with that period
assert n % steps == 0 and all(names[i] == names[i + per_step] for i in range(n - per_step)), "no period"

def close(what, got, want, rel=1e-3):
    if got is None or abs(got - want) > rel * abs(want) + 1e-4:
        sys.exit(f"{what}: report {got}, trace {want}")

def same(what, got, want):
    if got != want:
        sys.exit(f"{what}: report {got}, trace {want}")

dur_us = [e["dur"] for e in ks]
span_s = (max(e["ts"] + e["dur"] for e in ks) - ks[0]["ts"]) / 1e6
same("count", seq["count"], n)
same("sampled", seq["sampled"], False)
close("traced_s", seq["traced_s"], span_s)
close("launches_per_s", seq["launches_per_s"], n / span_s)
close("duration_mean_us", seq["duration_mean_us"], statistics.mean(dur_us))
close("duration_median_us", seq["duration_median_us"], statistics.median(dur_us))
q = sorted(dur_us)
pos = 0.9 * (n - 1)
close("duration_p90_us", seq["duration_p90_us"], q[int(pos)] + (pos - int(pos)) * (q[min(int(pos) + 1, n - 1)] - q[int(pos)]))
hist = [0] * 15
for d in dur_us:
    b, edge = 0, 2.0
    while b < 14 and round(d * 1000) >= edge * 1000:
        b, edge = b + 1, edge * 2
    hist[b] += 1
same("histogram", [h["count"] for h in seq["duration_histogram"]], hist)
same("histogram edges", [h["lo_us"] for h in seq["duration_histogram"]], [0] + [2 ** b for b in range(1, 15)])

same("step_source", seq["step_source"], "kernel_sequence")
same("period_kernels", seq["period_kernels"], per_step)
same("steps", seq["steps"], steps)
same("kernels_per_step_median", seq["kernels_per_step_median"], per_step)
same("kernels_per_step_mean", seq["kernels_per_step_mean"], per_step)
close("period_share", seq["period_share"], 1.0)
close("step_median_s", seq["step_median_s"],
      statistics.median((ks[(s + 1) * per_step]["ts"] - ks[s * per_step]["ts"]) / 1e6 for s in range(steps - 1)))
pairs = varying = 0
for s in range(steps - 1):
    for j in range(per_step):
        a, b = ks[s * per_step + j], ks[(s + 1) * per_step + j]
        if a["name"] == b["name"]:
            pairs += 1
            varying += a["args"]["grid"] != b["args"]["grid"]
same("shape_pairs", seq["shape_pairs"], pairs)
same("shape_varying", seq["shape_varying"], varying)

# the program's iterations as the step table: the same kernels per step
same("table step_source", table["step_source"], "step_table")
same("table steps", table["steps"], steps)
same("table kernels_per_step_median", table["kernels_per_step_median"], per_step)
# emptied again: the sequence finds them
same("emptied step_source", emptied["step_source"], "kernel_sequence")
same("emptied kernels_per_step_median", emptied["kernels_per_step_median"], table["kernels_per_step_median"])
print(f"{sys.argv[1]}: {n} kernels, {steps} steps of {per_step}, {varying} of {pairs} grids vary")
EOF
}

check_trace "$F/h200_launch_tiny_ops.json.gz"
check_trace "$F/h200_input_pageable_copies.json.gz"

# sampled traces (DDP, two ranks): the figures cover the trace windows only and say so
S=$GW_FIXTURES/scenarios
for name in ddp_balanced ddp_grad_accum; do
  cp "$S/$name.db" "$name.db"
  [ -f "$S/$name.db-wal" ] && cp "$S/$name.db-wal" "$name.db-wal"
  "$GW_BIN" report "$name.db" >sampled.txt || fail "report $name"
  grep -q "^Kernel timeline (sampled: only the trace windows)" sampled.txt || fail "$name: $(cat sampled.txt)"
  grep -q "kernels in .* s of trace windows" sampled.txt || fail "$name: no sampled line"
  "$GW_BIN" report --format json "$name.db" >sampled.json || fail "report $name json"
  for gpu in 0 1; do
    count=$(q "$name.db" "select count(*) from kernel where device = $gpu and start_ns is not null and end_ns is not null")
    pid=$(q "$name.db" "select pid from kernel where device = $gpu group by pid order by count(*) desc limit 1")
    win_s=$(q "$name.db" "select sum(end_ns - start_ns) / 1e9 from trace_window where mode = 'sampled' and pid = $pid")
    python3 - sampled.json "$gpu" "$count" "$win_s" <<'EOF' || fail "$name GPU $gpu: sampled figures"
import json, sys
k = json.load(open(sys.argv[1]))["gpus"][int(sys.argv[2])]["kernels"]
assert k["sampled"] is True and k["windows"] >= 1, k
assert k["count"] == int(sys.argv[3]), (k["count"], sys.argv[3])
assert abs(k["traced_s"] - float(sys.argv[4])) < 1e-3, (k["traced_s"], sys.argv[4])
assert abs(k["launches_per_s"] - k["count"] / k["traced_s"]) < 1e-2 * k["launches_per_s"], k
EOF
    # inside the windows: span (first to last GPU work of each window) and busy share (compute kernels and copies
    # other than host-to-device, merged), from the tables
    python3 - sampled.json "$gpu" "$name.db" "$pid" <<'EOF' || fail "$name GPU $gpu: window gaps"
import json, sqlite3, sys
w = json.load(open(sys.argv[1]))["gpus"][int(sys.argv[2])]["kernels"]["window_gaps"]
db, gpu, pid = sqlite3.connect(sys.argv[3]), int(sys.argv[2]), int(sys.argv[4])
wins = db.execute("select start_ns, end_ns from trace_window where mode = 'sampled' and pid = ?", (pid,)).fetchall()
ker = db.execute("select start_ns, end_ns, nccl from kernel where device = ? and start_ns is not null"
                 " and end_ns is not null", (gpu,)).fetchall()
cpy = db.execute("select start_ns, end_ns, copy_kind from memcpy where device = ? and start_ns is not null"
                 " and end_ns is not null", (gpu,)).fetchall()
span = busy = 0
for w0, w1 in wins:
    k = [(a, b, n) for a, b, n in ker if a >= w0 and b <= w1]
    c = [(a, b, kind) for a, b, kind in cpy if a >= w0 and b <= w1]
    ends = [(a, b) for a, b, _ in k + c]
    if not ends:
        continue
    span += max(b for _, b in ends) - min(a for a, _ in ends)
    last = None
    for a, b in sorted([(a, b) for a, b, n in k if not n] + [(a, b) for a, b, kind in c if kind != 1]):
        if last and a <= last[1]:
            last[1] = max(last[1], b)
        else:
            if last:
                busy += last[1] - last[0]
            last = [a, b]
    if last:
        busy += last[1] - last[0]
assert abs(w["span_s"] - span / 1e9) < 1e-3, (w, span)
assert abs(w["busy"] - busy / span) < 1e-3, (w, busy / span)
total = sum(v for key, v in w.items() if key != "span_s" and v is not None)
assert abs(total - 1) < 2e-3, w
EOF
  done
done
# the step loop of ddp_balanced (120 kernels) is found inside its windows
"$GW_BIN" report --format json ddp_balanced.db | python3 -c '
import json, sys
for g in json.load(sys.stdin)["gpus"]:
    k = g["kernels"]
    assert k["step_source"] == "kernel_sequence" and k["period_kernels"] == 120, k
' || fail "ddp_balanced: period"

# two recordings reported together keep each GPU's kernels (two runs, joined on purpose: --same-job)
"$GW_BIN" report --same-job --format json ddp_balanced.db ddp_grad_accum.db >both.json || fail "report two recordings"
python3 -c '
import json
d = json.load(open("both.json"))
assert len(d["gpus"]) == 4 and all(g["kernels"]["sampled"] for g in d["gpus"]), d["gpus"]
' || fail "two recordings: kernels"

# a recording without a trace has no section and no key
"$GW_BIN" report "$S/healthy.db" >plain.txt
grep -q "Kernel timeline" plain.txt && fail "kernel section without a trace"
"$GW_BIN" report --format json "$S/healthy.db" | grep -q '"kernels"' && fail "kernels key without a trace"
"$GW_BIN" report --format md "$S/healthy.db" | grep -q "Kernel timeline" && fail "md kernel section without a trace"

# the Markdown and HTML reports carry the same rows
"$GW_BIN" report --format md ddp_balanced.db >k.md || fail "md report"
grep -q "^## Kernel timeline (sampled: only the trace windows)" k.md || fail "md: no sampled kernel section"
c0=$(q ddp_balanced.db "select count(*) from kernel where device = 0 and start_ns is not null and end_ns is not null")
c1=$(q ddp_balanced.db "select count(*) from kernel where device = 1 and start_ns is not null and end_ns is not null")
grep -q "^| kernels | $c0 in [0-9.]* s of [0-9]* trace windows | $c1 in [0-9.]* s of [0-9]* trace windows |" k.md ||
  fail "md kernels row: $(grep '^| kernels' k.md), expected $c0 and $c1"
grep -q "^| inside the windows: busy" k.md || fail "md: no window gaps row"
"$GW_BIN" report --format html ddp_balanced.db >k.html || fail "html report"
grep -q 'id="kernels"' k.html || fail "html: no kernel card"
"$GW_BIN" report --format md "$F/h200_launch_tiny_ops.json.gz" 2>/dev/null >t.md || fail "md of a trace"
n=$(python3 -c 'import gzip, json, sys; print(sum(e.get("cat") == "kernel" for e in json.load(gzip.open(sys.argv[1]))["traceEvents"]))' "$F/h200_launch_tiny_ops.json.gz")
grep -q "^| kernels | $n in " t.md || fail "md traced kernels row: $(grep '^| kernels' t.md), expected $n"
grep -q "inside the windows" t.md && fail "md: window row for a full trace"
echo OK
