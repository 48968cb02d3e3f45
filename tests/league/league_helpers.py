"""Shared helpers of the league tests: local games played at random, logs compared event for event,
a league server in a thread, and a TCP proxy on loopback whose link the test cuts and restores."""

from __future__ import annotations

import random
import socket
import threading
import time

from companion.rules.game.flow import random_answer
from companion.session import GameSession

SETUP = {
    "force_size": 24,
    "players": [{"name": "Alice", "species": "Dwarves"}, {"name": "Bob", "species": "Goblins"}],
}
FIELDS = ("seq", "type", "player", "action", "log", "undone", "at", "by")
HOST = "h" * 32


def wait_for(cond, seconds: float = 20.0) -> bool:
    """Poll ``cond`` until it is true or ``seconds`` pass; says whether it came true."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return False


def play(session: GameSession, rng: random.Random, steps: int, undo_every: int = 0) -> None:
    for i in range(steps):
        if session.pending() is None:
            return
        session.submit(random_answer(session.game, rng))
        if undo_every and i % undo_every == undo_every - 1:
            session.undo(1)


def local_log(path) -> list[dict]:
    s = GameSession.open(path)
    try:
        return [{k: e[k] for k in FIELDS} for e in s.events()]
    finally:
        s.close()


def league_log(dsn: str, game_id: str) -> list[dict]:
    from companion.session.pg_store import PgEventStore

    store = PgEventStore(dsn, game_id)
    try:
        return [{k: e[k] for k in FIELDS} for e in store.events()]
    finally:
        store.close()


def game_files(folder) -> dict:
    """game id -> game file, for every SQLite game log in ``folder``."""
    import sqlite3
    from pathlib import Path

    out = {}
    for path in Path(folder).glob("*.sqlite"):
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'game_id'").fetchone()
        except sqlite3.Error:
            row = None
        finally:
            conn.close()
        if row:
            out[row[0]] = path
    return out


class LeagueServer:
    """``companion league serve``'s app under waitress in a thread."""

    def __init__(self, dsn: str, port: int = 0):
        from web.league.app import create_league_app, serve

        self.app = create_league_app(dsn)
        self.server, self.port = serve(self.app, "127.0.0.1", port, threads=8)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.port}"

    def _run(self):
        try:
            self.server.run()
        except OSError:
            pass

    def close(self):
        self.server.close()
        self.thread.join(5)
        self.app.extensions["league_pool"].close()


class Proxy:
    """A TCP proxy on loopback: ``cut()`` drops every connection and refuses new ones until ``restore()``."""

    def __init__(self, target_port: int):
        self.target = ("127.0.0.1", target_port)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.up = threading.Event()
        self.up.set()
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            if not self.up.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data or not self.up.is_set():
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def cut(self):
        self.up.clear()
        self.cuts += 1
        with self._lock:
            conns, self._conns = self._conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def restore(self):
        self.up.set()

    def close(self):
        self.cut()
        self.sock.close()


def call(
    url: str,
    path: str,
    token: str | None = None,
    body=None,
    method: str | None = None,
    form: dict | None = None,
):
    """(status, JSON or text) of one request to the league server."""
    import json
    import urllib.error
    import urllib.parse
    import urllib.request

    headers = {}
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    elif form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if token:
        headers["X-League-Token"] = token
    req = urllib.request.Request(url + path, data=data, headers=headers, method=method)

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None

    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(req, timeout=15) as r:
            status, raw, ctype = r.status, r.read(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        status, raw, ctype = exc.code, exc.read(), exc.headers.get("Content-Type", "")
    text = raw.decode("utf-8")
    return status, (json.loads(text) if "json" in ctype else text)


def paired_league_table(db, url: str, table_token: str):
    """A table's Flask app (table 7, pushing to the league at ``url``) with a quick game started by the
    host and a tablet paired as 'kitchen tablet'; returns (app, client, host headers, tablet headers,
    outbox). The caller stops the outbox (``box.stop()``) when done."""
    from web import create_app

    app = create_app(
        {
            "DB_PATH": str(db),
            "HOST_TOKEN": HOST,
            "START_SOURCES": False,
            "LEAGUE_URL": url,
            "LEAGUE_TABLE": "7",
            "LEAGUE_TOKEN": table_token,
        }
    )
    box = app.extensions["league_outbox"]
    c = app.test_client()
    host = {"X-Companion-Token": HOST}
    try:
        r = c.post(
            "/api/games", json={"players": ["Ann", "Bob"], "quick": True, "force_size": 24}, headers=host
        )
        assert r.status_code == 201, r.json
        code = c.get("/api/pairing", headers=host).json["code"]
        r = c.post("/api/pair", json={"code": code, "name": "kitchen tablet"})
        assert r.status_code == 200, r.json
    except BaseException:
        box.stop()
        raise
    return app, c, host, {"X-Companion-Token": r.json["token"]}, box
