#!/usr/bin/env bash
# Every renderer on a recording made by today's `gpuwhy record` (fake NVML,
# host rows once a second), not only on the fixtures, which may carry an
# older recorder's rates: the program is a "trainer" whose child burns CPU
# the whole time (a loader worker) while it writes and syncs files, so the
# process and disk series hold data. Text, Markdown, JSON and HTML reports,
# the Perfetto export and serve's replay all run on it; every HTML chart
# with data draws lines (host rows once a second were once taken for gaps
# and the CPU and Disk charts drew only dots).
. "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}"
here=$(cd "$(dirname "$0")" && pwd)
export GPUWHY_NVML_LIB=$GW_FAKE_NVML

cat >trainer.py <<'PY'
import os, subprocess, sys, time
seconds = 5
worker = subprocess.Popen([sys.executable, "-c",
                           "import time\nend = time.time() + %d\nwhile time.time() < end: pass" % seconds])
block, end, i = b"\0" * (4 << 20), time.time() + seconds, 0
while time.time() < end:
    with open("shard%d.bin" % (i % 2), "wb") as f:
        f.write(block)
        f.flush()
        os.fsync(f.fileno())
    i += 1
    time.sleep(0.1)
worker.wait()
PY
"$GW_BIN" record -q -o r.db -- python3 trainer.py || fail "record exited $?"
rm -f shard*.bin

# What today's recorder writes: GPU rows every tick, host rows once a second.
assert_ge "GPU rows" "$(q r.db 'select count(*) from gpu_sample where gpu = 0')" 30
assert_ge "host rows" "$(q r.db 'select count(*) from host_sample where cpu_busy_pct is not null')" 4
assert_eq "host rows not about a second apart" "$(host_gaps r.db)" 0
assert_ge "main process samples" "$(q r.db 'select count(*) from proc_sample where role = 0 and cpu_pct is not null')" 3
assert_ge "worker samples" "$(q r.db 'select count(*) from proc_sample where role = 1 and cpu_pct is not null')" 3
assert_ge "disk samples" "$(q r.db 'select count(distinct t_ns) from disk_sample')" 3

"$GW_BIN" report r.db >r.txt || fail "text report exited $?"
grep -q "GPU time ledger" r.txt || fail "text report lacks the ledger"
"$GW_BIN" report r.db --format md -o r.md || fail "markdown report exited $?"
grep -q "^## GPU time ledger" r.md || fail "markdown report lacks the ledger"
"$GW_BIN" report r.db --format json -o r.json || fail "JSON report exited $?"
python3 -c 'import json, sys; d = json.load(open("r.json")); assert d["verdict"], d' || fail "JSON report unreadable"

"$GW_BIN" report r.db --format html -o r.html || fail "HTML report exited $?"
python3 "$here/chart_lines_check.py" r.html "SM activity:s-util" "Power:s-power" \
  "CPU of the training:s-host" "CPU of the training:s-main" "CPU of the training:s-worker" \
  "Disk:s-disk" "Disk:s-iowait" || fail "an HTML chart with data draws no line"

"$GW_BIN" export r.db --perfetto r.trace.json 2>export.log || fail "export exited $?: $(cat export.log)"
echo '{"counters": ["SM activity", "GPU-Util", "Power", "CPU busy, all cores", "Main process CPU",
  "Busiest loader worker CPU", "Disk util, busiest"]}' >want.json
python3 "$here/perfetto_check.py" r.trace.json want.json || fail "Perfetto export malformed"
# each host counter track carries every known host row, not one point
python3 - <<'PY' || fail "a host counter track in the Perfetto export holds fewer than 3 points"
import collections, json
n = collections.Counter(e["name"] for e in json.load(open("r.trace.json"))["traceEvents"] if e["ph"] == "C")
few = {k: n[k] for k in ("CPU busy, all cores", "Main process CPU", "Busiest loader worker CPU", "Disk util, busiest")
       if n[k] < 3}
assert not few, few
PY

# serve's Prometheus page while replaying this recording (needs libmicrohttpd and curl)
if command -v curl >/dev/null && "$GW_BIN" serve --help >/dev/null 2>&1; then
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  TMPDIR=$SCRATCH "$GW_BIN" serve --replay r.db --listen "127.0.0.1:$port" --interval 500 --sample-interval 100 \
    --duration 30 2>serve.log &
  serve_pid=$!
  served=0
  for _ in $(seq 40); do
    if curl -sf "http://127.0.0.1:$port/metrics" -o metrics.txt && grep -q '^gpuwhy_host_disk_util_ratio' metrics.txt &&
      grep -q '^gpuwhy_gpu_power_watts' metrics.txt; then
      served=1
      break
    fi
    sleep 0.5
  done
  kill "$serve_pid" 2>/dev/null || true
  wait "$serve_pid" 2>/dev/null || true
  if [ "$served" = 0 ]; then
    if grep -q "without libmicrohttpd" serve.log; then
      echo "serve: built without libmicrohttpd, replay not checked"
    else
      cat serve.log >&2
      fail "serve --replay of today's recording never served host and GPU metrics"
    fi
  fi
  grep -q '^gpuwhy_host_cpu_busy_ratio ' metrics.txt || fail "replay: no host CPU metric"
  echo "serve --replay: host and GPU metrics served"
fi
# The sentences that were wrong on such recordings. SM activity far above
# GPU-Util is explained, never called agreement (a bursty checkpointing run
# once read 22% against 5% with each GPM window held flat over its ticks;
# spread over the ticks by GPU-Util, series.c, its medians now sit close);
# a recording with a sampled kernel trace says so.
if [ -n "${GW_FIXTURES:-}" ]; then
  "$GW_BIN" report "$GW_FIXTURES/scenarios/schedule_checkpoint.db" >ckpt.txt || fail "report exited $?"
  line=$(grep 'against SM activity' ckpt.txt) || fail "no GPU-Util against SM activity sentence"
  python3 - "$line" <<'PY' || fail "GPU-Util against SM activity contradicts its numbers: $line"
import re, sys
line = sys.argv[1]
util, sm = map(float, re.search(r"GPU-Util median ([0-9.]+)% against SM activity ([0-9.]+)%", line).groups())
if sm > util + 3:  # thresholds.c sm_above_util_pct
    assert "SM activity is higher because" in line and "agree" not in line
else:
    assert "SM activity is higher because" not in line
PY
  "$GW_BIN" report "$GW_FIXTURES/scenarios/ddp_balanced.db" --format html -o ddp.html || fail "report exited $?"
  grep -q "every 100 ms, with a sampled kernel trace (25 windows)" ddp.html || fail "sampled trace not named in The run"
  grep -q "every 100 ms (counters only)" r.html || fail "counters-only recording not named so"
fi

# The same on the real H200 recordings made by the current recorder
# (tests/fixtures/recorder_now: host rows once a second, sampled kernel trace).
for f in healthy_trace_now input_cpu_transforms_trace_now; do
  "$GW_BIN" report "$GW_FIXTURES/recorder_now/$f.db" --format html -o "$f.html" || fail "HTML report of $f exited $?"
  python3 "$here/chart_lines_check.py" "$f.html" "SM activity:s-util" "Power:s-power" \
    "CPU of the training:s-host" "CPU of the training:s-main" "Disk:s-disk" ||
    fail "an HTML chart of $f with data draws no line"
  grep -q "with a sampled kernel trace" "$f.html" || fail "$f: The run does not say the trace was sampled"
done
echo "every renderer ran on today's recordings; every chart with data draws lines"
