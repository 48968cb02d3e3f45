"""Fixtures of the web tests: an app on a real SQLite file, tokens, a rule index of the rule-document
stand-ins (``tests/fixtures/rule-documents``), and a real ``companion serve`` process."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HOST_TOKEN = "test-host-token-0123456789"


@pytest.fixture(scope="session")
def rules_index(tmp_path_factory, rule_documents) -> Path:
    from companion.rulesearch import RuleIndex

    path = tmp_path_factory.mktemp("rules") / "index.sqlite"
    with RuleIndex(path) as idx:
        for f in sorted(rule_documents.glob("*.txt")):
            idx.add_file(f)
    return path


@pytest.fixture
def app(tmp_path, rules_index):
    from web import create_app

    app = create_app(
        {
            "DB_PATH": str(tmp_path / "game.sqlite"),
            "HOST_TOKEN": HOST_TOKEN,
            "START_SOURCES": False,
            "RULES_INDEX": str(rules_index),
            "CORRECTIONS_DIR": str(tmp_path / "corrections"),
        }
    )
    yield app
    app.extensions["game_store"].close()


@pytest.fixture
def waitress_table(tmp_path):
    """``start(token)`` -> ``(app, server)``: the app on tmp_path/table.sqlite served by a real waitress
    server in this process (a call again stops the running one first: a restart on the same file)."""
    import threading

    from web import create_app
    from web.server import Server

    running: list = []

    def stop_all() -> None:
        for app, srv, t in running:
            srv.stop()
            t.join(10)
            app.extensions["game_store"].close()
        running.clear()

    def start(token: str):
        stop_all()
        app = create_app(
            {
                "DB_PATH": str(tmp_path / "table.sqlite"),
                "HOST_TOKEN": token,
                "START_SOURCES": False,
                "RULES_INDEX": str(tmp_path / "no-index.sqlite"),
            }
        )
        srv = Server(app, "127.0.0.1", 0, threads=4)
        t = threading.Thread(target=srv.serve_forever, daemon=True)
        t.start()
        running.append((app, srv, t))
        return app, srv

    yield start
    stop_all()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def host():
    return {"X-Companion-Token": HOST_TOKEN}


@pytest.fixture
def game(client, host):
    """A quick-start game created by the host; returns its id."""
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True}, headers=host)
    assert r.status_code == 201, r.json
    return r.json["game_id"]


class ServerProcess:
    """A real ``companion serve`` (waitress) in its own process."""

    def __init__(self, db: Path, rules_index: Path | None = None, extra: tuple[str, ...] = ()):
        self.db = db
        cmd = [
            sys.executable,
            "-m",
            "companion",
            "serve",
            "--db",
            str(db),
            "--port",
            "0",
            "--token",
            HOST_TOKEN,
            *extra,
        ]
        if rules_index is not None:
            cmd += ["--rules-index", str(rules_index)]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        self.output: list[str] = []
        deadline = time.monotonic() + 60
        self.url = None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                if self.proc.poll() is not None:
                    break
                continue
            self.output.append(line)
            m = re.search(r"serving at (http://\S+)", line)
            if m:
                self.url = m.group(1)
                break
        if self.url is None:
            self.kill()
            raise RuntimeError("companion serve did not start:\n" + "".join(self.output))
        import threading

        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stdout:
            self.output.append(line)

    @property
    def host_url(self) -> str:
        return f"{self.url}/?token={HOST_TOKEN}"

    def kill(self) -> None:
        """Kill the server the hard way (as a power cut would)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def serve(tmp_path, rules_index):
    started: list[ServerProcess] = []

    def start(db: Path | None = None, **kw) -> ServerProcess:
        s = ServerProcess(db or tmp_path / "served.sqlite", rules_index, **kw)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


@pytest.fixture
def servers():
    """Start ``companion serve ARGS`` processes (``web_helpers.Serve``) as typed; all stopped at the end."""
    from web_helpers import Serve

    started: list[Serve] = []

    def start(*args: str, wait: bool = True) -> Serve:
        s = Serve(*args, wait=wait)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


@pytest.fixture(scope="module")
def browser():
    """Real headless Chromium (Debian ``chromium``, driven by Playwright)."""
    exe = shutil.which("chromium")
    if exe is None:
        pytest.fail("Debian chromium is not installed: apt-get install -y chromium (.ci/run does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()
