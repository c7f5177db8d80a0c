#!/usr/bin/env bash
# Issue 21 item 6: seven new scenarios at the diagnosis' weak spots, under record --trace (8 min, one H200).
# Never changes a GPU setting.
#  remote_store      input_pipeline  loader workers asleep on a 20-40 ms store round trip (latency, not CPU)
#  logging_thread    none            healthy transformer + a metrics thread at 15% of a core
#  healthy_midpower  none            memory-bound steps only: always busy, well under the power limit
#  attention_lowocc  none            SDPA-heavy bf16 at low occupancy by design
#  bursty_serving    none            inference server, Poisson bursts: demand-limited
#  offload_accum     schedule_shape  4 micro-batches, then AdamW on the CPU: the GPU idles every optimizer step
#  compile_dynamic   schedule_shape  torch.compile(dynamic=False) over 20 lengths: recompiles in the window
# Each: `gpuwhy record --trace -o NAME.db --interval 100 -- python3 -u scenarios/NAME.py --out NAME.truth.json
# --duration D ...` (12 s of steady state; 20 s for compile_dynamic, whose first visits of a length take seconds
# each), then `gpuwhy report --format json` and the text report. A deadline (I21NEW_LIMIT_S, 470 s from the start)
# bounds the whole plan: each run's timeout is cut to what is left, a run that cannot fit is skipped and said so.
# Output under OUT: summary.txt (scenario, exit status, steps in the truth against the recording's step table,
# verdict, findings, expected, the truth's measured figures), reports.txt (the text reports), i21new_run.log, and
# i21new_recordings.tar.gz (NAME.db, NAME.truth.json, NAME.report.json, NAME.report.txt, NAME.log), rewritten
# after every scenario so that a call cut short still brings back what was recorded.
# usage: scripts/h200/run.sh i21new OUT   (or bash scripts/h200/plans/i21new.sh OUT from the repo root; no set -e)
# Other plans reuse this one (i21new2.sh): I21NEW_TAG names the log and the tar (TAG_run.log,
# TAG_recordings.tar.gz), I21NEW_SCENARIOS replaces the list below (one NAME|CLASSES|SECONDS|TIMEOUT|SCRIPT a line).
set -u
tag=${I21NEW_TAG:-i21new}
out=${1:?usage: $tag.sh OUT}
mkdir -p "$out" || exit 3
out=$(cd "$out" && pwd)
root=$PWD
bin=${GW_BIN:-$root/build-dev/gpuwhy}
export GPUWHY_TRACER_LIB=${GW_TRACER:-$root/build-dev/tracer/libgpuwhy-tracer.so}
export PYTHONUNBUFFERED=1
limit_s=${I21NEW_LIMIT_S:-470} # the whole plan; 8 minutes is 480
tail_s=20                      # kept at the end for the summary and the tar
report_s=25                    # kept after each recording for its two reports
w=$(mktemp -d "/tmp/gw_$tag.XXXX")
data=/tmp/gpuwhy_scn
mkdir -p "$data"
log=$out/${tag}_run.log
: > "$log"
start_s=$(date +%s)
say() { echo "[$(date -u +%H:%M:%S) +$(($(date +%s) - start_s))s] $*" | tee -a "$log"; }

tracer_state=MISSING
[ -f "$GPUWHY_TRACER_LIB" ] && tracer_state=present
say "gpuwhy $("$bin" --version 2>&1 | head -1); tracer $GPUWHY_TRACER_LIB $tracer_state"
nvidia-smi --query-gpu=name,driver_version,power.limit,power.draw,pstate --format=csv >> "$log" 2>&1
python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__,
  "cuda", torch.version.cuda, "power_draw", hasattr(torch.cuda, "power_draw"))' >> "$log" 2>&1
python3 -c 'import pynvml; print("pynvml present")' >> "$log" 2>&1 ||
  echo "pynvml absent: power through ctypes NVML" >> "$log"
nproc >> "$log"

