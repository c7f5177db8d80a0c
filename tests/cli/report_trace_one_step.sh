#!/bin/bash
# gpuwhy report TRACE imports and reports in one step: a torch.profiler trace,
# an nvidia-smi log and a folder of per-rank traces give the same verdict as
# import then report; the temporary recording is gone afterwards; a file that
# is neither a recording nor an importable trace is refused, naming it.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
in=$GW_FIXTURES/import
for input in "$in/h200_launch_tiny_ops.json.gz" "$in/h200_input_pageable_copies.json.gz" "$in/h200_dmon_pucvmet.txt" \
  "$in/ranks"; do
  name=$(basename "$input")
  "$GW_BIN" import -q "$input" -o "$name.db" || fail "import of $name exited $?"
  "$GW_BIN" report --format json "$name.db" >two_steps.json || fail "report of the imported $name exited $?"
  "$GW_BIN" report --format json "$input" >one_step.json 2>one_step.err || fail "report $name exited $?: $(cat one_step.err)"
  grep -q "imported .*$name" one_step.err || fail "report $name does not say it imported: $(cat one_step.err)"
  same_findings "$name" two_steps.json one_step.json || fail "$name: one step and two steps differ"
  # to a file, then its first line: head closing the pipe early made the report exit on SIGPIPE (pipefail)
  "$GW_BIN" report "$input" >one_step.txt 2>/dev/null || fail "text report $name exited $?"
  head -1 one_step.txt | grep -q "gpuwhy report: $name" || fail "the text report of $name is not titled with its name"
  assert_eq "files left in TMPDIR after reporting $name" "$(ls -A "$TMPDIR" | wc -l)" 0
done

echo 'not a trace' >junk.txt
set +e
"$GW_BIN" report junk.txt 2>junk.err
rc=$?
set -e
assert_eq "exit status for a file that is no trace" "$rc" 3
grep -q "junk.txt is neither a gpuwhy recording nor a trace gpuwhy can import" junk.err || fail "unclear: $(cat junk.err)"
assert_eq "files left in TMPDIR after a refused input" "$(ls -A "$TMPDIR" | wc -l)" 0
echo "1 passed, 0 failed"
