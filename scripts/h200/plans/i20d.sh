#!/usr/bin/env bash
# Issue 20 on ONE H200 (about 3 minutes): the eight hook_suite recordings that still lack batch sizes, recorded
# again with the hook that reads a step's batch from its training forward (hook_suite's others were re-recorded
# that way in sessions 9 and 10). Plain `gpuwhy record --interval 100` through the suite runner, 6 s of steady
# state each, the truth file beside each recording; hardware_xid is given its three injected Xids as before.
# Then scripts/h200/plans/i20b_check.py: steps inside each truth window and batch sizes against the truths.
# Copy the recordings into tests/fixtures/hook_suite (checkpoint the write-ahead log, journal_mode=DELETE).
# usage: scripts/h200/run.sh i20d OUT   (from the repo root; build-dev prebuilt; no set -e)
# Output under OUT: log.txt, batch.txt, recordings.tar.gz.
set -u
. scripts/h200/lib/plan_start.sh
plan_start i20d "${1:?usage: i20d.sh OUT}"
rec=$w/rec
mkdir -p "$rec"
# shellcheck disable=SC2086 # the names split on purpose
plan_record_scenarios "$rec" "${I20D_BUDGET_S:-200}" ${I20D_NAMES:-sweep_bs32 sweep_bs64 sweep_bs128 sweep_bs512 \
  sweep_bs1024 sweep_bs2048 input_pageable_copies hardware_xid}
python3 scripts/h200/plans/i20b_check.py batch "$rec"/*.db > "$out/batch.txt" 2>&1
plan_pack_recordings rec
cat "$out/batch.txt"
say "all done in $(elapsed)s"
