"""Event-to-page latency with 4 tablets, and page answer times under 500 open live streams, on
loopback (goal for both: p95 <= 100 ms).

    python bench/web.py [--events 100] [--clients 4] [--streams 500] [--only pages|streams]

Starts a real ``companion serve`` (waitress) on a fresh game, opens ``--clients`` pages in headless
Chromium (Debian ``chromium``), then changes the game ``--events`` times through the API
(a seeded roll, then its undo, and so on).  For every event, the time from its commit in the
SQLite log (the event's ``at`` stamp) to the moment each page had redrawn with it (the page keeps
``window.companion.renders``) is one sample.  Prints median, p95 and max over all samples, and
the ratio of p95 to the goal.

Then (``--streams``) it opens that many live streams (``GET /api/events``) from 20 client addresses
(127.0.0.2-21, as 20 tablets with many pages each): a fifth of them are abandoned (never read
again, never closed: tablets that went to sleep or left the network), a tenth are cut with a TCP
reset, the rest are read.  While they are open and the game changes four times a second, it times
``GET /`` and ``GET /api/state`` (a new connection each, as a page load) and prints p50/p95/max
with and without the streams, the ratio of p95 to 100 ms, and how many events the read streams got.
"""

from __future__ import annotations

import argparse
import json
import selectors
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import datetime
from pathlib import Path

import bench_server

TOKEN = "bench-host-token"


