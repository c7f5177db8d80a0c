#!/usr/bin/env bash
# Run on the GPU machine: real Kineto traces (one process, and two ranks under
# torchrun) and nvidia-smi logs in the formats gpuwhy import reads, taken while
# the GPU is loaded. usage: capture_h200.sh OUTDIR  (writes OUTDIR/capture.tar.gz)
set -u
out=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
mkdir -p "$work/ranks" "$out"
cd "$work"
nvidia-smi dmon -s pucvmet -c 8 >dmon_pucvmet.txt 2>&1 &
nvidia-smi dmon -s pucvmet -o DT -c 8 >dmon_pucvmet_dt.txt 2>&1 &
nvidia-smi dmon -s pucvmet --format csv -c 8 >dmon_pucvmet.csv 2>&1 &
nvidia-smi dmon -c 8 >dmon_default.txt 2>&1 &
timeout 9 nvidia-smi --query-gpu=timestamp,index,name,pci.bus_id,uuid,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,power.limit,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,temperature.memory,pstate,clocks_event_reasons.active,pcie.link.gen.current,pcie.link.width.current --format=csv -l 1 >query_gpu.csv 2>&1 &
python3 "$here/capture_trace.py" "$work/single.json" 8 >single.log 2>&1
NCCL_NVLS_ENABLE=0 timeout 120 torchrun --standalone --nproc_per_node=2 "$here/capture_trace.py" "$work/ranks/rank.json" >ranks.log 2>&1
wait
ls -la "$work" "$work/ranks" >listing.txt 2>&1
nvidia-smi -q -d PERFORMANCE >smi_performance.txt 2>&1
tar czf "$out/capture.tar.gz" -C "$work" .
