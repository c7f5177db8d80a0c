#!/usr/bin/env bash
# The disk fills up while gpuwhy records: the command keeps running and its
# exit status comes back, the samples committed before the fault stay in a
# readable recording, the problem is said once, and writing resumes when
# space comes back. Needs root for a small tmpfs (skipped otherwise). The
# fake GPU's rows, written every tick, fill the disk (the host is sampled
# only once a second).
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}"
export GPUWHY_NVML_LIB=$GW_FAKE_NVML

[ "$(id -u)" -eq 0 ] || {
  echo "skipped: mounting a 1 MiB tmpfs needs root"
  exit 77
}
mnt=$SCRATCH/small
mkdir "$mnt"
mount -t tmpfs -o size=1m gpuwhy-disk-full "$mnt" 2>/dev/null || {
  echo "skipped: cannot mount a tmpfs here (no CAP_SYS_ADMIN?)"
  exit 77
}
trap 'umount "$mnt" 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
# ms since the epoch, for comparing with the recording's t_ns
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# A filler leaves about 400 KiB, 370 KiB of it for the WAL (the -shm takes
# 32): the schema's commit takes 240 KiB of it (some 60 tables and indexes,
# a page each), then each second's commit 45 KiB, or 60 with the thread
# sampler's rows (its two tables and index: three more pages a commit). So
# the first one or two seconds are kept and the disk is full by the third.
# With 300 KiB left (a 700 KiB filler) the very first commit of samples no
# longer fits once thread rows are in it: it is rolled back, first host
# sample included, and the recording keeps only a later stretch that does not
# begin at a host sample, which is not what this part is about.
dd if=/dev/zero of="$mnt/filler" bs=1k count=620 status=none
set +e
timeout 60 "$GW_BIN" record --interval 10 -o "$mnt/full.db" -- \
  sh -c 'sleep 6; echo "ran to its end" > "$0"; exit 7' "$SCRATCH/target.out" 2>err.txt
rc=$?
set -e
cat err.txt >&2
assert_eq "exit status of the command, passed through" "$rc" 7
[ -s target.out ] || fail "the command did not run to its end"
grep -q 'AddressSanitizer\|runtime error\|LeakSanitizer' err.txt && fail "sanitizer report"
assert_eq "messages about the full disk (said once)" "$(grep -c 'disk is full' err.txt)" 1
grep -q 'recording continues' err.txt || fail "the message does not say that recording goes on"
assert_eq "recording still consistent" "$(q "$mnt/full.db" 'pragma integrity_check')" ok
kept=$(q "$mnt/full.db" 'select count(*) from gpu_sample')
assert_ge "GPU samples kept before the disk filled" "$kept" 50
span_ms=$(q "$mnt/full.db" 'select (max(t_ns) - min(t_ns)) / 1000000 from gpu_sample')
[ "$span_ms" -lt 5000 ] || fail "samples cover $span_ms ms: the disk never filled, the test proves nothing"
# The host samples of that stretch are kept too: once a second, from its
# first tick to its last second.
assert_eq "host sample at the first tick" \
  "$(q "$mnt/full.db" 'select min(t_ns) = (select min(t_ns) from gpu_sample) from host_sample')" 1
assert_eq "host samples kept not about a second apart" "$(host_gaps "$mnt/full.db")" 0
host_lag_ms=$(q "$mnt/full.db" 'select ((select max(t_ns) from gpu_sample) - max(t_ns)) / 1000000 from host_sample')
[ "$host_lag_ms" -le 1500 ] || fail "the last host sample kept is $host_lag_ms ms before the last GPU sample kept"
"$GW_BIN" report "$mnt/full.db" >report.txt || fail "report on the cut recording exited $?"
grep -q 'Verdict' report.txt || fail "report has no verdict"

# Space comes back mid-run: commits work again and the samples after that
# moment are kept (the outage itself is lost, nothing after it).
rm -f "$mnt"/full.db*
dd if=/dev/zero of="$mnt/filler" bs=1k count=700 status=none
(
  sleep 4
  now_ms >"$SCRATCH/freed_ms"
  rm -f "$mnt/filler"
) &
set +e
timeout 60 "$GW_BIN" record --interval 20 -o "$mnt/back.db" -- sh -c 'sleep 7; exit 3' 2>err2.txt
rc=$?
set -e
wait
cat err2.txt >&2
assert_eq "exit status with space coming back" "$rc" 3
assert_eq "messages about the full disk" "$(grep -c 'disk is full' err2.txt)" 1
freed_ms=$(cat freed_ms)
after=$(q "$mnt/back.db" "select count(*) from gpu_sample where t_ns / 1000000 > $freed_ms + 1200")
assert_ge "GPU samples kept after space came back (about 1.5 s at 20 ms)" "$after" 40
# The host's too: one or two once-a-second samples, and the closing one.
after=$(q "$mnt/back.db" "select count(*) from host_sample where t_ns / 1000000 > $freed_ms + 1200")
assert_ge "host samples kept after space came back" "$after" 2
assert_eq "recording still consistent" "$(q "$mnt/back.db" 'pragma integrity_check')" ok
echo "1 passed, 0 failed"
