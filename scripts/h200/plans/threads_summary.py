"""Per recording: medians of process, main-thread and launching-thread CPU over the truth's steady window, the
share of samples with the launching threads measured, the median step time, and the report's verdict.
usage: python3 threads_summary.py GPUWHY DB...   (a truth file NAME.truth.json beside each NAME.db when there is one)
"""
import json
import os
import sqlite3
import statistics
import subprocess
import sys


def median_text(values):
    values = [v for v in values if v is not None]
    return ("%.0f" % statistics.median(values)) if values else "-"


def summarise(gpuwhy, db):
    name = os.path.basename(db)[:-3]
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    window = (0, 1 << 62)
    step_ms = "-"
    truth_path = db[:-3] + ".truth.json"
    if os.path.exists(truth_path):
        with open(truth_path) as f:
            truth = json.load(f)
        window = (truth.get("started_ns", 0), truth.get("ended_ns", 1 << 62))
        durations_ms = [(st["end_ns"] - st["start_ns"]) / 1e6 for st in truth.get("steps", [])
                         if st.get("kind") == "train"]
        if durations_ms:
            step_ms = "%.1f" % statistics.median(durations_ms)
    columns = [r[1] for r in con.execute("pragma table_info(proc_sample)")]
    if "launch_threads_cpu_pct" not in columns:
        return "%s: no launch_threads_cpu_pct column (an old recorder?)" % name
    rows = con.execute("select cpu_pct, main_thread_cpu_pct, launch_threads_cpu_pct from proc_sample where role = 0 "
                       "and t_ns between ? and ? and cpu_pct is not null", window).fetchall()
    measured = sum(1 for r in rows if r[2] is not None)
    report = subprocess.run([gpuwhy, "report", "--format", "json", db], capture_output=True, text=True)
    try:
        doc = json.loads(report.stdout)
        verdict = "%s %s" % (doc.get("verdict"), [f.get("class") for f in doc.get("findings", [])])
    except ValueError:
        verdict = "report failed: " + report.stderr[-200:]
    return ("%-22s samples %3d  process %4s%%  main thread %4s%%  launching threads %4s%% (measured in %d)  "
            "step %s ms  verdict %s" % (name, len(rows), median_text([r[0] for r in rows]),
                                         median_text([r[1] for r in rows]), median_text([r[2] for r in rows]),
                                         measured, step_ms, verdict))


def main():
    gpuwhy = sys.argv[1]
    for db in sys.argv[2:]:
        print(summarise(gpuwhy, db))


if __name__ == "__main__":
    main()
