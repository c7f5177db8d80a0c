#!/usr/bin/env bash
# gpuwhy serve with no --listen is reachable from this machine only
# (127.0.0.1:9464, never every interface), and hostile clients do not stop
# it: a header far over the per-connection memory cap, a client that sends
# half a request and goes, bytes that are not HTTP. A scrape still works
# after each, and SIGTERM ends it with status 0.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
command -v ss >/dev/null || {
  echo "skipped: ss (Debian package iproute2) is not installed"
  exit 77
}
if ss -ltnH 'sport = :9464' | grep -q .; then
  echo "skipped: port 9464 is taken on this machine"
  exit 77
fi

TMPDIR=$SCRATCH "$GW_BIN" serve --replay "$GW_FIXTURES/scenarios/hardware_xid.db" --interval 500 --duration 60 2>serve.log &
srv=$!
trap 'kill "$srv" 2>/dev/null || true; wait "$srv" 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
for _ in $(seq 100); do
  ss -ltnH 'sport = :9464' | grep -q . && break
  kill -0 "$srv" 2>/dev/null || fail "gpuwhy serve ended early: $(cat serve.log)"
  sleep 0.1
done
listeners=$(ss -ltnH 'sport = :9464' | awk '{print $4}' | sort -u)
assert_eq "addresses listening on port 9464" "$listeners" "127.0.0.1:9464"

# http.py PAYLOAD_KIND: send one hostile request, then scrape; prints the scrape's status.
cat >http.py <<'EOF'
import socket, sys
def talk(data, read=True):
    s = socket.create_connection(("127.0.0.1", 9464), timeout=15)
    try:
        s.sendall(data)
    except OSError:
        pass  # the server may hang up first: fine
    try:
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # already hung up on us: fine too
    out = b""
    while read:
        try:
            chunk = s.recv(65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    s.close()
    return out
kind = sys.argv[1]
if kind == "big-header":
    talk(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Junk: " + b"a" * 200000 + b"\r\n\r\n")
elif kind == "half":
    talk(b"GET /metr", read=False)
elif kind == "binary":
    talk(bytes(range(256)) * 64)
elif kind == "many":
    for _ in range(200):
        talk(b"GET / HTTP/1.0\r\n\r\n")
answer = talk(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
print(answer.split(b"\r\n", 1)[0].decode("latin-1"))
EOF
for kind in big-header half binary many; do
  status=$(timeout 60 python3 http.py "$kind") || fail "the scrape after '$kind' did not finish"
  assert_eq "scrape after '$kind'" "$status" "HTTP/1.1 200 OK"
done
kill -0 "$srv" || fail "gpuwhy serve died"
kill -TERM "$srv"
set +e
wait "$srv"
rc=$?
set -e
assert_eq "exit status after SIGTERM" "$rc" 0
! grep -q 'AddressSanitizer\|runtime error\|LeakSanitizer' serve.log || fail "sanitizer report: $(cat serve.log)"
echo "1 passed, 0 failed"
