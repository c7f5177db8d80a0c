#!/usr/bin/env bash
# Issue 21: two recordings aimed at the diagnosis' weak spots, each with the
# truth the program writes, plus the report of each (about 3 minutes on one
# H200; never changes GPU settings).
#  1. shared_gpu: the healthy transformer with a neighbour process on the
#     same GPU (scenarios/gpu_neighbour.py at 50% duty, 4 GiB), started
#     beside `gpuwhy record`, not under it. The report must name the other
#     process (pid, memory) in its notes; the truth is hardware_env (the
#     environment holds the GPU back), as declared by --expected-class.
#  2. healthy_light: a lighter transformer (4 layers, d_model 768, batch 16)
#     that should sit well under the power limit: verdict none, no
#     small_batch (board power is not small_batch's gate any more).
# usage: scripts/h200/plans/i21.sh OUT
set -u
out=${1:?usage: i21.sh OUT}
mkdir -p "$out"
bin=$PWD/build-dev/gpuwhy
w=$(mktemp -d /tmp/gw_i21.XXXX)
log=$out/i21.log
export PYTHONUNBUFFERED=1
echo "start $(date -u)" > "$log"
nvidia-smi --query-gpu=index,name,driver_version,power.limit,power.default_limit --format=csv >> "$log" 2>&1

# 1. shared GPU
python3 -u scenarios/gpu_neighbour.py --duration 45 --duty 0.5 --mem-gib 4 > "$w/neighbour.log" 2>&1 &
npid=$!
sleep 5
echo "neighbour pid $npid" >> "$log"
timeout 150 "$bin" record --interval 100 -o "$w/shared_gpu.db" -- python3 -u scenarios/healthy.py \
  --out "$w/shared_gpu.truth.json" --duration 20 --scenario-name shared_gpu --expected-class hardware_env \
  --description-extra "Another process (scenarios/gpu_neighbour.py, pid $npid, bf16 GEMMs at 50% duty, 4 GiB) ran on the same GPU throughout, started outside the recorded job." \
  > "$w/shared_gpu.log" 2>&1
echo "shared_gpu: exit $?" >> "$log"
wait "$npid"; echo "neighbour exit $?" >> "$log"

# 2. a lighter healthy model
timeout 150 "$bin" record --interval 100 -o "$w/healthy_light.db" -- python3 -u scenarios/healthy.py \
  --out "$w/healthy_light.truth.json" --duration 20 --scenario-name healthy_light --expected-class none \
  --layers 4 --d-model 768 --heads 12 --batch-size 16 \
  --description-extra "A lighter model (4 layers, d_model 768, batch 16) meant to draw 60-80% of the power limit while still compute-bound." \
  > "$w/healthy_light.log" 2>&1
echo "healthy_light: exit $?" >> "$log"

for n in shared_gpu healthy_light; do
  { echo "=== $n"; "$bin" report "$w/$n.db" 2>&1; "$bin" report --format json "$w/$n.db" 2>&1 | \
      python3 -c 'import json,sys; r=json.load(sys.stdin); print("verdict", r["verdict"], [(f["class"], f["confidence"], f.get("speedup_max")) for f in r["findings"]])' 2>&1; } \
    >> "$out/reports.txt"
done
tar -C "$w" -czf "$out/i21_recordings.tar.gz" . >> "$log" 2>&1
echo "end $(date -u)" >> "$log"
