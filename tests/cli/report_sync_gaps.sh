#!/usr/bin/env bash
# idle: sync on a real trace: a torch.profiler trace of a training step from
# an H200 (cudaStreamSynchronize after each step). The report's sync gaps and
# their time are checked against the trace itself, classified here in python
# by the rule of lib/analysis/timeline.c: a gap between GPU work that opens
# while a synchronizing call is open (ended at most 10 us before) and that the
# host closes promptly (20 us or less, or CUDA calls never 0.5 ms apart),
# unless it ends in a host-to-device copy.
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || {
  echo "SKIP: no python3"
  exit 77
}
trace=$GW_FIXTURES/import/h200_torch211_single.json.gz
"$GW_BIN" report --format json "$trace" >r.json 2>err.txt || fail "report: $(cat err.txt)"
python3 - "$trace" r.json <<'PY' || fail "sync gaps differ from the trace's"
import bisect, gzip, json, re, sys

ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
rep = json.load(open(sys.argv[2]))
US = 1000  # trace times are in us; work in ns
RUNTIME_SYNC = {31, 126, 131, 137, 165, 215, 239}
DRIVER_SYNC = {17, 45, 121, 126, 278, 440, 800}


def iv(e):
    return (round(e["ts"] * US), round((e["ts"] + e.get("dur", 0)) * US))


def union(xs):
    out = []
    for a, b in sorted(xs):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


kern = [iv(e) for e in ev if e.get("cat") == "kernel"]
copies = [(e, iv(e)) for e in ev if e.get("cat") in ("gpu_memcpy", "gpu_memset")]
h2d = sorted(i for e, i in copies if "HtoD" in e.get("name", ""))
other = [i for e, i in copies if "HtoD" not in e.get("name", "")]
calls = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")]
api = union(iv(e) for e in calls)
sync_set = lambda e: RUNTIME_SYNC if e["cat"] == "cuda_runtime" else DRIVER_SYNC
syncs = union(iv(e) for e in calls if e.get("args", {}).get("cbid") in sync_set(e))
busy = union(kern + other + h2d)
t0, t1 = busy[0][0], busy[-1][1]


def quiet(a, b):
    q, cur = 0, a
    for s, e in api:
        if e <= a:
            continue
        if s >= b:
            break
        q, cur = max(q, s - cur), max(cur, e)
    return max(q, b - cur)


n_sync = sync_ns = 0
for (a0, a), (b, b1) in zip(busy, busy[1:]):
    gap = b - a
    i = bisect.bisect_left(h2d, (a,))
    if i < len(h2d) and h2d[i][0] <= b:
        continue  # ends in a host-to-device copy: input
    j = bisect.bisect_right([s for s, _ in syncs], a)
    open_sync = j > 0 and syncs[j - 1][1] >= a - 10 * US
    if open_sync and (gap <= 20 * US or quiet(a, b) <= 500 * US):
        n_sync += 1
        sync_ns += gap

g = rep["gpus"][0]
row = next(r for r in g["ledger"] if r["row"] == "idle_sync")
texts = [e["text"] for f in rep["findings"] for e in f.get("evidence", [])]
m = [re.search(r"in (\d+) gaps that opened while the host waited", t) for t in texts]
m = [x for x in m if x]
print(f"trace: {n_sync} sync gaps, {sync_ns / 1e6:.4f} ms; report: {row}, {m[0].group(0) if m else 'no evidence'}")
assert n_sync > 0, "the trace has sync gaps"
assert row["measured"] is True
# the report gives seconds to 4 decimals: within half of the last one
assert abs(row["seconds"] * 1e9 - sync_ns) <= 0.5e5, (row["seconds"], sync_ns)
assert m and int(m[0].group(1)) == n_sync, m
PY
echo "PASS report_sync_gaps"
