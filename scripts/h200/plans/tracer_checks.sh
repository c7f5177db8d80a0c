#!/usr/bin/env bash
# The tracer on the GPU: a traced program that crashes mid-run (full and
# sampled mode), one where CUPTI cannot start, one that also runs
# torch.profiler, and a traced scenario; one line each in OUT/tracer_checks.txt.
# usage: scripts/h200/run.sh tracer_checks OUT
set -u
out=$1
w=/tmp/gw_tracer_checks
rm -rf "$w" && mkdir -p "$w"
timeout 240 bash scripts/h200/lib/tracer_checks.sh "$PWD/build-dev/gpuwhy" "$w" 2>&1 | tee "$out/tracer_checks.txt"
tar -C "$w" -czf "$out/tracer_checks_recordings.tgz" .
rm -rf "$w"