def call(url: str, method: str = "GET", body=None) -> dict:
    req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("X-Companion-Token", TOKEN)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def start_server(db: Path) -> tuple[subprocess.Popen, str]:
    return bench_server.start_server(db, TOKEN)


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def open_stream(port: int, source: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    s.sendall(b"GET /api/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk:
            raise RuntimeError("a live stream was closed before its headers")
        head += chunk
    status = head.split(b" ", 2)[1]
    if status != b"200":
        raise RuntimeError(f"a live stream was refused: {head[:300]!r}")
    return s


def timed_get(url: str) -> float:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=30) as r:
        r.read()
    return (time.perf_counter() - t0) * 1000.0


def time_pages(url: str, rounds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"/": [], "/api/state": []}
    for _ in range(rounds):
        for path in out:
            out[path].append(timed_get(url + path))
    return out


def summary(samples: list[float]) -> str:
    return (
        f"p50 {percentile(samples, 0.5):6.1f} ms  p95 {percentile(samples, 0.95):6.1f} ms  "
        f"max {max(samples):6.1f} ms"
    )


def bench_streams(url: str, n: int, rounds: int) -> None:
    from tqdm import tqdm

    port = int(url.rsplit(":", 1)[1])
    base = time_pages(url, rounds // 2)
    streams: list[socket.socket] = []
    for i in tqdm(range(n), desc="opening streams", unit="stream"):
        streams.append(open_stream(port, f"127.0.0.{2 + i % 20}"))
    n_abandon, n_reset = n // 5, n // 10
    abandoned = streams[:n_abandon]  # never read, never closed (until the end)
    for s in streams[n_abandon : n_abandon + n_reset]:  # cut: RST instead of a polite close
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    live = streams[n_abandon + n_reset :]
    got = {id(s): 0 for s in live}
    sel = selectors.DefaultSelector()
    for s in live:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    stop = threading.Event()

    def read_live() -> None:
        while not stop.is_set():
            for key, _ in sel.select(0.2):
                try:
                    data = key.fileobj.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(key.fileobj)
                    continue
                got[id(key.fileobj)] += data.count(b"event: game")

    def play() -> None:  # the game goes on while the pages are timed
        i = 0
        while not stop.wait(0.25):
            if i % 2 == 0:
                call(url + "/api/decisions", "POST", {"action": {"type": "roll_for_me", "seed": 1000 + i}})
            else:
                call(url + "/api/undo", "POST", {"n": 1})
            i += 1
            made[0] = i

    made = [0]
    threads = [threading.Thread(target=read_live, daemon=True), threading.Thread(target=play, daemon=True)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    open_now = call(url + "/api/health")["streams"]
    loaded = time_pages(url, rounds)
    stop.set()
    for t in threads:
        t.join(5)
    time.sleep(0.5)
    for s in live + abandoned:
        s.close()
    print(
        f"{n} live streams opened from 20 addresses: {len(abandoned)} abandoned (never read, not closed), "
        f"{n_reset} cut by a TCP reset, {len(live)} read; server counted {open_now} open while timing"
    )
    for path in ("/", "/api/state"):
        print(f"GET {path:11s} no streams:    {summary(base[path])}  ({len(base[path])} requests)")
        print(f"GET {path:11s} {n} streams:  {summary(loaded[path])}  ({len(loaded[path])} requests)")
    p95 = percentile(loaded["/"] + loaded["/api/state"], 0.95)
    print(f"p95 with {n} streams / goal (100 ms): {p95 / 100:.2f} ({'met' if p95 <= 100 else 'NOT met'})")
    counts = sorted(got.values())
    print(
        f"game events made while timing: {made[0]}; events received per read stream: "
        f"min {counts[0]}, median {counts[len(counts) // 2]}, max {counts[-1]}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--streams", type=int, default=500, help="live streams to open (0: skip that part)")
    ap.add_argument("--rounds", type=int, default=300, help="GET / and GET /api/state timed this many times")
    ap.add_argument("--only", choices=("pages", "streams"), help="run only one of the two parts")
    args = ap.parse_args()
    exe = shutil.which("chromium")
    if exe is None:
        sys.exit("bench/web.py needs Debian chromium (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright
    from tqdm import tqdm

    tmp = Path(tempfile.mkdtemp(prefix="bench-web-"))
    proc, url = start_server(tmp / "bench.sqlite")
    try:
        call(url + "/api/games", "POST", {"players": ["Ann", "Bob"], "quick": True})
        if args.only != "pages" and args.streams:
            bench_streams(url, args.streams, args.rounds)
        if args.only == "streams":
            return
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
            pages = []
            for _ in range(args.clients):
                page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
                page.goto(url + "/table")
                page.wait_for_selector(".terrain")
                pages.append(page)
            time.sleep(1.0)
            commits: dict[int, float] = {}
            for i in tqdm(range(args.events), desc="events", unit="event"):
                if i % 2 == 0:
                    seq = call(
                        url + "/api/decisions", "POST", {"action": {"type": "roll_for_me", "seed": i}}
                    )["seq"]
                else:
                    seq = call(url + "/api/undo", "POST", {"n": 1})["seq"]
                time.sleep(0.15)  # tablets at a table see a change every few seconds, not a flood
                commits[seq] = 0.0
            time.sleep(1.0)
            for e in call(url + "/api/log?since=0")["events"]:
                if e["seq"] in commits:
                    commits[e["seq"]] = datetime.fromisoformat(e["at"]).timestamp()
            samples: list[float] = []
            missed = 0
            for page in pages:
                renders = page.evaluate("window.companion.renders")
                first: dict[int, float] = {}
                for r in renders:
                    first.setdefault(int(r["seq"]), r["at"] / 1000.0)
                for seq, at in commits.items():
                    # a page redraws once for a burst: an event is on screen at the first render >= it
                    shown = [t for s, t in first.items() if s >= seq]
                    if not shown:
                        missed += 1
                        continue
                    samples.append((min(shown) - at) * 1000.0)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"{args.clients} Chromium pages, {len(commits)} events, {len(samples)} samples ({missed} missed), loopback"
    )
    print(
        f"event commit -> page redrawn: median {percentile(samples, 0.5):6.1f} ms  "
        f"p95 {percentile(samples, 0.95):6.1f} ms  max {max(samples):6.1f} ms"
    )
    p95 = percentile(samples, 0.95)
    print(f"p95 / goal (100 ms): {p95 / 100:.2f} ({'met' if p95 <= 100 else 'NOT met'})")


if __name__ == "__main__":
    main()
