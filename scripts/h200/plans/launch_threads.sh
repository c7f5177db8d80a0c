#!/usr/bin/env bash
# The launching threads on the H200 (about 2 minutes): the recorder's proc_sample.launch_threads_cpu_pct (main
# thread + PyTorch's pt_autograd_N threads, found by name) on real programs, and the verdicts that read it.
#  1. launch_tiny_ops (launch-bound, AdamW): the launching threads should read near one core, the verdict
#     launch_overhead as before;
#  2. logging_thread with its helper thread at 90% of a core (healthy transformer, the helper issues no kernels,
#     hands the interpreter lock back between small pieces): the process reads near two cores, the launching
#     threads under one; expected verdict none;
#  3. input_slow_read (DataLoader-bound, workers waiting on reads): launching threads far under a core.
# Plain `gpuwhy record --interval 100` (no trace), 10 s of steady state each, truth files beside them.
# Files under OUT: summary.txt (per recording: medians of process, main-thread and launching-thread CPU over the
# steady window, the share of samples with the launching threads measured, and the verdict), recordings.tar.gz, log.txt.
# usage: scripts/h200/run.sh launch_threads OUT   (from the repo root; build-dev prebuilt; no set -e)
set -u
. scripts/h200/lib/plan_start.sh
plan_start launch_threads "${1:?usage: launch_threads.sh OUT}"
rec=$w/rec
mkdir -p "$rec"
SCN_DURATION=10 SCN_TIMEOUT_EXTRA=45 timeout -k 5 70 bash scenarios/run_suite.sh "$bin" "$rec" launch_tiny_ops >> "$log" 2>&1
say "launch_tiny_ops: rc=$?"
timeout -k 5 70 "$bin" record --interval 100 -o "$rec/logging_thread_busy.db" -- python3 -u scenarios/logging_thread.py \
  --out "$rec/logging_thread_busy.truth.json" --duration 10 --helper-cpu-pct 90 --scenario-name logging_thread_busy \
  > "$w/logging_thread_busy.log" 2>&1
say "logging_thread_busy: rc=$?"
SCN_DURATION=10 SCN_TIMEOUT_EXTRA=45 timeout -k 5 70 bash scenarios/run_suite.sh "$bin" "$rec" input_slow_read >> "$log" 2>&1
say "input_slow_read: rc=$?"
python3 - "$bin" "$rec"/*.db > "$out/summary.txt" 2>&1 << 'PY'
import json, os, sqlite3, statistics, subprocess, sys
bin_ = sys.argv[1]
for db in sys.argv[2:]:
    name = os.path.basename(db)[:-3]
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    window = (0, 1 << 62)
    tpath = db[:-3] + ".truth.json"
    if os.path.exists(tpath):
        t = json.load(open(tpath))
        window = (t.get("started_ns", 0), t.get("ended_ns", 1 << 62))
    cols = [r[1] for r in con.execute("pragma table_info(proc_sample)")]
    if "launch_threads_cpu_pct" not in cols:
        print("%s: no launch_threads_cpu_pct column (an old recorder?)" % name)
        continue
    rows = con.execute("select cpu_pct, main_thread_cpu_pct, launch_threads_cpu_pct from proc_sample where role = 0 "
                       "and t_ns between ? and ? and cpu_pct is not null", window).fetchall()
    def med(i):
        v = [r[i] for r in rows if r[i] is not None]
        return ("%.0f" % statistics.median(v)) if v else "-"
    known = sum(1 for r in rows if r[2] is not None)
    rep = subprocess.run([bin_, "report", "--format", "json", db], capture_output=True, text=True)
    try:
        d = json.loads(rep.stdout)
        verdict = d.get("verdict"), [f.get("class") for f in d.get("findings", [])]
    except ValueError:
        verdict = ("report failed", rep.stderr[-200:])
    print("%-22s samples %3d  process %4s%%  main thread %4s%%  launching threads %4s%% (measured in %d)  verdict %s %s"
          % (name, len(rows), med(0), med(1), med(2), known, verdict[0], verdict[1]))
PY
cat "$out/summary.txt"
for db in "$rec"/*.db; do "$bin" report "$db" > "${db%.db}.report.txt" 2>&1; done
(cd "$w" && tar -czf "$out/recordings.tar.gz" rec) >> "$log" 2>&1
say "done"
