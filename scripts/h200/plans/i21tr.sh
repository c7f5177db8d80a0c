#!/usr/bin/env bash
# Issue 21 on ONE H200 (about 3 minutes): the hook_suite's small-batch programs (small_batch and the sweep points)
# recorded again with the sampled tracer on (`record --trace`, default windows) beside GPM, so that each file keeps
# the kernel launch configurations a GPU without GPM would have to go on. Through the suite runner as i20d (Python
# hook on, 6 s of steady state, truth file beside each); then i20b_check.py's step and batch check.
# I21TR_RECORD_OPTS replaces the record options (default "--trace"; "--trace --no-python-hook" records the programs
# as tests/fixtures/scenarios holds them, without the hook's steps), I21TR_NAMES the programs.
# usage: scripts/h200/run.sh i21tr OUT   (from the repo root; build-dev prebuilt; no set -e)
# Output under OUT: log.txt, batch.txt, recordings.tar.gz.
set -u
. scripts/h200/lib/plan_start.sh
plan_start i21tr "${1:?usage: i21tr.sh OUT}"
rec=$w/rec
mkdir -p "$rec"
export SCN_RECORD_OPTS="${I21TR_RECORD_OPTS:---trace}"
# shellcheck disable=SC2086 # the names split on purpose
plan_record_scenarios "$rec" "${I21TR_BUDGET_S:-200}" ${I21TR_NAMES:-small_batch sweep_bs32 sweep_bs64 sweep_bs128 \
  sweep_bs256 sweep_bs512 sweep_bs1024 sweep_bs2048}
python3 scripts/h200/plans/i20b_check.py batch "$rec"/*.db > "$out/batch.txt" 2>&1
plan_pack_recordings rec
ls -la "$rec" >> "$log"
cat "$out/batch.txt"
say "all done in $(elapsed)s"
