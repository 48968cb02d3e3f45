"""Event-to-page latency with 4 tablets on loopback (goal: p95 <= 100 ms).

    python bench/web.py [--events 100] [--clients 4]

Starts a real ``companion serve`` (waitress) on a fresh game, opens ``--clients`` pages in headless
Chromium (Debian ``chromium``), then changes the game ``--events`` times through the API
(a seeded roll, then its undo, and so on).  For every event, the time from its commit in the
SQLite log (the event's ``at`` stamp) to the moment each page had redrawn with it (the page keeps
``window.companion.renders``) is one sample.  Prints median, p95 and max over all samples, and
the ratio of p95 to the goal.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime
from pathlib import Path

TOKEN = "bench-host-token"


def call(url: str, method: str = "GET", body=None) -> dict:
    req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("X-Companion-Token", TOKEN)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def start_server(db: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--db", str(db), "--port", "0",
                             "--token", TOKEN], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        m = re.search(r"serving at (http://\S+)", line)
        if m:
            return proc, m.group(1)
    raise RuntimeError("server did not start")


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100)
    ap.add_argument("--clients", type=int, default=4)
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
                    seq = call(url + "/api/decisions", "POST", {"action": {"type": "roll_for_me", "seed": i}})["seq"]
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
    print(f"{args.clients} Chromium pages, {len(commits)} events, {len(samples)} samples ({missed} missed), loopback")
    print(f"event commit -> page redrawn: median {percentile(samples, 0.5):6.1f} ms  "
          f"p95 {percentile(samples, 0.95):6.1f} ms  max {max(samples):6.1f} ms")
    p95 = percentile(samples, 0.95)
    print(f"p95 / goal (100 ms): {p95 / 100:.2f} ({'met' if p95 <= 100 else 'NOT met'})")


if __name__ == "__main__":
    main()
