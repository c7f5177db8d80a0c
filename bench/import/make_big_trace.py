#!/usr/bin/env python3
"""Build a large Kineto trace from a small real one by repeating its steps.

Every event of the seed trace is written again once per repetition, its ts
shifted by the seed's time span (plus a small gap), and its ids (External id,
correlation, flow id, ProfilerStep number) offset so that each copy stays
self-consistent. Timestamps are handled as exact decimal strings, as Kineto
writes them. The output is written as it goes: the generator's own memory is
that of the seed.

usage: make_big_trace.py SEED.json[.gz] OUT.json TARGET_MB
prints: the number of events and of kernel events written (the trace's own
kernel count, for checking an import against it)."""
import decimal
import gzip
import json
import sys

D = decimal.Decimal


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=D, parse_int=int)


def plain(v):
    """Decimals other than ts and dur back to floats, so they stay JSON numbers."""
    if isinstance(v, D):
        return float(v)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def fmt_us(v):
    """A Decimal of microseconds as Kineto writes it: three decimals."""
    return format(v.quantize(D("0.001")), "f")


def main():
    seed_path, out_path, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    doc = load(seed_path)
    events = [{k: (v if k in ("ts", "dur") else plain(v)) for k, v in e.items()} for e in doc["traceEvents"]]
    timed = [e for e in events if isinstance(e.get("ts"), D) or isinstance(e.get("ts"), int)]
    t0 = min(D(e["ts"]) for e in timed)
    t1 = max(D(e["ts"]) + D(e.get("dur", 0)) for e in timed)
    period = (t1 - t0) + D(100)  # 100 us between copies
    max_id = 0
    for e in events:
        args = e.get("args", {})
        for k in ("External id", "correlation"):
            if isinstance(args.get(k), int):
                max_id = max(max_id, args[k])
        if isinstance(e.get("id"), int):
            max_id = max(max_id, e["id"])
    id_stride = max_id + 1
    steps = sorted(
        int(e["name"].split("#", 1)[1])
        for e in events
        if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") == "user_annotation"
    )
    step_stride = (steps[-1] - steps[0] + 1) if steps else 0
    # Events without their ts/dur, serialised once; the copies differ only in
    # those and in the ids, which are patched per copy.
    header = {k: plain(v) for k, v in doc.items() if k != "traceEvents"}
    target = target_mb * 1e6
    written = 0
    n_events = n_kernels = 0
    with open(out_path, "w") as out:
        head = json.dumps(header, indent=2, default=str)[:-2]  # drop the closing "\n}"
        out.write(head + ',\n  "traceEvents": [\n')
        first = True
        rep = 0
        while written < target:
            shift = period * rep
            for e in events:
                e2 = dict(e)
                ts = e2.pop("ts", None)
                dur = e2.pop("dur", None)
                if rep:
                    if "args" in e2 and isinstance(e2["args"], dict):
                        a = dict(e2["args"])
                        for k in ("External id", "correlation"):
                            if isinstance(a.get(k), int) and a[k] > 0:
                                a[k] += id_stride * rep
                        e2["args"] = a
                    if isinstance(e2.get("id"), int):
                        e2["id"] += id_stride * rep
                    name = str(e2.get("name", ""))
                    if name.startswith("ProfilerStep#") and step_stride:
                        e2["name"] = "ProfilerStep#%d" % (int(name.split("#", 1)[1]) + step_stride * rep)
                body = json.dumps(e2, default=str)
                lead = []
                if ts is not None:
                    lead.append('"ts": ' + fmt_us(D(ts) + shift) if isinstance(ts, (D, int)) else '"ts": ' + json.dumps(ts))
                if dur is not None:
                    lead.append('"dur": ' + (fmt_us(D(dur)) if isinstance(dur, (D, int)) else json.dumps(dur)))
                if lead:
                    body = "{" + ", ".join(lead) + (", " + body[1:] if len(body) > 2 else "}")
                line = ("    " if first else ",\n    ") + body
                first = False
                out.write(line)
                written += len(line)
                n_events += 1
                if str(e.get("cat", "")).lower() == "kernel":
                    n_kernels += 1
            rep += 1
        tail = '\n  ],\n  "traceName": %s\n}\n' % json.dumps(str(doc.get("traceName", out_path)))
        out.write(tail)
    print("events %d kernel_events %d copies %d bytes %d" % (n_events, n_kernels, rep, written))


if __name__ == "__main__":
    main()