# name|expected classes|steady-state seconds|longest run in seconds|script and options
scenarios=(
  "remote_store|input_pipeline|12|70|remote_store.py"
  "logging_thread|none|12|70|logging_thread.py --data-dir $data"
  "healthy_midpower|none|12|70|healthy_midpower.py"
  "attention_lowocc|none|12|70|attention_lowocc.py"
  "bursty_serving|none|12|70|bursty_serving.py"
  "offload_accum|schedule_shape|12|90|offload_accum.py"
  "compile_dynamic|schedule_shape|20|200|compile_dynamic.py"
)
if [ -n "${I21NEW_SCENARIOS:-}" ]; then
  mapfile -t scenarios <<< "$I21NEW_SCENARIOS"
fi
results=()

pack() { # the tar of everything so far, replaced whole so that it is never half written
  tar -C "$w" -czf "$out/${tag}_recordings.tar.gz.part" . >> "$log" 2>&1 &&
    mv "$out/${tag}_recordings.tar.gz.part" "$out/${tag}_recordings.tar.gz"
}

for line in "${scenarios[@]}"; do
  IFS='|' read -r name expected dur cap cmd <<< "$line"
  script=${cmd%% *}
  rest=""
  [ "$script" != "$cmd" ] && rest=${cmd#* }
  left=$((limit_s - tail_s - report_s - ($(date +%s) - start_s)))
  t=$cap
  [ "$left" -lt "$t" ] && t=$left
  if [ "$t" -lt $((dur + 25)) ]; then
    say "--- $name: SKIPPED, $left s left of the plan's $limit_s s"
    results+=("$name:skipped:0")
    continue
  fi
  db=$w/$name.db
  truth=$w/$name.truth.json
  say "--- $name (expect $expected, ${dur}s steady, timeout ${t}s): $script $rest"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  timeout -k 10 "$t" "$bin" record --trace -o "$db" --interval 100 -- python3 -u "scenarios/$script" \
    --out "$truth" --duration "$dur" --scenario-name "$name" --expected-class "$expected" $rest \
    > "$w/$name.log" 2>&1
  rc=$?
  wall=$(($(date +%s) - t0))
  say "    exit $rc after ${wall}s; last lines:"
  tail -n 4 "$w/$name.log" | sed 's/^/      /' | tee -a "$log"
  if [ -f "$db" ]; then
    timeout 20 "$bin" report --format json "$db" > "$w/$name.report.json" 2>> "$w/$name.log" ||
      say "    report --format json failed ($?)"
    timeout 20 "$bin" report "$db" > "$w/$name.report.txt" 2>> "$w/$name.log" || say "    report failed ($?)"
  else
    say "    no recording"
  fi
  results+=("$name:$rc:$wall")
  pack
done

say "=== summary"
python3 - "$w" "${results[@]}" > "$out/summary.txt" 2>> "$log" << 'PY'
import json, os, sqlite3, sys

w = sys.argv[1]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:
        return None


def hook_steps(db, t0, t1):
    """(steps in the truth's window, all) from the recording's step table."""
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        if not con.execute("select 1 from sqlite_master where name='step'").fetchone():
            return "no table", "-"
        allc = con.execute("select count(*) from step").fetchone()[0]
        inside = "-"
        if t0 and t1:
            inside = con.execute("select count(*) from step where t_end_ns > ? and t_end_ns <= ?",
                                 (t0, t1)).fetchone()[0]
        return inside, allc
    except Exception as e:
        return "error %s" % e, "-"


def figures(t):
    """The truth's own measurements, one line."""
    out = []
    g = lambda d, *ks: [d.get(k) for k in ks] if isinstance(d, dict) else []
    if t.get("latency_bound"):
        out.append("data_wait_share=%s worker_cpu_share=%s worker_batch_wall_ms=%s" %
                   tuple(g(t["latency_bound"], "data_wait_share", "worker_cpu_share", "worker_batch_wall_median_ms")))
    if t.get("offload"):
        out.append("gpu_phase_ms=%s host_phase_ms=%s host_phase_share=%s" %
                   tuple(g(t["offload"], "gpu_phase_median_ms", "host_phase_median_ms", "host_phase_share")))
    if "helper" in t:
        out.append("helper_cpu_pct=%s" % (t["helper"] or {}).get("cpu_pct_of_core"))
    if t.get("compile"):
        c = t["compile"]
        out.append("first_visits=%d revisits=%s first_visit_ms=%s revisit_ms=%s first_visit_share=%s graphs=%s" % (
            len(c.get("first_visit_steps") or []), c.get("revisit_steps"), c.get("first_visit_step_median_ms"),
            c.get("revisit_step_median_ms"), c.get("first_visit_time_share"), c.get("unique_graphs_in_window")))
    if "compile_error" in t and t["compile_error"]:
        out.append("COMPILE_ERROR=%s" % t["compile_error"][:120])
    if t.get("power"):
        out.append("power_w=%s frac_of_limit=%s (%s)" %
                   tuple(g(t["power"], "median_w", "median_frac_of_limit", "source")))
    if t.get("serving"):
        out.append("busy_share=%s requests=%s bursts=%s p99_ms=%s" %
                   tuple(g(t["serving"], "busy_share", "requests_served", "bursts_in_window", "latency_p99_ms")))
    if t.get("params", {}).get("sdpa_backend"):
        out.append("sdpa=%s" % t["params"]["sdpa_backend"])
    return "; ".join(out)


print("%-17s %-7s %-6s %-5s %-11s %-15s %-5s %-28s %s" % (
    "scenario", "exit", "wall_s", "truth", "hook_steps", "verdict", "right", "expected", "findings (class conf)"))
lines = []
for arg in sys.argv[2:]:
    name, rc, wall = arg.split(":")
    if rc == "skipped":
        print("%-17s skipped: out of time" % name)
        continue
    t = load(os.path.join(w, name + ".truth.json")) or {}
    r = load(os.path.join(w, name + ".report.json")) or {}
    db = os.path.join(w, name + ".db")
    ntruth = len([s for s in t.get("steps", []) if s.get("kind", "train") == "train"])
    inside, allc = hook_steps(db, t.get("started_ns"), t.get("ended_ns")) if os.path.exists(db) else ("-", "-")
    exp = t.get("expected_classes") or []
    verdict = r.get("verdict", "-")
    right = "-" if not r else ("yes" if (verdict in exp) else "NO")
    finds = " ".join("%s %.2f" % (f.get("class"), f.get("confidence") or 0) for f in r.get("findings", [])) or "-"
    print("%-17s %-7s %-6s %-5s %-11s %-15s %-5s %-28s %s" % (
        name, rc, wall, ntruth if t else "-", "%s/%s" % (inside, allc), verdict, right, ",".join(exp) or "-", finds))
    p = (r.get("gpus") or [{}])[0].get("profile", {}) if r else {}
    lines.append("  %-15s truth status=%s lost_share=%s util=%s sm=%s occ=%s dram=%s power=%s/%s W period=%s | %s" % (
        name, t.get("status", "MISSING"), r.get("lost_share_of_active"), p.get("util_median_pct"),
        p.get("sm_active_median_pct"), p.get("occupancy_median_pct"), p.get("dram_bw_median_pct"),
        p.get("power_median_w"), p.get("power_limit_w"), p.get("period_s"), figures(t)))
print()
print("hook_steps: the recording's step rows (Python hook: optimizer steps) inside the truth's steady window / all;")
print("bursty_serving has no optimizer and no DataLoader, so none; offload_accum's optimizer is on the CPU (one step")
print("per optimizer step, as in the truth). right: the verdict is one of the truth's expected classes.")
print("healthy_midpower*: the 60-80%-of-the-power-limit case only where power frac_of_limit is 0.60-0.80.")
print()
print("\n".join(lines))
PY
cat "$out/summary.txt" | tee -a "$log"
for f in "$w"/*.report.txt; do
  [ -f "$f" ] || continue
  echo "===== $(basename "$f" .report.txt)"
  cat "$f"
done > "$out/reports.txt"
cp "$out/summary.txt" "$w/summary.txt"
pack
rm -rf "$w"
say "done in $(($(date +%s) - start_s)) s; files: $(ls "$out" | tr '\n' ' ')"
