#!/usr/bin/env bash
# Issue 20 on one H200 (at most 9 minutes): the Python step hook.
#  1. scenarios recorded with the hook (steps vs truth, batch sizes):
#     healthy, input_cpu_transforms, launch_tiny_ops, small_batch, worked_case s0, s3
#  2. torchrun --nproc_per_node=2 of a tiny DDP program (gloo, both ranks on cuda:0): steps for both ranks
#  3. the hook's cost: bench/tracer/storm.py (storm and train) plain vs hook, interleaved, best-of-N and mean
#  4. if built: gpuwhy experiment fixed-batch on input_cpu_transforms and healthy
# usage: scripts/h200/plans/i20.sh OUTDIR   (from the repo root; build-dev/gpuwhy prebuilt)
# Output under OUTDIR: i20.log (everything), summary.txt, cost.txt, fixed_batch.txt, recordings.tar.gz
set -u
out=${1:?usage: i20.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$PWD/build-dev/gpuwhy
rec=$out/rec
mkdir -p "$rec"
log=$out/i20.log
say() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$log"; }
say "host $(hostname) gpuwhy $bin; hook folder: $(ls -d build-dev/python/gpuwhy_hook 2>&1)"
python3 -c 'import torch; print("torch", torch.__version__)' >> "$log" 2>&1
export SCN_DATA_DIR=/tmp/gpuwhy_i20_data
mkdir -p "$SCN_DATA_DIR"
DUR=${I20_DURATION:-10}

# 1. scenarios (arguments as in scenarios/run_suite.sh)
scen() { # name expected script args...
  local name=$1 expected=$2 script=$3
  shift 3
  # I20_SCENARIOS="a b": only those (a shorter call)
  if [ -n "${I20_SCENARIOS:-}" ]; then case " $I20_SCENARIOS " in *" $name "*) ;; *) return ;; esac; fi
  say "--- $name"
  timeout -k 10 120 "$bin" record -q -o "$rec/$name.db" --interval 100 -- python3 -u "scenarios/$script" \
    --out "$rec/$name.truth.json" --duration "$DUR" --scenario-name "$name" --expected-class "$expected" "$@" \
    >> "$log" 2>&1
  say "    rc=$?"
}
scen healthy none healthy.py
scen input_cpu_transforms input_pipeline input_cpu_transforms.py
scen launch_tiny_ops launch_overhead launch_overhead.py
scen small_batch small_batch small_batch.py --batch-size 4
scen worked_case_s0 input_pipeline,launch_overhead,schedule_shape worked_case.py --stage 0
scen worked_case_s3 none worked_case.py --stage 3

# 2. two DDP ranks on the one GPU
say "--- ddp_tiny (torchrun, 2 ranks)"
timeout -k 10 90 "$bin" record -q -o "$rec/ddp_tiny.db" -- torchrun --standalone --nproc_per_node=2 \
  scripts/h200/plans/i20_ddp_tiny.py --seconds 10 >> "$log" 2>&1
say "    rc=$?"

python3 scripts/h200/plans/i20_summary.py "$rec"/*.db > "$out/summary.txt" 2>&1
# reports and compare with no truth files beside the recordings (steps from the hook only)
mkdir -p "$out/notruth"
for f in "$rec"/*.db; do cp "$f" "$out/notruth/"; done
for n in healthy input_cpu_transforms worked_case_s0 ddp_tiny; do
  echo "===== report $n" >> "$out/summary.txt"
  timeout 60 "$bin" report "$out/notruth/$n.db" >> "$out/summary.txt" 2>&1
done
echo "===== compare worked_case_s0 worked_case_s3 (no truth files)" >> "$out/summary.txt"
timeout 60 "$bin" compare "$out/notruth/worked_case_s0.db" "$out/notruth/worked_case_s3.db" >> "$out/summary.txt" 2>&1
rm -rf "$out/notruth"
say "summary written"

# 3. the hook's cost, with no recorder: the same program with and without the hook on PYTHONPATH
hook_dir=$PWD/build-dev/python/gpuwhy_hook
spool=$(mktemp -d)
pin="taskset -c 2,3"
command -v taskset > /dev/null || pin=""
: > "$out/cost.txt"
for r in $(seq 1 "${I20_COST_ROUNDS:-3}"); do
  for w in ${I20_COST_WORKLOADS:-train storm}; do
    for cfg in plain hook; do
      if [ $cfg = plain ]; then
        line=$(timeout 60 $pin python3 bench/tracer/storm.py --workload $w --seconds 5 2>> "$log" | tail -1)
      else
        line=$(PYTHONPATH=$hook_dir GPUWHY_PY_SPOOL_DIR=$spool timeout 60 $pin python3 bench/tracer/storm.py \
          --workload $w --seconds 5 2>> "$log" | tail -1)
      fi
      echo "round $r $w $cfg $line" | tee -a "$out/cost.txt" >> "$log"
    done
  done
done
echo "spool lines written by the hook runs: $(cat "$spool"/* 2>/dev/null | wc -l)" >> "$out/cost.txt"
rm -rf "$spool"
python3 - "$out/cost.txt" > "$out/cost_summary.tmp" << 'PY'
import collections, statistics, sys
mean, best = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 8 and p[4] == "mean_ms_per_step" and p[6] == "best_ms_per_step":
        mean[(p[2], p[3])].append(float(p[5]))
        best[(p[2], p[3])].append(float(p[7]))
for w in ("train", "storm"):
    pm, hm = mean[(w, "plain")], mean[(w, "hook")]
    if not pm or not hm:
        print(w, "missing runs")
        continue
    rel = [100 * (h / p - 1) for h, p in zip(hm, pm)]
    print("%-6s mean ms/step plain %s hook %s; hook vs plain per round %s, median %+.2f%%, mean of means %+.2f%%; "
          "best-of-N plain %.4f hook %.4f (%+.2f%%)" % (
              w, ["%.4f" % x for x in pm], ["%.4f" % x for x in hm], ["%+.2f%%" % x for x in rel],
              statistics.median(rel), 100 * (statistics.mean(hm) / statistics.mean(pm) - 1),
              min(best[(w, "plain")]), min(best[(w, "hook")]),
              100 * (min(best[(w, "hook")]) / min(best[(w, "plain")]) - 1)))
PY
cat "$out/cost_summary.tmp" >> "$out/cost.txt"
rm -f "$out/cost_summary.tmp"
say "cost measured"

# 4. fixed-batch, when this build has it
: > "$out/fixed_batch.txt"
if "$bin" experiment fixed-batch --help > /dev/null 2>&1; then
  for s in "input_cpu_transforms input_cpu_transforms.py" "healthy healthy.py"; do
    set -- $s
    say "--- fixed-batch $1"
    echo "===== fixed-batch $1" >> "$out/fixed_batch.txt"
    timeout -k 10 150 "$bin" experiment fixed-batch --seconds 30 -- python3 -u "scenarios/$2" \
      --out "$SCN_DATA_DIR/fb_$1.truth.json" --duration 12 >> "$out/fixed_batch.txt" 2>> "$log"
    echo "rc=$?" >> "$out/fixed_batch.txt"
  done
else
  echo "this build has no 'gpuwhy experiment fixed-batch'" >> "$out/fixed_batch.txt"
fi

tar -C "$rec" -czf "$out/recordings.tar.gz" . >> "$log" 2>&1
rm -rf "$rec"
say "done"
