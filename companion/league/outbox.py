"""A table's outbox: it plays on its local SQLite log and pushes the events to the league when it can.

    box = Outbox("table7.sqlite", transport_for("http://league:8770", token="t7-..."))
    box.start()        # a thread: push what is waiting, retry with back-off while offline
    box.status()       # {"state": "connected" | "offline" | "refused", "waiting": 12, ...}

The local game file is the truth: the table never waits for the league.  The outbox file ``DB.outbox``
(SQLite) holds ``league_outbox (game_id, acked_seq)``: the last seq the league acknowledged per game.  A push sends the
events after it, in order, at most ``batch`` at a time; the league stores them in one transaction and
answers the last seq it holds, which becomes ``acked_seq``.  Losing the answer (a drop, a ``kill -9``)
only means the events are sent again; the league checks a re-sent event equals the stored one and
stores nothing twice (:mod:`companion.league.push`).  Every game file of the table is pushed:
the ``--db`` file and the files beside it named ``STEM.*.SUFFIX`` (the table's other games), so a game
resumed later is pushed on from where the league stopped.
"""

from __future__ import annotations

import http.client
import json
import logging
import re
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .push import PushRefused

if TYPE_CHECKING:
    from companion.session.game_session import GameSession
    from companion.session.pg_store import PgConnection

log = logging.getLogger("companion.league")

OUTBOX_SCHEMA = """CREATE TABLE IF NOT EXISTS league_outbox (
    game_id TEXT PRIMARY KEY, acked_seq INTEGER NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS league_outbox_frames (game_id TEXT PRIMARY KEY, acked_seq INTEGER NOT NULL)"""


class Transport(Protocol):
    """Where the outbox sends a table's events and frames: ``HttpTransport`` or ``PgTransport``."""

    def push(self, batch: dict[str, Any]) -> dict[str, Any]: ...

    def push_frame(self, game_id: str, seq: int, jpeg: bytes) -> dict[str, Any]: ...

    def close(self) -> None: ...


#: A local game's events to push: (game id, read(since, limit) -> events, frames(since, upto), close).
Source = tuple[
    str | None,
    Callable[[int, int], list[dict[str, Any]]],
    Callable[[int, int], list[tuple[int, bytes]]],
    Callable[[], None],
]


class Offline(Exception):
    """The league (its server or its database) cannot be reached now; try again later."""


# -- transports ----------------------------------------------------------------------------------------
class HttpTransport:
    """Push to ``companion league serve`` over HTTP (``POST /league/api/push``)."""

    def __init__(self, url: str, token: str, timeout: float = 5.0) -> None:
        self.base = url.rstrip("/")
        self.url = self.base + "/league/api/push"
        self.token, self.timeout = token, timeout
        self.where = url

    def push(self, batch: dict[str, Any]) -> dict[str, Any]:
        body = json.dumps(batch).encode("utf-8")
        req = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "X-League-Token": self.token},
        )
        return self._send(req)

    def push_frame(self, game_id: str, seq: int, jpeg: bytes) -> dict[str, Any]:
        """``PUT /league/api/frames/GAME/SEQ`` (image/jpeg): the camera frame roll ``seq`` was read from."""
        req = urllib.request.Request(
            f"{self.base}/league/api/frames/{game_id}/{seq}",
            data=jpeg,
            method="PUT",
            headers={"Content-Type": "image/jpeg", "X-League-Token": self.token},
        )
        return self._send(req)

    def _send(self, req: urllib.request.Request) -> dict[str, Any]:
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                answer: dict[str, Any] = json.loads(resp.read())
                return answer
        except urllib.error.HTTPError as exc:
            try:
                answer = json.loads(exc.read())
            except (ValueError, OSError):
                answer = {}
            if exc.code >= 500 or exc.code in (408, 429) or not answer.get("error"):
                raise Offline(f"league answered HTTP {exc.code}") from None
            raise PushRefused(answer["error"], answer.get("message", f"HTTP {exc.code}")) from None
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
            # refused, reset, timed out, or an answer torn off by the link
            raise Offline(f"league unreachable: {getattr(exc, 'reason', exc)}") from None

    def close(self) -> None:
        pass


