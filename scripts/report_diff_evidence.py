#!/usr/bin/env python3
"""scripts/report_diff_evidence.py OUTDIR: after scripts/report_diff.sh, checks
that every JSON report under OUTDIR/after equals its OUTDIR/before twin once
the evidence fields added by issue 19 (id, gpu, values) are taken out, and
that each text, md and html output is byte-identical. Prints what differs;
exit 1 when something does."""
import json
import pathlib
import sys

ADDED = ("id", "gpu", "values")


def strip(doc):
    for f in doc.get("findings", []):
        for e in f.get("evidence", []):
            for k in ADDED:
                e.pop(k, None)
    return doc


def main():
    out = pathlib.Path(sys.argv[1])
    bad = same = 0
    for after in sorted((out / "after").iterdir()):
        if after.suffix not in (".json", ".text", ".md", ".html"):
            continue
        before = out / "before" / after.name
        if after.suffix == ".json":
            try:
                a, b = json.loads(after.read_text()), json.loads(before.read_text())
            except ValueError as err:
                ok = after.read_bytes() == before.read_bytes()
                if not ok:
                    print(f"{after.name}: not JSON ({err}) and not identical")
            else:
                ok = strip(a) == b
                if ok:
                    for f in a.get("findings", []):
                        if any(set(e) != {"text", "t0_ns", "t1_ns"} for e in f.get("evidence", [])):
                            ok = False
                if not ok:
                    print(f"{after.name}: differs beyond the evidence id, gpu and values")
        else:
            ok = after.read_bytes() == before.read_bytes()
            if not ok:
                print(f"{after.name}: differs")
        bad += not ok
        same += ok
    print(f"{same} outputs the same (JSON without the new evidence fields), {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
