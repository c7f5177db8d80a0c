#!/usr/bin/env bash
# Device call: API records and detaching in sampled windows (storm, 5 s):
# full mode; sampled with the first window at start and after 2 s, with
# and without detaching, per-function or whole API kinds. Each line: windows,
# kernels, API records, the tracer's notes (GPUWHY_TRACE_DEBUG=1 adds one per
# detach with cuptiFinalize's time), and the storm's step times.
# usage: scripts/h200/run.sh diag_api OUT
set -u
out=$1; bin=$PWD/build-dev/gpuwhy; w=/tmp/gw_d; rm -rf $w; mkdir -p $w
one() { label=$1; mode=$2; shift 2
  local t
  t=$(env GPUWHY_TRACE_DEBUG=1 "$@" "$bin" record -q --trace=$mode -o $w/$label.db -- python3 bench/tracer/storm.py --workload storm --seconds 5 2>$w/$label.err | tail -1)
  python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); q=lambda s: c.execute(s).fetchone()[0]; print(sys.argv[2], "windows", q("select count(*) from trace_window"), "kernels", q("select count(*) from kernel"), "api", q("select count(*) from api"), "notes", [r[3] for r in c.execute("select * from trace_note")])' $w/$label.db $label | tee -a $out/diag.txt
  echo "   $t" | tee -a $out/diag.txt
}
one s_delay0 sampled GPUWHY_TRACE_FIRST_DELAY_MS=0 GPUWHY_TRACE_WINDOW_MS=1000 GPUWHY_TRACE_PERIOD_MS=2000
one s_delay2 sampled GPUWHY_TRACE_FIRST_DELAY_MS=2000 GPUWHY_TRACE_WINDOW_MS=500 GPUWHY_TRACE_PERIOD_MS=1000
