#!/usr/bin/env bash
# Single-GPU scenarios recorded through scenarios/run_suite.sh, a report beside each, checked and packed.
# Each scenario runs once (6 s of steady state, the Python hook on, its truth file beside the recording) while the
# plan's clock is under RECORD_BUDGET_S; then lib/check_steps.py compares the hook's steps and batch sizes with each
# truth, and, for recordings that hold both GPM and a kernel trace, sm_compare.py compares the SM-activity
# substitutes with GPM per window. This is how the fixtures of tests/fixtures are made.
# Environment:
#   RECORD_NAMES      scenarios, or parts of the suite @1, @2, @3 (default: all three parts, every single-GPU scenario;
#                     `scenarios/run_suite.sh --list`)
#   RECORD_OPTS       `gpuwhy record` options (default "--trace"; e.g. "--no-gpm --trace", "--trace=full --pm-sampling",
#                     "--trace --no-python-hook" as tests/fixtures/scenarios holds them)
#   RECORD_BUDGET_S   seconds after which the remaining scenarios are skipped (default 480, for a 10-minute call)
#   RECORD_MAX_MB     recordings larger than this stay out of the tar (default 16: what one returned file may be)
# usage: scripts/h200/run.sh record_scenarios OUT
# Output under OUT: log.txt, steps.txt, sm_compare.txt, recordings.tar.gz (recordings, truths, reports, suite.log).
set -u
. scripts/h200/lib/plan_start.sh
plan_start record_scenarios "${1:?usage: record_scenarios.sh OUT}"
rec=$w/rec
mkdir -p "$rec"
export SCN_RECORD_OPTS="${RECORD_OPTS:---trace}"
names=
for n in ${RECORD_NAMES:-@1 @2 @3}; do
  case $n in
    # a part of the suite: its names, each then recorded under its own time limit
    @*) names="$names $(bash scenarios/run_suite.sh --list | awk -v h="${n#@}" 'NR > 1 && $NF == h { print $1 }')" ;;
    *) names="$names $n" ;;
  esac
done
say "record options: $SCN_RECORD_OPTS; scenarios: $names"
# shellcheck disable=SC2086 # the names split on purpose
plan_record_scenarios "$rec" "${RECORD_BUDGET_S:-480}" $names
python3 scripts/h200/lib/check_steps.py batch "$rec"/*.db > "$out/steps.txt" 2>&1
python3 scripts/h200/sm_compare.py --gpuwhy "$bin" "$rec"/*.db > "$out/sm_compare.txt" 2>&1
plan_pack_recordings rec "${RECORD_MAX_MB:-16}"
ls -la "$rec" >> "$log"
grep -c MISMATCH "$out/steps.txt" | sed 's/^/step or batch mismatches: /'
say "all done in $(elapsed)s"
