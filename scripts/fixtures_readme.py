#!/usr/bin/env python3
"""Rewrites the table of tests/fixtures/scenarios/README.md from the recordings
and their ground truth (run after adding or relabelling a fixture)."""
import glob
import json
import os
import sqlite3

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "scenarios")
readme = os.path.join(here, "README.md")
head = open(readme).read().split("| recording |")[0]
rows = []
for t in sorted(glob.glob(os.path.join(here, "*.truth.json"))):
    n = os.path.basename(t)[: -len(".truth.json")]
    d = json.load(open(t))
    con = sqlite3.connect(f"file:{os.path.join(here, n + '.db')}?mode=ro", uri=True)
    util, sm, pw = con.execute(
        "select avg(util_gpu_pct), avg(sm_active_pct), avg(power_mw) / 1000.0 from gpu_sample where t_ns between ? and ?",
        (d["steps"][0]["start_ns"], d["steps"][-1]["end_ns"])).fetchone()
    desc = d.get("description", "").split(". ")[0].strip().rstrip(".")
    truth = ", ".join(d.get("expected_classes") or [d["expected_class"]])
    if d.get("label_rule"):
        truth += " (relabelled after measurement, see label_rule)"
    rows.append(f"| `{n}` | {truth} | {d.get('median_step_ms', 0):.1f} | {d.get('samples_per_s', 0):.0f} | "
                f"{util:.1f} | {sm:.1f} | {pw:.0f} | {desc} |")
with open(readme, "w") as f:
    f.write(head)
    f.write("| recording | ground truth | median step ms | samples/s | GPU-Util % | SM activity % | power W | what it does |\n")
    f.write("|---|---|---|---|---|---|---|---|\n")
    f.write("\n".join(rows) + "\n")
