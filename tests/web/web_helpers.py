"""HTTP helpers the web tests share: JSON requests to a real server (``companion serve`` or an in-process
waitress ``Server``), as a second client at the table would send them, and an in-process app with a
Battle Dice game started (``battle_dice_app``).  Imported by module name
(``tests/web`` is on pytest's ``pythonpath``)."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit


def _request(
    base: str, method: str, path: str, body=None, token: str | None = None
) -> urllib.request.Request:
    req = urllib.request.Request(
        base + path, method=method, data=None if body is None else json.dumps(body).encode()
    )
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("X-Companion-Token", token)
    return req


def request_json(
    base: str, method: str, path: str, body=None, token: str | None = None, timeout: float = 30
) -> dict:
    """The JSON answer of METHOD base+path; an HTTP error status raises ``urllib.error.HTTPError``."""
    with urllib.request.urlopen(_request(base, method, path, body, token), timeout=timeout) as r:
        return json.loads(r.read())


def call_json(
    base: str, method: str, path: str, body=None, token: str | None = None, timeout: float = 30
) -> tuple[int, dict]:
    """(status, JSON answer) of METHOD base+path, error statuses included."""
    try:
        with urllib.request.urlopen(_request(base, method, path, body, token), timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def api(server, method: str, path: str, body=None, token: str | None = None, timeout: float = 30) -> dict:
    """``request_json`` against a ``ServerProcess`` (the conftest ``serve`` fixture)."""
    return request_json(server.url, method, path, body, token, timeout)


def on_redrawn_element(action, timeout: float = 90.0):
    """``action()`` (one Playwright locator call that needs the element itself, such as
    ``scroll_into_view_if_needed`` or ``screenshot``), tried again while the page redraws the element.

    Those calls find the element once and then wait for it to be stable; the page redraws its views
    on every live update (a new node with the same id), and a redraw in that wait fails the call with
    "Element is not attached to the DOM" where a click would look the element up again.  Each try here
    looks it up again, so the call is made on the element the page shows; any other error is raised."""
    from playwright.sync_api import Error

    deadline = time.monotonic() + timeout
    while True:
        try:
            return action()
        except Error as exc:
            if "not attached to the DOM" not in str(exc) or time.monotonic() > deadline:
                raise


def first_answer(pending: dict, seed: int) -> dict:
    """An answer to the pending decision that moves a game on through the API: a seeded roll, the first
    choice that is not a pass/skip/no, the first allocation, no spells, no reinforcements, no retreat."""
    kind = pending["kind"]
    if kind == "roll":
        return {"type": "roll_for_me", "seed": seed}
    if kind == "choice":
        values = [c["value"] for c in pending["choices"]]
        return {
            "type": "choose",
            "choice": next((v for v in values if v not in ("pass", "skip", "no")), values[0]),
        }
    if kind == "allocate":
        return {"type": "allocate", "units": pending["choices"][0]["value"]}
    if kind == "cast":
        return {"type": "cast", "spells": []}
    if kind == "reinforce":
        return {"type": "reinforce", "moves": {}}
    return {"type": "retreat", "units": []}


def battle_dice_app(tmp_path, token: str, **config):
    """``(app, test client, pending decision)``: an app on ``tmp_path/game.sqlite`` (host token TOKEN, no
    sources started, corrections under ``tmp_path/corrections``, plus CONFIG) in which the host started a
    Battle Dice game of Reds and Blues.  The caller closes ``app.extensions["game_store"]``."""
    from web import create_app

    app = create_app(
        {
            "DB_PATH": str(tmp_path / "game.sqlite"),
            "HOST_TOKEN": token,
            "START_SOURCES": False,
            "CORRECTIONS_DIR": str(tmp_path / "corrections"),
            **config,
        }
    )
    client = app.test_client()
    host = {"X-Companion-Token": token}
    r = client.post("/api/games", json={"players": ["Reds", "Blues"], "game": "battle_dice"}, headers=host)
    assert r.status_code == 201, r.json
    return app, client, client.get("/api/state").json["pending"]


def demo_args(db, dice: str, seconds: float, **more) -> argparse.Namespace:
    """The parsed arguments of ``companion demo --dice DICE --db DB`` run for SECONDS on a free local port
    (pace 0.05, seed 7, no token, public URL or rules index, 4 threads), plus MORE (e.g. ``model``)."""
    return argparse.Namespace(
        dice=dice,
        **more,
        db=str(db),
        pace=0.05,
        seed=7,
        host="127.0.0.1",
        port=0,
        public_url=None,
        token=None,
        rules_index=None,
        seconds=seconds,
        threads=4,
    )


class Serve:
    """``python -m companion serve ARGS`` in its own process, the arguments as a person types them (unlike
    the conftest ``ServerProcess``, no token or port is added); reads the banner up to "Ctrl-C"."""

    def __init__(self, *args: str, wait: bool = True):
        self.cmd = [sys.executable, "-m", "companion", "serve", *args]
        self.proc = subprocess.Popen(
            self.cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        self.lines: list[str] = []
        if wait:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                line = self.proc.stdout.readline()
                if not line:
                    break
                self.lines.append(line)
                if "Ctrl-C" in line:
                    break
            else:
                self.stop()
            assert self.url, "companion serve did not start:\n" + self.text
            threading.Thread(target=lambda: self.lines.extend(self.proc.stdout), daemon=True).start()

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def url(self) -> str | None:
        m = re.search(r"serving at (https?://\S+)", self.text)
        return m.group(1) if m else None

    @property
    def port(self) -> int:
        return urlsplit(self.url).port

    @property
    def host_token(self) -> str:
        return re.search(r"\?token=(\S+)", self.text).group(1)

    @property
    def host_url(self) -> str:
        return f"{self.url}/?token={self.host_token}"

    @property
    def fingerprint(self) -> str:
        """The CA certificate's SHA-256 as the banner of ``--https`` prints it."""
        return re.search(r"certificate SHA-256 ([0-9A-F:]{95})", self.text).group(1)

    def finish(self, timeout: float = 60) -> tuple[int, str]:
        out, _ = self.proc.communicate(timeout=timeout)
        self.lines.append(out or "")
        return self.proc.returncode, self.text

    def kill(self) -> None:
        """Kill the server the hard way (as a power cut would)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> int | None:
        """Ctrl-C, then the hard way if it has not stopped in 20 s; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.returncode


def exchange(conn, method: str, path: str, data: bytes | None = None, token: str | None = None):
    """Send one request on an ``http.client`` connection (a JSON body as ``data``) and close it; returns
    (status, headers, JSON answer, or the raw bytes when the answer is not JSON)."""
    headers = {"Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["X-Companion-Token"] = token
    conn.request(method, path, body=data, headers=headers)
    r = conn.getresponse()
    raw = r.read()
    conn.close()
    return r.status, dict(r.getheaders()), (json.loads(raw) if raw[:1] in (b"{", b"[") else raw)
