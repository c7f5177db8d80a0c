#!/bin/bash
# Issue 19 (branch i19b): the GPU backend interface on a real H200.
# 1. `gpuwhy check` and `gpuwhy record` through the NVML backend (now behind
#    lib/sources/gpu_backend.h) still see the GPU and its metrics;
# 2. the recording of a real small-batch run, replayed through record with
#    GPUWHY_GPU_BACKEND=replay:, reports the same verdict and findings.
# Usage: scripts/h200/plans/19b.sh OUTDIR   (repo root; build-dev/gpuwhy prebuilt; ~3 minutes)
out=${1:?usage: 19b.sh OUTDIR}
mkdir -p "$out"
bin=build-dev/gpuwhy
log="$out/plan19b.log"
exec > >(tee -a "$log") 2>&1
echo "== $(date -u) $(git rev-parse --short HEAD 2>/dev/null)"
work=$(mktemp -d)

echo "== check (NVML backend)"
$bin check --json >"$out/check.json" 2>"$work/check.err"
echo "check rc=$? $(head -c 300 "$work/check.err")"

echo "== record a real small-batch run (NVML backend), 60 s"
timeout 240 $bin record -o "$work/real.db" --interval 100 -- python3 scenarios/small_batch.py --duration 60
echo "record rc=$?"
sqlite3 "$work/real.db" "select count(*), count(sm_active_pct), count(power_mw) from gpu_sample; select name, driver_version from gpu, run" 2>&1
$bin report --format json "$work/real.db" >"$out/real.json"
echo "real report rc=$?"

echo "== replay it through record (replay backend), the same span"
span=$(sqlite3 "$work/real.db" "select (max(t_ns) - min(t_ns)) / 1000000000 + 2 from gpu_sample")
GPUWHY_GPU_BACKEND="replay:$work/real.db" timeout 240 $bin record -o "$work/replayed.db" --interval 100 -- sleep "${span:-60}"
echo "replay record rc=$?"
$bin report --format json "$work/replayed.db" >"$out/replayed.json"
echo "replayed report rc=$?"
python3 - "$out/real.json" "$out/replayed.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
fa = [f["class"] for f in a["findings"]]
fb = [f["class"] for f in b["findings"]]
print("real    ", a["verdict"], fa, a["gpus"][0]["profile"])
print("replayed", b["verdict"], fb, b["gpus"][0]["profile"])
print("SAME verdict and findings" if (a["verdict"], fa) == (b["verdict"], fb) else "DIFFERENT verdict or findings")
PY
tar -C "$work" -czf "$out/recordings.tar.gz" real.db replayed.db 2>&1
rm -rf "$work"
echo "== done $(date -u)"