class PgTransport:
    """Push straight into the league's PostgreSQL database (the same checks run in this process)."""

    def __init__(self, dsn: str, token: str, timeout: float = 5.0) -> None:
        self.dsn, self.token, self.timeout = dsn, token, timeout
        from companion.session.pg_store import redact

        self.where = redact(dsn)
        self._conn: PgConnection | None = None

    def push(self, batch: dict[str, Any]) -> dict[str, Any]:
        from .push import accept_push

        return self._call(accept_push, batch)

    def push_frame(self, game_id: str, seq: int, jpeg: bytes) -> dict[str, Any]:
        from .push import accept_frame

        return self._call(accept_frame, game_id, seq, jpeg)

    def _call(self, fn: Callable[..., dict[str, Any]], *args: object) -> dict[str, Any]:
        import psycopg

        from companion.session import SessionError
        from companion.session.pg_store import connect

        try:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = connect(self.dsn, connect_timeout=self.timeout)
            return fn(self._conn, self.token, *args)
        except SessionError as exc:
            raise Offline(str(exc)) from None
        except psycopg.OperationalError as exc:
            self.close()
            raise Offline(f"league database unreachable: {str(exc).strip().splitlines()[0]}") from None

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:  # noqa: BLE001 - already broken
                pass
            self._conn = None


def transport_for(league: str, token: str, timeout: float = 5.0) -> Transport:
    """HTTP(S) URL of a league server, or a PostgreSQL DSN."""
    from companion.session.pg_store import is_postgres_dsn

    if is_postgres_dsn(league):
        return PgTransport(league, token, timeout)
    if league.startswith(("http://", "https://")):
        return HttpTransport(league, token, timeout)
    raise ValueError(f"--league must be an http(s):// URL or a postgresql:// DSN, not {league!r}")


