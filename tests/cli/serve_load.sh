#!/usr/bin/env bash
# gpuwhy serve under load, shortened from bench/serve/run.sh: 10 s of 4
# scrapers in a closed loop beside 3 slow clients (a request trickled byte by
# byte, half a request then silence, pipelined requests whose answers are not
# read) and a sender of malformed requests. Every well-formed scrape must be
# answered 200 with a page in exposition format, the trickled request too, the
# stalled clients must be hung up on, and the server must stop cleanly on
# SIGTERM with no sanitizer report (LeakSanitizer runs at its exit).
# RSS may grow by at most 8 MiB after the first 3 s: the server's state is
# bounded (one cached page of about 22 KB, at most 16 connections of 32 KiB,
# a 10 s window), and with at least 2000 scrapes asserted, keeping even 4 KiB
# per scrape (a fifth of the page) would pass that bound. Leaks of unreachable
# memory are LeakSanitizer's to find; this catches memory that stays reachable.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}"
# ASan keeps freed memory in a quarantine (256 MiB by default), which would
# read as growth; 1 MiB lets RSS show live memory. Ignored without ASan.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1
set +e
python3 "$GW_SOURCE_DIR/bench/serve/load.py" --gpuwhy "$GW_BIN" --replay "$GW_FIXTURES/scenarios/hardware_xid.db" \
  --duration 10 --warmup 3 --scrapers 4 --slow 3 --malformed 1 --trickle 0.05 --json load.json \
  -- --interval 1000 --window 10 >load.txt 2>&1
rc=$?
set -e
cat load.txt
if [ $rc -ne 0 ] && grep -q "without libmicrohttpd" load.txt; then
  echo "skipped: built without libmicrohttpd"
  exit 77
fi
[ $rc -eq 0 ] || fail "load.py failed (exit $rc)"
# load.py already failed on any unanswered scrape; check its figures here too.
read -r ok failed growth trickled <<<"$(python3 -c '
import json, sys
r = json.load(open("load.json"))
print(r["scrapes_ok"], r["scrapes_failed"], r["rss_kib"]["growth_after_warmup"],
      r["slow"].get("trickle", {}).get("answered 200", 0))')"
assert_eq "well-formed scrapes not answered" "$failed" 0
assert_ge "well-formed scrapes answered" "$ok" 2000
assert_ge "trickled requests answered" "$trickled" 1
awk -v g="$growth" 'BEGIN { exit !(g < 8192) }' || fail "RSS grew by $growth KiB after warm-up (bound 8192 KiB)"
echo "1 passed, 0 failed"
