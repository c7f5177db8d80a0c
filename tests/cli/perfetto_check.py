#!/usr/bin/env python3
"""Structural checks of a gpuwhy Perfetto export (Chrome Trace Event Format).
Usage: perfetto_check.py TRACE.json [EXPECTATIONS.json]
Every event needs name, ph, ts, pid and tid; slices need a duration that is
not negative; each track's timestamps never go back (a track is (pid, tid)
for slices and instants, (pid, name) for counters); every slice's thread and
process is named by a metadata event. EXPECTATIONS may require event counts
per category, counter names and slice names."""
import collections
import json
import sys


def main():
    trace = json.load(open(sys.argv[1], encoding="utf-8"))  # strict UTF-8: a bad byte fails here
    want = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else {}
    events = trace["traceEvents"]
    errors = []
    last = {}
    named_threads, named_procs = set(), set()
    cats = collections.Counter()
    counters, slices = set(), collections.Counter()
    for i, e in enumerate(events):
        for key in ("name", "ph", "ts", "pid", "tid"):
            if key not in e:
                errors.append("event %d lacks %s: %r" % (i, key, e))
        if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
            errors.append("event %d: bad ts %r" % (i, e.get("ts")))
            continue
        ph = e["ph"]
        if ph == "M":
            if e["name"] == "thread_name":
                named_threads.add((e["pid"], e["tid"]))
            elif e["name"] == "process_name":
                named_procs.add(e["pid"])
            continue
        if ph == "C":
            track = ("C", e["pid"], e["name"])
            counters.add(e["name"])
            if not e.get("args"):
                errors.append("counter without a value: %r" % e)
        elif ph in ("X", "i"):
            track = ("T", e["pid"], e["tid"])
            if ph == "X" and (not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0):
                errors.append("slice with a bad duration: %r" % e)
            cats[e.get("cat", "")] += 1
            slices[e["name"]] += 1
        else:
            errors.append("unexpected phase %r" % ph)
            continue
        if track in last and e["ts"] < last[track]:
            errors.append("track %r goes back in time: %s after %s" % (track, e["ts"], last[track]))
        last[track] = e["ts"]
        if ph in ("X", "i") and e["pid"] not in named_procs:
            errors.append("slice in an unnamed process %r" % e["pid"])
        if ph in ("X", "i") and (e["pid"], e["tid"]) not in named_threads:
            errors.append("slice on an unnamed thread %r" % ((e["pid"], e["tid"]),))
    for cat, n in want.get("categories", {}).items():
        if cats[cat] != n:
            errors.append("%d events of category %s, expected %d" % (cats[cat], cat, n))
    for name in want.get("counters", []):
        if name not in counters:
            errors.append("no counter track %r (have %s)" % (name, sorted(counters)))
    for name in want.get("slices", []):
        if slices[name] == 0:
            errors.append("no slice named %r" % name)
    for e in errors[:20]:
        print("FAIL:", e)
    print("%d events, %d counter tracks, categories %s" % (len(events), len(counters), dict(cats)))
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