# -- the outbox ----------------------------------------------------------------------------------------
class Outbox:
    """Pushes the game files at ``db_path`` (the current one and the renamed earlier ones).

    ``session`` (optional): a callable giving the open ``GameSession`` of the current game (the table
    page's).  The current game's events are then read through it, so that no second connection holds
    the game file when the page renames it for a new game; earlier games' files, which nobody writes
    any more, are read directly.  The acknowledged seqs live in ``DB.outbox`` (SQLite, WAL), beside.
    """

    def __init__(
        self,
        db_path: str | Path,
        transport: Transport,
        batch: int = 200,
        interval: float = 0.25,
        max_backoff: float = 5.0,
        session: Callable[[], GameSession | None] | None = None,
    ) -> None:
        self.db_path = Path(db_path)
        self.transport = transport
        self.batch = batch
        self.interval, self.max_backoff = interval, max_backoff
        self.session = session
        self.book_path = self.db_path.with_name(self.db_path.name + ".outbox")
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._book_lock = threading.Lock()
        self._book_conn: sqlite3.Connection | None = None
        self.state = "offline"
        self.last_error: str | None = None
        self.last_ok: float | None = None
        self.pushed = 0

    # -- bookkeeping ---------------------------------------------------------------------------------------
    def _book(self) -> sqlite3.Connection:
        """The outbox file's connection (opened once; callers hold ``_book_lock``).  ``synchronous=NORMAL``:
        an acknowledgement lost to a power cut only means those events are pushed again, which the
        league answers without storing anything twice."""
        if self._book_conn is None:
            conn = sqlite3.connect(
                str(self.book_path), timeout=10, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(OUTBOX_SCHEMA)
            self._book_conn = conn
        return self._book_conn

    def acked(self, game_id: str) -> int:
        with self._book_lock:
            row = (
                self._book()
                .execute("SELECT acked_seq FROM league_outbox WHERE game_id = ?", (game_id,))
                .fetchone()
            )
        return row[0] if row else 0

    def _ack(self, game_id: str, seq: int) -> None:
        with self._book_lock:
            self._book().execute(
                "INSERT INTO league_outbox (game_id, acked_seq, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (game_id) DO UPDATE SET acked_seq = max(acked_seq, excluded.acked_seq), "
                "updated_at = excluded.updated_at",
                (game_id, seq, datetime.now(UTC).isoformat(timespec="milliseconds")),
            )

    # -- the local games ----------------------------------------------------------------------------------
    def files(self) -> list[Path]:
        """The table's game file and the game files beside it (``STEM.*.SUFFIX``: earlier or later games of
        the table, whether the page renamed the old game's file or started a new file)."""
        stem, suffix = self.db_path.stem, self.db_path.suffix
        sibling = re.compile(rf"^{re.escape(stem)}\.[A-Za-z0-9_-]{{1,64}}{re.escape(suffix)}$")
        out = [p for p in sorted(self.db_path.parent.glob(f"{stem}.*{suffix}")) if sibling.match(p.name)]
        if self.db_path.exists() and self.db_path.stat().st_size > 0:
            out.append(self.db_path)
        return out

    def _sources(self) -> Iterator[Source]:
        """(game_id, read(since, limit) -> events, close) for every local game; the page's current game
        is read through its open session."""
        live = self.session() if self.session is not None else None
        live_id = str(live.game_id) if live is not None else None
        for path in self.files():
            game_id, read, frames, close = self._file_source(path)
            if game_id is None or game_id == live_id:
                close()
                continue
            yield game_id, read, frames, close
        if live is not None:
            yield live_id, (lambda since, limit: live.events(since)[:limit]), live.frames, (lambda: None)

    @staticmethod
    def _file_source(path: Path) -> Source:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'game_id'").fetchone()
        except sqlite3.Error:
            row = None
        if row is None:
            conn.close()
            return None, (lambda since, limit: []), (lambda since, upto: []), (lambda: None)

        # who made each change (``by``); a file written before events recorded it (opened read-only
        # here, so not migrated) has none
        by = (
            "changed_by"
            if any(r[1] == "changed_by" for r in conn.execute("PRAGMA table_info(events)"))
            else "NULL"
        )

        def read(since: int, limit: int) -> list[dict[str, Any]]:
            rows = conn.execute(
                f"SELECT seq, type, player, action, log, undone, at, {by} FROM events "
                "WHERE seq > ? ORDER BY seq LIMIT ?",
                (since, limit),
            ).fetchall()
            return [
                {
                    "seq": s,
                    "type": t,
                    "player": p,
                    "action": json.loads(a),
                    "log": json.loads(lg),
                    "undone": bool(u),
                    "at": at,
                    "by": None if b is None else json.loads(b),
                }
                for s, t, p, a, lg, u, at, b in rows
            ]

        has_frames = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'frames'"
        ).fetchone()

        def frames(since: int, upto: int) -> list[tuple[int, bytes]]:
            if not has_frames:
                return []
            return [
                (s, bytes(j))
                for s, j in conn.execute(
                    "SELECT seq, jpeg FROM frames WHERE seq > ? AND seq <= ? ORDER BY seq", (since, upto)
                )
            ]

        return row[0], read, frames, conn.close

    def waiting(self) -> int:
        """Events written locally and not yet acknowledged by the league."""
        n = 0
        for game_id, read, _frames, close in self._sources():
            try:
                if game_id is not None:
                    n += len(read(self.acked(game_id), 10**9))
            finally:
                close()
        return n

    # -- pushing --------------------------------------------------------------------------------------------
    def push_once(self) -> int:
        """Push everything waiting (raises ``Offline`` or ``PushRefused``); returns events newly stored."""
        stored = 0
        for game_id, read, frames, close in self._sources():
            try:
                while game_id is not None:
                    acked = self.acked(game_id)
                    rows = read(acked, self.batch)
                    if not rows:
                        break
                    events: list[dict[str, Any]] = [
                        {k: e.get(k) for k in ("seq", "type", "player", "action", "log", "at", "by")}
                        for e in rows
                    ]
                    answer = self.transport.push({"game_id": game_id, "events": events})
                    new_acked = int(answer["acked"])
                    # the league may hold more than this batch (an earlier, larger push whose answer was
                    # lost), never more than this table's log
                    if new_acked <= acked or (
                        new_acked > events[-1]["seq"]
                        and len(read(acked, new_acked - acked)) < new_acked - acked
                    ):
                        raise PushRefused(
                            "conflict",
                            f"the league answered seq {new_acked} for game {game_id} "
                            f"after a push of {events[0]['seq']}-{events[-1]['seq']}",
                        )
                    self._ack(game_id, new_acked)
                    stored += int(answer.get("stored", 0))
                if game_id is not None:
                    self._push_frames(game_id, frames)
            finally:
                close()
        return stored

    def _push_frames(self, game_id: str, frames: Callable[[int, int], list[tuple[int, bytes]]]) -> None:
        """Push the camera frames of the events the league holds, in order, each once acknowledged
        (``league_outbox_frames``); a frame sent again is answered without storing it twice."""
        with self._book_lock:
            row = (
                self._book()
                .execute("SELECT acked_seq FROM league_outbox_frames WHERE game_id = ?", (game_id,))
                .fetchone()
            )
        for seq, jpeg in frames(row[0] if row else 0, self.acked(game_id)):
            try:
                self.transport.push_frame(game_id, seq, jpeg)
            except PushRefused as exc:
                if exc.code == "forbidden":  # the token: nothing of this table goes through
                    raise
                # a frame the league will never take must not hold back the table's events: say so, go on
                log.warning("league refused the frame of event %s of game %s: %s", seq, game_id, exc.message)
            with self._book_lock:
                self._book().execute(
                    "INSERT INTO league_outbox_frames (game_id, acked_seq) VALUES (?, ?) "
                    "ON CONFLICT (game_id) DO UPDATE SET acked_seq = excluded.acked_seq",
                    (game_id, seq),
                )

    def sync(self) -> bool:
        """One attempt: push what is waiting and record the outcome in the status."""
        try:
            n = self.push_once()
        except Offline as exc:
            self._set("offline", str(exc))
            return False
        except PushRefused as exc:
            self._set("refused", f"{exc.code}: {exc.message}")
            log.warning("league refused a push: %s", exc.message)
            return False
        except sqlite3.Error as exc:  # the page closed the game for a new one: next time
            self._set(self.state, f"local log busy: {exc}")
            return False
        except Exception as exc:  # noqa: BLE001 - the thread must live on; say what happened
            log.exception("league push failed")
            self._set("offline", f"{type(exc).__name__}: {exc}")
            return False
        with self._lock:
            self.pushed += n
        self._set("connected", None)
        return True

    def _set(self, state: str, error: str | None) -> None:
        with self._lock:
            self.state, self.last_error = state, error
            if state == "connected":
                self.last_ok = time.time()

    def status(self) -> dict[str, Any]:
        with self._lock:
            body = {
                "state": self.state,
                "error": self.last_error,
                "last_ok": self.last_ok,
                "pushed": self.pushed,
                "league": getattr(self.transport, "where", None),
            }
        try:
            body["waiting"] = self.waiting()
        except sqlite3.Error:
            body["waiting"] = None
        return body

    # -- the thread ---------------------------------------------------------------------------------------
    def start(self) -> Outbox:
        self._thread = threading.Thread(target=self._run, name="league-outbox", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.transport.close()
        with self._book_lock:
            if self._book_conn is not None:
                self._book_conn.close()
                self._book_conn = None

    def _run(self) -> None:
        delay = self.interval
        while not self._stop.is_set():
            ok = self.sync()
            delay = self.interval if ok else min(self.max_backoff, max(self.interval, delay * 2))
            self._wake.wait(delay)
            self._wake.clear()
