#!/usr/bin/env bash
# The tracer on the GPU (about 4 minutes): a traced program that crashes mid-run (full and sampled mode), one where
# CUPTI cannot start, one that also runs torch.profiler, and a traced scenario; one line each in
# OUT/tracer_checks.txt, the recordings in OUT/tracer_checks_recordings.tgz (docs/RELIABILITY.md's tracer rows).
# usage: scripts/h200/run.sh tracer_checks OUT
set -u
. scripts/h200/lib/plan_start.sh
plan_start tracer_checks "${1:?usage: tracer_checks.sh OUT}"
timeout 240 bash scripts/h200/lib/tracer_checks.sh "$bin" "$w/checks" 2>&1 | tee "$out/tracer_checks.txt"
tar -C "$w/checks" -czf "$out/tracer_checks_recordings.tgz" .
say "all done in $(elapsed)s"
