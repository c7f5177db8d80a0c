#!/usr/bin/env bash
# gpuwhy serve end to end: a real H200 recording replayed as if live, scraped
# every second by a real Prometheus server that also loads the alert rules;
# the gpuwhy series are queried back through Prometheus's HTTP API. Also:
# the page passes promtool's linter, every metric the alert rules and the
# Grafana dashboard use is on the page, bad requests get 404/405, and live
# sampling (fake NVML) rotates its window segments without piling them up.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}"
command -v prometheus >/dev/null || { echo "SKIP: prometheus is not installed (Debian package prometheus)"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: curl is not installed"; exit 77; }
"$GW_BIN" serve --help >/dev/null 2>&1 || { echo "SKIP: this gpuwhy has no serve command yet"; exit 77; }
deploy="$GW_SOURCE_DIR/deploy"

pids=()
stop_all() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$SCRATCH"
}
trap stop_all EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# wait_for SECONDS COMMAND...: poll every half second
wait_for() {
  local limit=$(($1 * 2))
  shift
  for _ in $(seq "$limit"); do
    "$@" && return 0
    sleep 0.5
  done
  return 1
}

gw_port=$(free_port)
TMPDIR=$SCRATCH "$GW_BIN" serve --replay "$GW_FIXTURES/scenarios/hardware_xid.db" --listen "127.0.0.1:$gw_port" \
  --interval 1000 --sample-interval 200 --duration 120 2>serve.log &
pids+=($!)
metrics_ready() { curl -sf "http://127.0.0.1:$gw_port/metrics" -o metrics.txt && grep -q '^gpuwhy_gpu_power_watts' metrics.txt; }
if ! wait_for 15 metrics_ready; then
  grep -q "without libmicrohttpd" serve.log && { echo "SKIP: built without libmicrohttpd"; exit 77; }
  cat serve.log >&2
  fail "gpuwhy serve did not answer on 127.0.0.1:$gw_port"
fi
grep -q '^gpuwhy_build_info{version=".*",mode="replay"} 1$' metrics.txt || fail "build_info missing"
# The recording's GPU starts working 7.6 s in: wait for the diagnosis of an active window.
active() { curl -sf "http://127.0.0.1:$gw_port/metrics" -o metrics.txt && grep -q '^gpuwhy_window_lost_ratio' metrics.txt; }
wait_for 20 active || fail "the replayed GPU never became active in the window"
# The replayed H200 recording has GPM: its window is not SM-blind.
grep -q "^gpuwhy_window_sm_blind 0$" metrics.txt || fail "gpuwhy_window_sm_blind 0 missing for a GPU with GPM"
if command -v promtool >/dev/null; then
  promtool check metrics <metrics.txt || fail "promtool check metrics complains"
  promtool check rules "$deploy/prometheus/gpuwhy-alerts.yml" || fail "alert rules do not check"
  (cd "$deploy/prometheus" && promtool test rules gpuwhy-alerts.test.yml) || fail "alert rule tests fail"
  promtool check config "$deploy/prometheus/prometheus.yml" || fail "example config does not check"
fi
# Every gpuwhy metric the rules and the dashboard query exists on the page.
python3 - "$deploy/prometheus/gpuwhy-alerts.yml" "$deploy/grafana/gpuwhy-dashboard.json" metrics.txt <<'PY' ||
import json, re, sys
rules, dash, page = (open(p).read() for p in sys.argv[1:4])
exprs = re.findall(r"expr: \|?\s*\n?((?:.*\n)*?)\s*(?:for|labels):", rules)
json.loads(dash)  # the dashboard is valid JSON
used = set(re.findall(r"gpuwhy_[a-z0-9_]+", " ".join(exprs) + dash))
served = set(re.findall(r"^(gpuwhy_[a-z0-9_]+)", page, re.M))
missing = sorted(used - served)
print("%d metrics used by the rules and the dashboard, %d served" % (len(used), len(served)))
sys.exit("not served: %s" % missing if missing else 0)
PY
  fail "the rules or the dashboard use metrics gpuwhy does not serve"

# Requests gpuwhy does not serve.
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
assert_eq "unknown path" "$(code "http://127.0.0.1:$gw_port/nope")" 404
assert_eq "POST" "$(code -X POST -d x=1 "http://127.0.0.1:$gw_port/metrics")" 405
assert_eq "HEAD" "$(code -I "http://127.0.0.1:$gw_port/metrics")" 200
# raw_request BYTES: the status line of the answer, "" when the server just closed
raw_request() {
  printf "$1" | timeout 5 python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(sys.stdin.buffer.read())
print(s.recv(200).split(b"\r\n")[0].decode())' "$gw_port"
}
assert_eq "header line without a colon" "$(raw_request 'GET /metrics HTTP/1.1\r\nNoColon\r\n\r\n')" \
  "HTTP/1.1 400 Bad Request"
assert_eq "40 kB request line" "$(raw_request "GET /$(printf 'a%.0s' $(seq 40000)) HTTP/1.1\r\nHost: x\r\n\r\n")" \
  "HTTP/1.1 414 URI Too Long"
