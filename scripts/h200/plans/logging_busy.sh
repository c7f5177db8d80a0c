#!/usr/bin/env bash
# What a busy helper thread costs the training loop, and what the report makes of it (about 2 minutes on ONE H200):
# the healthy transformer with its metrics helper thread at 0, 30, 60 and 90% of a core (LOGGING_BUSY_PCTS replaces
# the levels; scenarios/logging_thread.py), plain `gpuwhy record --interval 100` (no trace, as most users record;
# LOGGING_BUSY_RECORD_OPTS adds options, e.g. --trace),
# 8 s of steady state each, truth beside each.
# The step time in each truth says what the helper cost; the report says what gpuwhy made of it.
# Files under OUT: summary.txt (threads_summary.py: CPU medians, step median, verdict), log.txt, recordings.tar.gz
# (the recordings, their truths and rec/reports.txt, the text report of each).
# usage: scripts/h200/run.sh logging_busy OUT   (from the repo root; build-dev prebuilt; no set -e)
set -u
. scripts/h200/lib/plan_start.sh
plan_start logging_busy "${1:?usage: logging_busy.sh OUT}"
rec=$w/rec
mkdir -p "$rec"
# shellcheck disable=SC2086 # the levels split on purpose
for pct in ${LOGGING_BUSY_PCTS:-0 30 60 90}; do
  name=logging_helper_$pct
  # shellcheck disable=SC2086 # the options split on purpose
  timeout -k 5 70 "$bin" record --interval 100 ${LOGGING_BUSY_RECORD_OPTS:-} -o "$rec/$name.db" -- \
    python3 -u scenarios/logging_thread.py \
    --out "$rec/$name.truth.json" --duration 8 --helper-cpu-pct "$pct" --scenario-name "$name" \
    > "$w/$name.log" 2>&1
  say "$name: rc=$?"
done
python3 scripts/h200/plans/threads_summary.py "$bin" "$rec"/*.db > "$out/summary.txt" 2>&1
cat "$out/summary.txt"
for db in "$rec"/*.db; do
  echo "=== $(basename "$db")"
  "$bin" report "$db" 2>&1
done > "$rec/reports.txt"
(cd "$w" && tar -czf "$out/recordings.tar.gz" rec) >> "$log" 2>&1
say "all done in $(elapsed)s"
