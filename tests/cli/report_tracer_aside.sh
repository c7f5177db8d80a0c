#!/bin/bash
# The report says when gpuwhy's tracer stood aside for another CUPTI client
# (torch.profiler): the tracer's "stood aside at" / "came back at" notes in
# trace_note become one report note with how often, when first, and how long
# in all (an episode still open at the end lasts to the end of the run).
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
cp "$GW_FIXTURES/scenarios/ddp_balanced.db" aside.db
"$GW_BIN" report --format json aside.db >before.json || fail "report exited $?"
grep -q 'stood aside' before.json && fail "a note about standing aside without any in the trace"
# The run starts at 1795985390912400550 and ends 45.8 s later. Rank 626 stood
# aside at 10 s and came back at 15 s; rank 671 stood aside at 20 s for good.
s=1795985390912400550
sqlite3 aside.db "insert into trace_note values ($s + 10000000000, 626, 'warn', 'stood aside at 5.4 s: another CUPTI client');
  insert into trace_note values ($s + 15000000000, 626, 'info', 'came back at 10.4 s: the other CUPTI client left after 5.000 s');
  insert into trace_note values ($s + 20000000000, 671, 'warn', 'stood aside at 11.0 s: another CUPTI client');
  insert into trace_note values ($s + 21000000000, 671, 'info', 'still standing aside at exit (since 11.0 s)');"
"$GW_BIN" report --format json aside.db >after.json || fail "report exited $?"
grep -q "stood aside for another CUPTI client (torch.profiler, Nsight) 2 time(s), first at 10.0 s, 30.8 s in all" \
  after.json || fail "no note, or other figures: $(grep -o '[^"]*stood aside[^"]*' after.json)"
"$GW_BIN" report aside.db | grep "stood aside" >/dev/null || fail "the text report does not say it"
