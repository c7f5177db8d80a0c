#!/usr/bin/env python3
"""Load test of `gpuwhy serve`: starts it on loopback replaying a recording,
then for a bounded time runs N scrapers of /metrics (closed loop, half on
keep-alive connections, half on a new connection per scrape), M slow clients
(trickling a request byte by byte, stopping half-way, or never reading the
answers of pipelined requests) and K senders of malformed requests. Samples
the server's VmRSS/VmHWM and CPU time from /proc. Prints a summary and, with
--json, writes every figure. Exits 1 when a well-formed scrape was not
answered 200 with a valid page, when the server died or did not stop cleanly
on SIGTERM, or when it printed a sanitizer report.

Raw sockets rather than http.client: the test needs to send broken and slow
requests, and reading the answer by hand checks its framing too.
"""
import argparse
import hashlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

# One line of the text exposition format 0.0.4: a comment, or a sample with
# optional labels and an optional timestamp.
SAMPLE_RE = re.compile(
    rb'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})? '
    rb"(-?[0-9.eE+-]+|NaN|[+-]Inf)( -?[0-9]+)?$"
)
COMMENT_RE = re.compile(rb"^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*$")

MALFORMED = [
    ("binary", bytes(range(256)) * 16),
    ("big-header", b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Junk: " + b"a" * 200000 + b"\r\n\r\n"),
    ("long-url", b"GET /" + b"a" * 40000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("bad-version", b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n"),
    ("no-version", b"GET /metrics\r\n\r\n"),
    ("no-host", b"GET /metrics HTTP/1.1\r\n\r\n"),
    ("bad-method", b"FOO /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("post-body", b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + b"z" * 5000),
    ("neg-length", b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"),
    ("bad-chunked", b"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
    ("no-colon", b"GET /metrics HTTP/1.1\r\nHost x\r\nBad\r\n\r\n"),
    ("nul", b"GET /met\x00rics HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("blank-lines", b"\r\n\r\n\r\n\r\n"),
    ("many-headers", b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"A: b\r\n" * 5000 + b"\r\n"),
]


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = []  # seconds, every answered well-formed scrape
        self.ok = 0
        self.failed = 0
        self.failures = []  # first few reasons
        self.slow = {}  # kind -> {outcome: count}
        self.malformed = {}  # name -> {status: count}
        self.pages_checked = 0

    def fail(self, why):
        with self.lock:
            self.failed += 1
            if len(self.failures) < 10:
                self.failures.append(why)

    def count(self, table, key, outcome):
        with self.lock:
            d = table.setdefault(key, {})
            d[outcome] = d.get(outcome, 0) + 1


class PageChecker:
    """Checks each distinct page once: it changes at most once per rebuild."""

    def __init__(self, stats):
        self.seen = set()
        self.lock = threading.Lock()
        self.stats = stats

    def valid(self, body):
        h = hashlib.blake2b(body, digest_size=16).digest()
        with self.lock:
            if h in self.seen:
                return None
        why = check_page(body)
        if why is None:
            with self.lock:
                self.seen.add(h)
                self.stats.pages_checked += 1
        return why


def check_page(body):
    if not body.endswith(b"\n"):
        return "page does not end with a newline"
    lines = body[:-1].split(b"\n")
    if not lines[0].startswith(b"# HELP gpuwhy_build_info"):
        return "page does not start with gpuwhy_build_info"
    if not any(line.startswith(b"gpuwhy_build_info{") for line in lines):
        return "no gpuwhy_build_info sample"
    for line in lines:
        rx = COMMENT_RE if line.startswith(b"#") else SAMPLE_RE
        if not rx.match(line):
            return "not exposition format: %r" % line[:120]
    return None


def read_response(f):
    """(status, headers, body) of one HTTP/1.1 answer from a buffered socket file."""
    status_line = f.readline(65536)
    if not status_line:
        raise ConnectionError("closed before the status line")
    parts = status_line.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
        raise ValueError("bad status line %r" % status_line[:80])
    status = int(parts[1])
    headers = {}
    while True:
        line = f.readline(65536)
        if not line:
            raise ConnectionError("closed inside the headers")
        if line in (b"\r\n", b"\n"):
            break
        k, _, v = line.partition(b":")
        headers[k.strip().lower()] = v.strip()
    n = int(headers.get(b"content-length", b"-1"))
    if n < 0:
        raise ValueError("no Content-Length")
    body = f.read(n)
    if len(body) != n:
        raise ConnectionError("body cut at %d of %d bytes" % (len(body), n))
    return status, headers, body


def scraper(port, keepalive, stop, stats, checker):
    req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (b"" if keepalive else b"Connection: close\r\n") + b"\r\n"
    sock = f = None
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            if sock is None:
                sock = socket.create_connection(("127.0.0.1", port), timeout=30)
                f = sock.makefile("rb")
            sock.sendall(req)
            status, headers, body = read_response(f)
            dt = time.perf_counter() - t0
            if status != 200:
                stats.fail("status %d" % status)
            elif not headers.get(b"content-type", b"").startswith(b"text/plain; version=0.0.4"):
                stats.fail("content type %r" % headers.get(b"content-type"))
            else:
                why = checker.valid(body)
                if why:
                    stats.fail(why)
                else:
                    with stats.lock:
                        stats.ok += 1
                        stats.latencies.append(dt)
            if not keepalive or headers.get(b"connection", b"").lower() == b"close":
                f.close()
                sock.close()
                sock = f = None
        except (OSError, ValueError) as e:
            stats.fail("%s: %s" % (type(e).__name__, e))
            if sock:
                sock.close()
            sock = f = None
    if sock:
        f.close()
        sock.close()


def wait_closed(sock, stop, limit):
    """Seconds until the server closed the connection (None: still open at limit or stop)."""
    t0 = time.monotonic()
    while not stop.is_set() and time.monotonic() - t0 < limit:
        r, _, _ = select.select([sock], [], [], 0.2)
        if r:
            try:
                if not sock.recv(65536):
                    return time.monotonic() - t0
            except OSError:
                return time.monotonic() - t0
    return None


def slow_client(port, kind, stop, stats, trickle_s):
    req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    while not stop.is_set():
        try:
            if kind == "trickle":
                # a well-formed request one byte at a time: it must be answered
                sock = socket.create_connection(("127.0.0.1", port), timeout=30)
                for b in req:
                    if stop.is_set():
                        break
                    sock.sendall(bytes([b]))
                    time.sleep(trickle_s)
                else:
                    status, _, body = read_response(sock.makefile("rb"))
                    ok = status == 200 and check_page(body) is None
                    stats.count(stats.slow, kind, "answered 200" if ok else "bad answer %d" % status)
                sock.close()
            elif kind == "half":
                # half a request, then silence: the server's idle timeout must end it
                sock = socket.create_connection(("127.0.0.1", port), timeout=30)
                sock.sendall(b"GET /metr")
                closed = wait_closed(sock, stop, 30)
                if closed is not None:
                    stats.count(stats.slow, kind, "closed by server")
                else:
                    stats.count(stats.slow, kind, "cut by the end of the test" if stop.is_set() else "still open after 30 s")
                sock.close()
            else:  # "noread": pipelined scrapes whose answers are never read
                sock = socket.socket()
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                sock.settimeout(30)
                sock.connect(("127.0.0.1", port))
                sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 50)
                # Not reading for longer than the server's 10 s idle timeout. Its
                # close is queued behind the unsent answers, so it shows only
                # once they are drained: then EOF must come.
                t0 = time.monotonic()
                while not stop.is_set() and time.monotonic() - t0 < 12:
                    time.sleep(0.2)
                if stop.is_set():
                    stats.count(stats.slow, kind, "cut by the end of the test")
                else:
                    sock.settimeout(5)
                    try:
                        while sock.recv(1 << 20):
                            pass
                        stats.count(stats.slow, kind, "closed by server")
                    except socket.timeout:
                        stats.count(stats.slow, kind, "still open after 12 s")
                sock.close()
        except OSError as e:
            stats.count(stats.slow, kind, "error " + type(e).__name__)
            time.sleep(0.1)


def malformed_sender(port, stop, stats, offset):
    i = offset
    while not stop.is_set():
        name, data = MALFORMED[i % len(MALFORMED)]
        i += 1
        outcome = "?"
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=15)
            try:
                sock.sendall(data)
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # the server may refuse the rest and hang up: fine
            first = b""
            try:
                while len(first) < 16:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    first += chunk
            except OSError:
                pass
            sock.close()
            m = re.match(rb"HTTP/1\.[01] (\d{3})", first)
            outcome = m.group(1).decode() if m else ("closed" if not first else "other")
        except OSError as e:
            outcome = "error " + type(e).__name__
        stats.count(stats.malformed, name, outcome)
        time.sleep(0.01)


def proc_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "Threads"):
                out[k] = int(v.split()[0])
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    out["cpu_s"] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    with os.scandir("/proc/%d/fd" % pid) as it:
        out["fds"] = sum(1 for _ in it)
    return out


def percentile(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpuwhy", required=True, help="the gpuwhy binary")
    ap.add_argument("--replay", required=True, help="recording to replay")
    ap.add_argument("--duration", type=float, default=60, help="seconds of load (default 60)")
    ap.add_argument("--scrapers", type=int, default=8, help="concurrent scrapers (default 8)")
    ap.add_argument("--slow", type=int, default=3, help="slow clients, kinds in turn: trickle, half, noread")
    ap.add_argument("--malformed", type=int, default=2, help="senders of malformed requests (default 2)")
    ap.add_argument("--trickle", type=float, default=0.1, help="seconds between trickled bytes (default 0.1)")
    ap.add_argument("--warmup", type=float, default=None,
                    help="seconds after which RSS should be flat (default: a quarter of --duration)")
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("serve_args", nargs="*", help="more arguments for gpuwhy serve (after --)")
    a = ap.parse_args()
    warmup = a.duration / 4 if a.warmup is None else a.warmup

    tmp = tempfile.mkdtemp(prefix="gw-serve-load-")
    env = dict(os.environ, TMPDIR=tmp)
    cmd = [a.gpuwhy, "serve", "--replay", a.replay, "--listen", "127.0.0.1:0",
           "--duration", str(int(a.duration + 60))] + a.serve_args
    errpath = os.path.join(tmp, "serve.log")
    errf = open(errpath, "w+b")
    srv = subprocess.Popen(cmd, stderr=errf, env=env)
    port = None
    t_end = time.monotonic() + 20
    while port is None and time.monotonic() < t_end and srv.poll() is None:
        errf.seek(0)
        m = re.search(rb"http://127\.0\.0\.1:(\d+)/metrics", errf.read())
        if m:
            port = int(m.group(1))
        else:
            time.sleep(0.05)
    if port is None:
        srv.kill()
        errf.seek(0)
        sys.exit("gpuwhy serve did not start: " + errf.read().decode(errors="replace"))

    stats = Stats()
    checker = PageChecker(stats)
    # the first page: the load starts once the server answers
    first = None
    while time.monotonic() < t_end and first is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                first = read_response(s.makefile("rb"))
        except (OSError, ValueError):
            time.sleep(0.1)
    if not first or first[0] != 200:
        srv.kill()
        sys.exit("gpuwhy serve gave no first page")

    stop = threading.Event()
    threads = []
    for i in range(a.scrapers):
        threads.append(threading.Thread(target=scraper, args=(port, i % 2 == 0, stop, stats, checker)))
    kinds = ["trickle", "half", "noread"]
    for i in range(a.slow):
        threads.append(threading.Thread(target=slow_client, args=(port, kinds[i % 3], stop, stats, a.trickle)))
    for i in range(a.malformed):
        threads.append(threading.Thread(target=malformed_sender, args=(port, stop, stats, i * 5)))
    for t in threads:
        t.daemon = True

    rss = []  # (seconds since start, VmRSS KiB, VmHWM KiB, cpu s, fds)
    t0 = time.monotonic()
    st0 = proc_status(srv.pid)
    rss.append((0.0, st0["VmRSS"], st0["VmHWM"], st0["cpu_s"], st0["fds"]))
    for t in threads:
        t.start()
    while time.monotonic() - t0 < a.duration and srv.poll() is None:
        time.sleep(0.5)
        try:
            st = proc_status(srv.pid)
        except OSError:
            break
        rss.append((time.monotonic() - t0, st["VmRSS"], st["VmHWM"], st["cpu_s"], st["fds"]))
    stop.set()
    elapsed = time.monotonic() - t0
    ok_at_stop = stats.ok
    for t in threads:
        t.join(40)
    alive = srv.poll() is None
    if alive:
        srv.send_signal(signal.SIGTERM)
    try:
        rc = srv.wait(30)
    except subprocess.TimeoutExpired:
        srv.kill()
        rc = srv.wait()
    errf.seek(0)
    log = errf.read().decode(errors="replace")
    errf.close()
    for name in os.listdir(tmp):
        if name != "serve.log":
            print("left in TMPDIR by gpuwhy serve: " + name, file=sys.stderr)
    os.unlink(errpath)
    try:
        os.rmdir(tmp)
        tmp_clean = True
    except OSError:
        tmp_clean = False

    after = [r for r in rss if r[0] >= warmup] or rss[-1:]
    lat = stats.latencies
    res = {
        "command": cmd,
        "duration_s": round(elapsed, 2),
        "scrapers": a.scrapers,
        "slow_clients": a.slow,
        "malformed_senders": a.malformed,
        "scrapes_ok": stats.ok,
        "scrapes_failed": stats.failed,
        "failures": stats.failures,
        "scrapes_per_s": round(ok_at_stop / elapsed, 1),
        "latency_ms": {
            "median": round(percentile(lat, 50) * 1000, 2),
            "p99": round(percentile(lat, 99) * 1000, 2),
            "max": round(max(lat) * 1000, 2) if lat else None,
        },
        "distinct_pages_checked": stats.pages_checked,
        "slow": stats.slow,
        "malformed": stats.malformed,
        "rss_kib": {
            "start": rss[0][1],
            "after_warmup": after[0][1],
            "warmup_s": round(after[0][0], 1),
            "last": rss[-1][1],
            "peak_hwm": max(r[2] for r in rss),
            "growth_after_warmup": rss[-1][1] - after[0][1],
        },
        "rss_series": [[round(r[0], 1), r[1]] for r in rss],
        "server_cpu_s": round(rss[-1][3] - rss[0][3], 2),
        "server_fds": {"start": rss[0][4], "max": max(r[4] for r in rss), "last": rss[-1][4]},
        "server_alive_at_end": alive,
        "server_exit": rc,
        "tmpdir_clean": tmp_clean,
        "sanitizer_report": bool(re.search(r"AddressSanitizer|LeakSanitizer|runtime error", log)),
    }
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    r = res["rss_kib"]
    step = max(1, len(rss) // 8)
    print("gpuwhy serve under load: %d scrapers, %d slow clients, %d malformed senders, %.1f s"
          % (a.scrapers, a.slow, a.malformed, elapsed))
    print("  well-formed scrapes: %d answered 200 with a valid page, %d not (%.1f per s)"
          % (stats.ok, stats.failed, res["scrapes_per_s"]))
    print("  latency: median %.2f ms, p99 %.2f ms, max %s ms"
          % (res["latency_ms"]["median"], res["latency_ms"]["p99"], res["latency_ms"]["max"]))
    print("  server CPU %.2f s (%.0f us per scrape); open fds start %d, max %d, last %d"
          % (res["server_cpu_s"], 1e6 * res["server_cpu_s"] / max(1, stats.ok),
             res["server_fds"]["start"], res["server_fds"]["max"], res["server_fds"]["last"]))
    print("  RSS KiB: start %d, at %.0f s %d, last %d, growth after warm-up %+d, peak (VmHWM) %d"
          % (r["start"], r["warmup_s"], r["after_warmup"], r["last"], r["growth_after_warmup"], r["peak_hwm"]))
    print("  RSS over time (s: KiB): " + ", ".join("%.0f: %d" % (x[0], x[1]) for x in rss[::step] + rss[-1:]))
    print("  slow clients: " + json.dumps(stats.slow, sort_keys=True))
    print("  malformed requests: " + json.dumps(stats.malformed, sort_keys=True))
    for why in stats.failures:
        print("  failed scrape: " + why)
    bad = []
    if stats.failed or stats.ok == 0:
        bad.append("%d well-formed scrapes not answered (%d answered)" % (stats.failed, stats.ok))
    # a trickled request must be answered; a stalled client must be hung up on
    ok_outcomes = {"answered 200", "closed by server", "cut by the end of the test"}
    for kind, outcomes in sorted(stats.slow.items()):
        if set(outcomes) - ok_outcomes:
            bad.append("slow client '%s': %s" % (kind, outcomes))
    if not alive:
        bad.append("the server ended during the load (exit %s)" % rc)
    if rc != 0:
        bad.append("exit status %s after SIGTERM" % rc)
    if res["sanitizer_report"]:
        bad.append("sanitizer report:\n" + log)
    if not tmp_clean:
        bad.append("the server left files in its TMPDIR")
    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
