"""Page answer times under many open live streams over https (``serve --https``, the TLS front of
``web/tls.py``), against the same on plain http, on loopback.

    python bench/https.py [--streams 500] [--rounds 200]

Starts a real ``companion serve --https`` on a fresh game and a plain ``companion serve`` on another,
each in turn: times ``GET /`` and ``GET /api/state`` (a new connection each, as a page load: over
https that includes the TLS handshake, the client trusting only the table's CA) with no stream open,
then opens ``--streams`` live streams (``GET /api/events``) from 20 client addresses
(127.0.0.2-21: the front passes each client's address on, so the per-client cap holds), a fifth of
them abandoned (never read, never closed), the rest read, while the game changes four times a
second, and times the pages again.  Prints p50/p95/max for both servers, the ratio of https p95 to
plain p95 and to the 100 ms goal, how many events the read streams got, and the front's threads.
"""

from __future__ import annotations

import argparse
import json
import selectors
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import bench_server

TOKEN = "bench-host-token"


def start_server(db: Path, https: bool) -> tuple[subprocess.Popen, str]:
    return bench_server.start_server(db, TOKEN, ("--https",) if https else ())


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


class Client:
    def __init__(self, url: str, ca: Path | None):
        self.url = url
        self.ctx = None
        if ca is not None:
            self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            self.ctx.load_verify_locations(cafile=str(ca))

    def call(self, path: str, method: str = "GET", body=None) -> dict:
        req = urllib.request.Request(
            self.url + path, method=method, data=None if body is None else json.dumps(body).encode()
        )
        req.add_header("X-Companion-Token", TOKEN)
        if body is not None:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=30, context=self.ctx) as r:
            return json.loads(r.read())

    def timed_get(self, path: str) -> float:
        t0 = time.perf_counter()
        with urllib.request.urlopen(self.url + path, timeout=30, context=self.ctx) as r:
            r.read()
        return (time.perf_counter() - t0) * 1000.0

    def time_pages(self, rounds: int) -> list[float]:
        return [self.timed_get(p) for _ in range(rounds) for p in ("/", "/api/state")]

    def open_stream(self, source: str) -> socket.socket:
        port = int(self.url.rsplit(":", 1)[1])
        s = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(source, 0))
        if self.ctx is not None:
            s = self.ctx.wrap_socket(s, server_hostname="127.0.0.1")
        s.sendall(b"GET /api/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                raise RuntimeError("a live stream was closed before its headers")
            head += chunk
        if head.split(b" ", 2)[1] != b"200":
            raise RuntimeError(f"a live stream was refused: {head[:300]!r}")
        return s


def summary(samples: list[float]) -> str:
    return (
        f"p50 {percentile(samples, 0.5):6.1f} ms  p95 {percentile(samples, 0.95):6.1f} ms  "
        f"max {max(samples):6.1f} ms"
    )


def run(https: bool, n: int, rounds: int) -> tuple[list[float], list[float], list[int]]:
    from tqdm import tqdm

    tmp = Path(tempfile.mkdtemp(prefix="bench-https-"))
    proc, url = start_server(tmp / "bench.sqlite", https)
    client = Client(url, tmp / "bench.sqlite.tls" / "ca.pem" if https else None)
    try:
        client.call("/api/games", "POST", {"players": ["Ann", "Bob"], "quick": True})
        base = client.time_pages(rounds // 2)
        streams = [
            client.open_stream(f"127.0.0.{2 + i % 20}")
            for i in tqdm(range(n), desc=f"{'https' if https else 'http'}: opening streams", unit="stream")
        ]
        abandoned, live = streams[: n // 5], streams[n // 5 :]
        got = {id(s): 0 for s in live}
        sel = selectors.DefaultSelector()
        for s in live:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        stop = threading.Event()

        def read_live() -> None:
            while not stop.is_set():
                for key, _ in sel.select(0.2):
                    sock = key.fileobj
                    while True:
                        try:
                            data = sock.recv(65536)
                        except (ssl.SSLWantReadError, BlockingIOError):
                            break
                        except OSError:
                            data = b""
                        if not data:
                            sel.unregister(sock)
                            break
                        got[id(sock)] += data.count(b"event: game")

        def play() -> None:
            i = 0
            while not stop.wait(0.25):
                if i % 2 == 0:
                    client.call(
                        "/api/decisions", "POST", {"action": {"type": "roll_for_me", "seed": 1000 + i}}
                    )
                else:
                    client.call("/api/undo", "POST", {"n": 1})
                i += 1

        threads = [
            threading.Thread(target=read_live, daemon=True),
            threading.Thread(target=play, daemon=True),
        ]
        for t in threads:
            t.start()
        time.sleep(1.0)
        loaded = client.time_pages(rounds)
        stop.set()
        for t in threads:
            t.join(5)
        for s in live + abandoned:
            s.close()
        return base, loaded, sorted(got.values())
    finally:
        proc.terminate()
        proc.wait(15)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=500, help="live streams to open")
    ap.add_argument("--rounds", type=int, default=200, help="GET / and GET /api/state timed this many times")
    args = ap.parse_args()
    results = {}
    for https in (True, False):
        results[https] = run(https, args.streams, args.rounds)
    for https in (True, False):
        base, loaded, got = results[https]
        name = "https" if https else "http "
        print(f"{name} no streams:          {summary(base)}  ({len(base)} requests)")
        print(
            f"{name} {args.streams} streams:  {summary(loaded)}  ({len(loaded)} requests); events per read "
            f"stream: min {got[0]}, median {got[len(got) // 2]}, max {got[-1]}"
        )
    p95 = {h: percentile(results[h][1], 0.95) for h in results}
    print(
        f"p95 with {args.streams} streams, https / plain http: {p95[True] / p95[False]:.2f}; "
        f"https p95 / goal (100 ms): {p95[True] / 100:.2f} ({'met' if p95[True] <= 100 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
