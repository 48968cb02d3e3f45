"""``companion serve --db postgresql://...`` plays a table directly on the league database: a real
waitress server in its own process, a game created and played over HTTP, the server restarted."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request

from companion.league.cluster import free_port
from companion.session.pg_store import PgEventStore, connect, open_session

TOKEN = "t" * 32


def _start(dsn: str, port: int, tmp_path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "serve",
            "--db",
            dsn,
            "--table",
            "3",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--token",
            TOKEN,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            _get(port, "/api/health")
            return proc
        except OSError:
            if proc.poll() is not None:
                raise AssertionError(proc.stdout.read().decode()) from None
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("companion serve did not start")


def _get(port: int, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return json.loads(r.read())


def _post(port: int, path: str, body: dict) -> dict:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "X-Companion-Token": TOKEN},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_serve_plays_on_postgresql_and_reopens(pg_dsn, tmp_path):
    port = free_port()
    proc = _start(pg_dsn, port, tmp_path)
    try:
        created = _post(port, "/api/games", {"players": ["Ann", "Bob"], "quick": True, "force_size": 24})
        game_id = created["game_id"]
        for _ in range(4):  # the order-of-play rolls and the choice that follows, tapped on the page's API
            pending = _get(port, "/api/state")["pending"]
            if pending["kind"] == "roll":
                seq = _post(
                    port, "/api/rolls", {"faces": {d["uid"]: d["faces"][0] for d in pending["dice"]}}
                )["seq"]
                with connect(
                    pg_dsn
                ) as conn:  # a roll (confirmed as readings) reaches the organizer's page too
                    assert conn.execute(
                        "SELECT seq FROM league_live WHERE game_id = %s", (game_id,)
                    ).fetchone() == (seq,)
            else:
                _post(
                    port,
                    "/api/decisions",
                    {"action": {"type": "choose", "choice": pending["choices"][0]["value"]}},
                )
        state = _get(port, "/api/state")
        assert state["game_id"] == game_id and state["seq"] == 5
    finally:
        proc.terminate()
        proc.wait(10)
    # the game is in PostgreSQL, not in a local file, and a restarted server shows it again
    assert PgEventStore(pg_dsn, game_id).meta("table") == "3"  # the game is table 3's
    with connect(pg_dsn) as conn:  # and the organizer's page shows table 3 at its last event
        assert conn.execute(
            "SELECT table_no, seq FROM league_live WHERE game_id = %s", (game_id,)
        ).fetchone() == ("3", 5)
    events = open_session(pg_dsn, game_id).events()
    assert [e["seq"] for e in events] == [1, 2, 3, 4, 5] and events[0]["type"] == "create"
    assert not list(tmp_path.glob("*.sqlite"))
    proc = _start(pg_dsn, port, tmp_path)
    try:
        assert _get(port, "/api/state")["game_id"] == game_id
    finally:
        proc.terminate()
        proc.wait(10)
