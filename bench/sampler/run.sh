#!/usr/bin/env bash
# bench/sampler: CPU cost of gpuwhy record at 10 Hz and at 1 Hz beside
# nvidia-smi dmon -s pucvmet at 1 Hz, over the same minute, on a busy GPU.
# usage: bench/sampler/run.sh GPUWHY_BIN OUTDIR [SECONDS]
set -u
bin=$1 out=$2 secs=${3:-60}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
python3 "$here/gpu_load.py" $((secs + 10)) > "$out/load.log" 2>&1 &
load=$!
sleep 5
python3 "$here/cputime.py" "gpuwhy record 10 Hz" "$bin" record -q --interval 100 --duration "$secs" --pid "$load" -o "$out/bench_10hz.db" > "$out/r10.txt" &
p1=$!
python3 "$here/cputime.py" "gpuwhy record 1 Hz" "$bin" record -q --interval 1000 --duration "$secs" --pid "$load" -o "$out/bench_1hz.db" > "$out/r1.txt" &
p2=$!
python3 "$here/cputime.py" "nvidia-smi dmon -s pucvmet 1 Hz" nvidia-smi dmon -s pucvmet -d 1 -c "$secs" > "$out/dmon.txt" &
p3=$!
wait $p1 $p2 $p3
cat "$out/r10.txt" "$out/r1.txt" "$out/dmon.txt" | tee "$out/sampler_bench.txt"
for f in bench_10hz bench_1hz; do
  echo "$f: $(python3 "$here/../../scripts/dbq.py" "$out/$f.db" "select 'ticks ' || value from meta where key='recorder_ticks'") $(python3 "$here/../../scripts/dbq.py" "$out/$f.db" "select 'late ' || value from meta where key='recorder_ticks_late'") size $(stat -c %s "$out/$f.db") bytes" | tee -a "$out/sampler_bench.txt"
done
wait $load
