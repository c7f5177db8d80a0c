#!/usr/bin/env bash
# bench/serve: gpuwhy serve under load on loopback (bench/serve/load.py): N
# scrapers of /metrics in a closed loop, M slow clients, K senders of
# malformed requests, for a bounded time; prints scrapes per second held, the
# latency of well-formed scrapes, how many were answered, and the server's RSS
# over time. Exits 1 when a well-formed scrape went unanswered.
# usage: bench/serve/run.sh GPUWHY_BIN [SECONDS [SCRAPERS [SLOW [MALFORMED]]]]
#   defaults: 60 s, 8 scrapers, 3 slow clients, 2 malformed senders: 13 of the
#   16 connections gpuwhy serve allows by default (docs/RELIABILITY.md).
# The page is rebuilt every second (--interval 1000, the default is 5000) and
# the window is 10 s, so that it is full, and RSS should be flat, after 20 s.
set -eu
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
secs=${2:-60}
exec python3 "$here/load.py" --gpuwhy "$bin" --replay "$here/../../tests/fixtures/scenarios/hardware_xid.db" \
  --duration "$secs" --warmup 20 --scrapers "${3:-8}" --slow "${4:-3}" --malformed "${5:-2}" \
  ${GW_LOAD_JSON:+--json "$GW_LOAD_JSON"} -- --interval 1000 --window 10
