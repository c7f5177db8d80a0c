#!/usr/bin/env bash
# MFU acceptance (issue 38) on a GPU machine: the three workloads of
# scenarios/mfu_check.py recorded by gpuwhy; prints, per workload, gpuwhy's
# counted FLOPs per step and MFU against the scenario's analytic count and
# its own step time. Passes when gpuwhy's FLOPs per step are within 10% of the
# analytic count and its achieved TFLOP/s within 10% of the scenario's.
#   scripts/h200/mfu_check.sh [GPUWHY_BIN] [SECONDS]    (default build/gpuwhy, 20)
set -u
GW=${1:-build/gpuwhy}
SECS=${2:-20}
OUT=${OUT:-mfu_check_out}
mkdir -p "$OUT"
status=0
for model in transformer resnet mlp; do
  "$GW" record -q -o "$OUT/$model.db" -- python3 scenarios/mfu_check.py --model "$model" --seconds "$SECS" \
    > "$OUT/$model.out" || { echo "$model: record failed"; status=1; continue; }
  "$GW" report --format json "$OUT/$model.db" > "$OUT/$model.json" || { echo "$model: report failed"; status=1; continue; }
  python3 - "$model" "$OUT/$model.out" "$OUT/$model.json" <<'PY' || status=1
import json, sys
model, out, rep = sys.argv[1:4]
kv = dict(line.split(None, 1) for line in open(out) if " " in line)
analytic = float(kv["analytic_flops_per_step"])
step_s = float(kv["measured_step_s"])
d = json.load(open(rep))
m = (d["mfu"] or [{}])[0]
if not m.get("measured"):
    print("%s: gpuwhy MFU not measured: %s" % (model, d.get("mfu_note")))
    sys.exit(1)
peak = m["peak_tflops_dense"]
an_tflops = analytic / step_s / 1e12
flops_err = m["flops_per_step"] / analytic - 1
rate_err = m["achieved_tflops"] / an_tflops - 1
print("%s on %s: gpuwhy %.4g FLOPs/step vs analytic %.4g (%+.1f%%); achieved %.1f vs %.1f TFLOP/s (%+.1f%%); "
      "MFU gpuwhy %.1f%% vs analytic %.1f%% of %.0f TFLOP/s dense %s; at the run's %s MHz clock %s; "
      "counted step cost %s; step %.2f ms (scenario) vs %.2f ms (hook)" % (
          model, kv.get("device", "?").strip(), m["flops_per_step"], analytic, 100 * flops_err, m["achieved_tflops"],
          an_tflops, 100 * rate_err, 100 * (m["mfu"] or 0), 100 * an_tflops / peak if peak else float("nan"),
          peak or 0, m["dtype"], m["run_clock_mhz"],
          "%.1f%%" % (100 * m["mfu_at_run_clock"]) if m["mfu_at_run_clock"] is not None else "-",
          "%+.0f%%" % (100 * m["counting_cost_share"]) if m["counting_cost_share"] is not None else "-",
          step_s * 1e3, m["step_s"] * 1e3))
sys.exit(0 if abs(flops_err) <= 0.10 and abs(rate_err) <= 0.10 else 1)
PY
done
exit $status