assert_eq "no request line at all" "$(raw_request 'GARBAGE\r\n\r\n')" ""
assert_eq "still serving after bad requests" "$(code "http://127.0.0.1:$gw_port/metrics")" 200

# A real Prometheus scraping every second, with the alert rules loaded.
prom_port=$(free_port)
cat >prometheus.yml <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $deploy/prometheus/gpuwhy-alerts.yml
scrape_configs:
  - job_name: gpuwhy
    static_configs:
      - targets: ['127.0.0.1:$gw_port']
YML
prometheus --config.file=prometheus.yml --storage.tsdb.path="$SCRATCH/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >prometheus.log 2>&1 &
pids+=($!)
# query EXPR: the result vector of an instant query, as JSON
query() { curl -sf --get "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1"; }
scraped() { query 'gpuwhy_gpu_sm_active_ratio' | grep -q '"__name__":"gpuwhy_gpu_sm_active_ratio"'; }
if ! wait_for 20 scraped; then
  tail -20 prometheus.log >&2
  fail "Prometheus did not scrape gpuwhy within 20 s"
fi
query 'up{job="gpuwhy"}' >up.json
query 'gpuwhy_verdict == 1' >verdict.json
query 'gpuwhy_gpu_power_watts' >power.json
query 'gpuwhy_gpu_sm_active_ratio' >sm.json
python3 - <<'PY' || fail "Prometheus holds the wrong gpuwhy series"
import json
def result(name):
    doc = json.load(open(name))
    assert doc["status"] == "success", doc
    return doc["data"]["result"]
up = result("up.json")
assert len(up) == 1 and up[0]["value"][1] == "1", up
verdict = result("verdict.json")
assert len(verdict) == 1, "exactly one verdict class should be 1: %r" % verdict
power = result("power.json")
assert power and 0 < float(power[0]["value"][1]) < 2000, power
labels = power[0]["metric"]
assert labels["gpu"] == "0" and labels["uuid"].startswith("GPU-") and labels["name"] == "NVIDIA H200", labels
sm = result("sm.json")
assert 0 <= float(sm[0]["value"][1]) <= 1, sm
print("Prometheus holds up=1, verdict %s, power %s W on %s" % (verdict[0]["metric"]["class"], power[0]["value"][1], labels["uuid"]))
PY
rules_ok() { curl -sf "http://127.0.0.1:$prom_port/api/v1/rules" | python3 -c '
import json, sys
groups = json.load(sys.stdin)["data"]["groups"]
rules = [r for g in groups for r in g["rules"]]
sys.exit(0 if len(rules) >= 5 and all(r.get("health") == "ok" for r in rules) else 1)'; }
wait_for 10 rules_ok || fail "Prometheus did not evaluate the alert rules cleanly"
# The recording holds Xid 63 at 10 s, 13 at 15 s and 94 at 20 s: the counter
# climbs and Prometheus fires the Xid alert, naming the GPU.
xid_alert() { query 'ALERTS{alertname="GpuXidError",alertstate="firing"}' | grep -q '"gpu":"0"'; }
wait_for 30 xid_alert || fail "the Xid alert did not fire"
query 'gpuwhy_gpu_xid_events_total' >xid.json
python3 -c '
import json
r = json.load(open("xid.json"))["data"]["result"]
n = float(r[0]["value"][1])
assert 1 <= n <= 3, r
print("Xid alert firing after %d Xid events" % n)' || fail "Xid counter wrong"

# Live sampling through the fake NVML with a 10 s window: after two segment
# changes at most two segments (and the window file) are on disk.
if [ -n "${GW_FAKE_NVML:-}" ]; then
  live_port=$(free_port)
  mkdir live
  TMPDIR=$SCRATCH/live GPUWHY_NVML_LIB=$GW_FAKE_NVML "$GW_BIN" serve --listen "127.0.0.1:$live_port" \
    --interval 500 --sample-interval 100 --window 10 --duration 60 2>live.log &
  live_pid=$!
  pids+=($live_pid)
  live_ready() { curl -sf "http://127.0.0.1:$live_port/metrics" -o live.txt && grep -q '^gpuwhy_gpu_power_watts' live.txt; }
  wait_for 15 live_ready || { cat live.log >&2; fail "live serve did not answer"; }
  grep -q 'mode="live"' live.txt || fail "live mode not reported"
  sleep 23
  curl -sf "http://127.0.0.1:$live_port/metrics" -o live2.txt || fail "live serve stopped answering after rotating"
  grep -q '^gpuwhy_gpu_power_watts' live2.txt || fail "no GPU metrics after rotating segments"
  nseg=$(find live -name 'seg-*.db' | wc -l)
  [ "$nseg" -le 2 ] || fail "$nseg segment files on disk, expected at most 2"
  ls live/*/seg-2.db >/dev/null 2>&1 || fail "segments did not rotate: $(ls live/*)"
  kill -TERM "$live_pid"
  wait "$live_pid" || fail "live serve exited $? on SIGTERM"
  [ -z "$(ls -A live)" ] || fail "live serve left files behind: $(ls -R live)"
fi
echo "serve and Prometheus agree"
