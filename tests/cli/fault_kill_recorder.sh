#!/usr/bin/env bash
# gpuwhy itself dies mid-run. SIGKILL: the command it started goes on to its
# end (the recorder's death never takes the job down), and the cut recording
# still gives a report. SIGTERM: passed on to the command, which ends; the
# recording gets the end of the run and the command's status.
# (record_kill9.sh checks the samples kept up to the last second.)
. "$(dirname "$0")/lib.bash"
export GPUWHY_NVML_LIB=${GW_FAKE_NVML:-/nonexistent}

# Killed 2.5 s in: the first commits (about 1 and 2 s in) are on disk, with
# the host samples of 0 and 1 s (the host is sampled once a second).
"$GW_BIN" record -q -o cut.db -- sh -c 'sleep 4; echo "ran to its end" > "$0"' "$SCRATCH/target.out" &
rec=$!
sleep 2.5
kill -9 "$rec"
wait "$rec" 2>/dev/null || true
for _ in $(seq 60); do
  [ -s target.out ] && break
  sleep 0.1
done
[ -s target.out ] || fail "the command did not outlive the recorder killed with SIGKILL"
assert_ge "host samples of the cut run" "$(q cut.db 'select count(*) from host_sample')" 2
if [ -n "${GW_FAKE_NVML:-}" ]; then
  assert_ge "GPU samples of the cut run (every 100 ms)" "$(q cut.db 'select count(*) from gpu_sample')" 10
fi
assert_eq "the cut run has no end" "$(q cut.db 'select ended_ns is null from run')" 1
"$GW_BIN" report cut.db >cut.txt 2>cut.err || fail "report on the cut recording exited $?: $(cat cut.err)"
grep -q 'Verdict' cut.txt || fail "report on the cut recording has no verdict"
"$GW_BIN" report --format json cut.db | python3 -c 'import json, sys; json.load(sys.stdin)' ||
  fail "JSON report on the cut recording does not parse"

# SIGTERM: the command gets it too and its status (128 + 15) comes back.
"$GW_BIN" record -q -o term.db -- sleep 20 &
rec=$!
sleep 1.5
kill -TERM "$rec"
set +e
timeout 10 tail --pid="$rec" -f /dev/null
waited=$?
wait "$rec"
rc=$?
set -e
[ "$waited" -eq 0 ] || fail "gpuwhy did not stop within 10 s of SIGTERM"
assert_eq "status after SIGTERM" "$rc" 143
assert_eq "end of the run recorded with the status" "$(q term.db 'select exit_status from run where ended_ns is not null')" 143
echo "1 passed, 0 failed"
