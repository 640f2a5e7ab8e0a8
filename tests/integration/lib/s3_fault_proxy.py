#!/usr/bin/env python3
"""An HTTP proxy on loopback in front of an S3 server that injects the
failures a network gives (tests/integration/s3_faults.sh):

  --lose-commit-every N  every Nth conditional PUT (If-None-Match) of a
                         _delta_log/*.json is forwarded, then the client's
                         connection is closed without the answer: a commit
                         that landed but whose response was lost
  --slowdown-every N     a GET/HEAD is answered 503 SlowDown with chance 1/N
  --reset-every N        a GET closes the connection unanswered with chance 1/N
                         (random, not every Nth: a reader's parallel ranged
                         GETs retrying in step would otherwise keep landing
                         on the failing turn)
  --delay-ms MS          every request waits this long first
  --log FILE             appends "METHOD PATH?QUERY" of every request
  --age-days N           every object looks N days older: LastModified in
                         listings and Last-Modified headers are moved back
                         (S3 has no way to age an object, and log cleanup
                         and VACUUM go by these times)

Requests are relayed unchanged (the Host header too, so signatures hold).
Prints the port it listens on, then serves until killed; counts (requests
by kind, LIST being a GET with list-type, and body bytes each way) go to
stderr at exit: docs/BENCHMARKS.md's request figures come from them."""
import argparse, datetime, email.utils, http.client, random, re, signal, socket, sys, threading, time

p = argparse.ArgumentParser()
p.add_argument("upstream")  # host:port
p.add_argument("--lose-commit-every", type=int, default=0)
p.add_argument("--slowdown-every", type=int, default=0)
p.add_argument("--reset-every", type=int, default=0)
p.add_argument("--delay-ms", type=int, default=0)
p.add_argument("--log")
p.add_argument("--age-days", type=int, default=0)
a = p.parse_args()
uh, up = a.upstream.rsplit(":", 1)
lock = threading.Lock()
rng = random.Random(20261201)


def chance(n):
    with lock:
        return n > 0 and rng.random() < 1.0 / n
counts = {"commits": 0, "lost": 0, "reads": 0, "slowdown": 0, "reset": 0, "requests": 0,
          "LIST": 0, "GET": 0, "HEAD": 0, "PUT": 0, "POST": 0, "DELETE": 0, "bytes_in": 0, "bytes_out": 0}


def aged_iso(m):
    t = datetime.datetime.strptime(m.group(1)[:19].decode(), "%Y-%m-%dT%H:%M:%S")
    t -= datetime.timedelta(days=a.age_days)
    return ("<LastModified>%s.000Z</LastModified>" % t.strftime("%Y-%m-%dT%H:%M:%S")).encode()


def aged_http(v):
    t = email.utils.parsedate_to_datetime(v) - datetime.timedelta(days=a.age_days)
    return email.utils.format_datetime(t, usegmt=True)


def bump(k):
    with lock:
        counts[k] += 1
        return counts[k]


def read_request(f):
    line = f.readline()
    if not line:
        return None
    method, path, _ = line.decode("latin-1").split(" ", 2)
    headers = []
    while True:
        h = f.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        k, v = h.decode("latin-1").split(":", 1)
        headers.append((k.strip(), v.strip()))
    n = 0
    for k, v in headers:
        if k.lower() == "content-length":
            n = int(v)
    body = f.read(n) if n else b""
    return method, path, headers, body


def serve(conn):
    f = conn.makefile("rb")
    try:
        while True:
            req = read_request(f)
            if req is None:
                return
            method, path, headers, body = req
            bump("requests")
            if a.log:
                with lock, open(a.log, "a") as lf:
                    lf.write("%s %s\n" % (method, path))
            kind = "LIST" if method == "GET" and "list-type=" in path else method
            if kind in counts:
                bump(kind)
            with lock:
                counts["bytes_out"] += len(body)
            if a.delay_ms:
                time.sleep(a.delay_ms / 1000)
            names = {k.lower() for k, _ in headers}
            commit = method == "PUT" and "if-none-match" in names and "/_delta_log/" in path \
                and path.split("?")[0].endswith(".json")
            if method in ("GET", "HEAD"):
                bump("reads")
                if method == "GET" and chance(a.reset_every):
                    bump("reset")
                    return
                if chance(a.slowdown_every):
                    bump("slowdown")
                    msg = b"<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
                    conn.sendall(b"HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n\r\n" % len(msg)
                                 + (msg if method == "GET" else b""))
                    continue
            u = http.client.HTTPConnection(uh, int(up), timeout=60)
            u.request(method, path, body=body if body or method in ("PUT", "POST") else None, headers=dict(headers))
            resp = u.getresponse()
            data = resp.read()
            u.close()
            with lock:
                counts["bytes_in"] += len(data)
            if a.age_days and kind == "LIST":
                data = re.sub(rb"<LastModified>([^<]*)</LastModified>", aged_iso, data)
            if commit:
                c = bump("commits")
                if a.lose_commit_every and c % a.lose_commit_every == 0:
                    bump("lost")
                    return  # it landed (or not): the client never hears
            out = ["HTTP/1.1 %d %s" % (resp.status, resp.reason)]
            for k, v in resp.getheaders():
                if k.lower() in ("transfer-encoding", "connection", "content-length"):
                    continue
                if a.age_days and k.lower() == "last-modified":
                    v = aged_http(v)
                out.append("%s: %s" % (k, v))
            clen = resp.getheader("Content-Length") if method == "HEAD" else str(len(data))
            if clen is not None:
                out.append("Content-Length: %s" % clen)
            conn.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + (b"" if method == "HEAD" else data))
    except (ConnectionError, OSError):
        return
    finally:
        try:
            conn.close()
        except OSError:
            pass


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(128)
print(s.getsockname()[1], flush=True)


def done(*_):
    print("proxy counts: %s" % counts, file=sys.stderr, flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, done)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
