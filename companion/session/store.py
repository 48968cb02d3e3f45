"""The durable event log: one SQLite file per game (WAL journal, one transaction per event).

Table ``events``: ``seq`` (never reused), ``type``, ``player``, ``action`` (JSON), ``log`` (JSON),
``undone`` (0/1), ``at`` (UTC time written), ``changed_by`` (JSON, who made the change: the event's
``by``, see :func:`check_by`; NULL in logs written before it, and never read by replay).  Table
``frames``: ``seq`` (the roll event read from it), ``jpeg`` (the camera frame, for a judge; never replayed).  Table ``meta``: ``game_id``, ``format``.  Event 1 is
``create``, whose action is the full set-up.  An event is committed (``synchronous=FULL``) before
the caller acknowledges it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol

FORMAT = "dragon-dice-companion/game-log/1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    type TEXT NOT NULL,
    player TEXT,
    action TEXT NOT NULL,
    log TEXT NOT NULL DEFAULT '[]',
    undone INTEGER NOT NULL DEFAULT 0,
    at TEXT NOT NULL,
    changed_by TEXT
);
CREATE TABLE IF NOT EXISTS frames (seq INTEGER PRIMARY KEY REFERENCES events (seq), jpeg BLOB NOT NULL);
"""
MAX_FRAME_BYTES = 2 * 1024 * 1024  # a roll's camera frame, JPEG (about 1280 px, quality 80: ~0.2 MB)

BY_ROLES = ("host", "tablet", "demo", "cli")
BY_SOURCES = ("typed", "camera", "serial", "demo")


def check_by(by: object) -> dict[str, Any] | None:
    """Who made a change, as an event records it: ``{"role": "tablet", "name": "kitchen tablet",
    "source": "camera"}`` (``role`` one of ``BY_ROLES``; ``name`` the paired tablet's; ``source`` how a
    roll's faces came in, one of ``BY_SOURCES``; ``asked_by`` the tablet whose request the host
    confirmed, for a game the host started on a tablet's request), or None (not known: logs written
    before it).  Raises ``ValueError`` naming what is wrong."""
    if by is None:
        return None
    if not isinstance(by, dict) or set(by) - {"role", "name", "source", "asked_by"}:
        raise ValueError("by must be an object with role, and optionally name, source and asked_by")
    if by.get("role") not in BY_ROLES:
        raise ValueError(f"by.role must be one of {', '.join(BY_ROLES)}, not {by.get('role')!r}")
    if "name" in by and not (isinstance(by["name"], str) and 0 < len(by["name"]) <= 80):
        raise ValueError("by.name must be a name of 1-80 characters")
    if "asked_by" in by and not (isinstance(by["asked_by"], str) and 0 < len(by["asked_by"]) <= 80):
        raise ValueError("by.asked_by must be a name of 1-80 characters")
    if "source" in by and by["source"] not in BY_SOURCES:
        raise ValueError(f"by.source must be one of {', '.join(BY_SOURCES)}, not {by['source']!r}")
    return dict(by)


class SessionError(Exception):
    """The game file or database is missing, not a game, or damaged."""


def event_record(
    seq: int,
    type_: str,
    player: str | None,
    action: Any,
    log: Any,
    undone: object,
    at: str,
    by: dict[str, Any] | None,
) -> dict[str, Any]:
    """One event as both stores hand it out (decoded: ``action``/``log``/``by`` as JSON values)."""
    return {
        "seq": seq,
        "type": type_,
        "player": player,
        "action": action,
        "log": log,
        "undone": bool(undone),
        "at": at,
        "by": by,
    }


def undo_log(seqs: list[int]) -> list[str]:
    """The log line of an undo event (the same in both stores, so a pushed log compares equal)."""
    return [f"undid events {seqs}"]


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class EventLog(Protocol):
    """What a ``GameSession`` needs of its durable event log: ``EventStore`` (SQLite) and
    ``pg_store.PgEventStore`` (PostgreSQL) both have it."""

    @property
    def path(self) -> str | Path: ...  # what messages call the log

    def meta(self, key: str) -> str | None: ...

    def close(self) -> None: ...

    def transaction(self) -> AbstractContextManager[object]: ...

    def insert(
        self,
        type_: str,
        player: str | None,
        action: dict[str, Any],
        log: list[str],
        by: dict[str, Any] | None = None,
    ) -> dict[str, Any]: ...

    def last_seq(self) -> int: ...

    def events(self, since: int = 0) -> list[dict[str, Any]]: ...

    def put_frame(self, seq: int, jpeg: bytes) -> None: ...

    def frame(self, seq: int) -> bytes | None: ...

    def frames(self, since: int, upto: int) -> list[tuple[int, bytes]]: ...

    def mark_undone(
        self, seqs: list[int], marker: dict[str, Any], by: dict[str, Any] | None = None
    ) -> dict[str, Any]: ...


def check_frame(seq: int, jpeg: object) -> None:
    """Refuse a camera frame that is not a JPEG of at most ``MAX_FRAME_BYTES`` (both stores keep frames)."""
    if not isinstance(jpeg, bytes) or not jpeg.startswith(b"\xff\xd8\xff") or len(jpeg) > MAX_FRAME_BYTES:
        raise SessionError(f"the frame of event {seq} must be a JPEG of at most {MAX_FRAME_BYTES} bytes")


class EventWriter:
    """The writes both stores make the same way (``append``, ``insert``, ``mark_undone``: the time, the
    checked ``by`` and the event handed back), on the dialect's pieces each store gives:
    ``transaction``, ``_write`` (one event row, inside the caller's transaction; returns its ``seq``),
    ``_set_undone`` (mark rows undone) and ``_need_transaction`` (refuse a write made outside a
    transaction where the store can tell)."""

    def transaction(self) -> AbstractContextManager[object]:
        raise NotImplementedError

    def _write(
        self, type_: str, player: str | None, action: Any, log: list[str], at: str, by: dict[str, Any] | None
    ) -> int:
        raise NotImplementedError

    def _set_undone(self, seqs: list[int]) -> None:
        raise NotImplementedError

    def _need_transaction(self, what: str) -> None:
        """Raise ``SessionError`` when ``what`` is called outside the caller's transaction."""

    def append(
        self,
        type_: str,
        player: str | None,
        action: dict[str, Any],
        log: list[str],
        by: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Append one event in its own transaction; returns it once committed."""
        with self.transaction():
            return self.insert(type_, player, action, log, by=by)

    def insert(
        self,
        type_: str,
        player: str | None,
        action: dict[str, Any],
        log: list[str],
        by: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Insert inside a transaction the caller holds (``with store.transaction(): ...``)."""
        self._need_transaction("insert")
        at = now()
        by = check_by(by)
        seq = self._write(type_, player, action, log, at, by)
        return event_record(seq, type_, player, action, log, False, at, by)

    def mark_undone(
        self, seqs: list[int], marker: dict[str, Any], by: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Mark events undone and log the undo (inside the caller's transaction)."""
        self._need_transaction("mark_undone")
        self._set_undone(seqs)
        return self.insert("undo", None, marker, undo_log(seqs), by=by)


class EventStore(EventWriter):
    def __init__(self, path: str | Path, create: bool = False):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise SessionError(f"no game database at {self.path}")
        if create and not self.path.parent.is_dir():
            raise SessionError(f"{self.path}: the folder {self.path.parent} does not exist")
        if not create:  # read it read-only first: a file that is not a game log is refused untouched
            self._check_format()
        try:
            self.conn = sqlite3.connect(
                str(self.path), timeout=10, check_same_thread=False, isolation_level=None
            )
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.executescript(SCHEMA)
            columns = {r[1] for r in self.conn.execute("PRAGMA table_info(events)")}
            if "changed_by" not in columns:  # a log written before events recorded who made them
                self.conn.execute("ALTER TABLE events ADD COLUMN changed_by TEXT")
        except sqlite3.DatabaseError as exc:
            raise SessionError(f"{self.path} is not a game database: {exc}") from None

    def _check_format(self) -> None:
        """Refuse (``SessionError``) a file whose ``meta`` format is not ``FORMAT``, opened read-only."""
        try:
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        except sqlite3.DatabaseError as exc:
            raise SessionError(f"{self.path} is not a game database: {exc}") from None
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise SessionError(f"{self.path} is not a game database: {exc}") from None
        finally:
            conn.close()
        fmt = None if row is None else row[0]
        if fmt != FORMAT:
            raise SessionError(f"{self.path} is not a game database of format {FORMAT} (found {fmt!r})")

    def close(self) -> None:
        self.conn.close()

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def init(self, game_id: str, setup: dict[str, Any], by: dict[str, Any] | None = None) -> dict[str, Any]:
        if self.conn.execute("SELECT count(*) FROM events").fetchone()[0]:
            raise SessionError(f"{self.path} already holds a game")
        with self.transaction():
            self.conn.execute("INSERT INTO meta VALUES ('format', ?), ('game_id', ?)", (FORMAT, game_id))
            return self.insert("create", None, setup, [], by=by)

    def transaction(self) -> _Tx:
        return _Tx(self.conn)

    def _write(
        self, type_: str, player: str | None, action: Any, log: list[str], at: str, by: dict[str, Any] | None
    ) -> int:
        cur = self.conn.execute(
            "INSERT INTO events (type, player, action, log, undone, at, changed_by) VALUES (?, ?, ?, ?, 0, ?, ?)",
            (type_, player, json.dumps(action), json.dumps(log), at, None if by is None else json.dumps(by)),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def last_seq(self) -> int:
        return int(self.conn.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0])

    def events(self, since: int = 0) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT seq, type, player, action, log, undone, at, changed_by FROM events WHERE seq > ? ORDER BY seq",
            (since,),
        ).fetchall()
        out: list[dict[str, Any]] = []
        for seq, type_, player, action, log, undone, at, by in rows:
            try:
                out.append(
                    event_record(
                        seq,
                        type_,
                        player,
                        json.loads(action),
                        json.loads(log),
                        undone,
                        at,
                        None if by is None else json.loads(by),
                    )
                )
            except json.JSONDecodeError as exc:
                raise SessionError(f"event {seq} in {self.path} is damaged: {exc}") from None
        return out

    def put_frame(self, seq: int, jpeg: bytes) -> None:
        """Keep the camera frame a roll was read from (inside the caller's transaction, with the event)."""
        check_frame(seq, jpeg)
        self.conn.execute("INSERT INTO frames (seq, jpeg) VALUES (?, ?)", (seq, jpeg))

    def frame(self, seq: int) -> bytes | None:
        row = self.conn.execute("SELECT jpeg FROM frames WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else bytes(row[0])

    def frames(self, since: int, upto: int) -> list[tuple[int, bytes]]:
        """(seq, JPEG) of the frames kept for events ``since`` < seq <= ``upto``, in order."""
        return [
            (s, bytes(j))
            for s, j in self.conn.execute(
                "SELECT seq, jpeg FROM frames WHERE seq > ? AND seq <= ? ORDER BY seq", (since, upto)
            )
        ]

    def _set_undone(self, seqs: list[int]) -> None:
        self.conn.executemany("UPDATE events SET undone = 1 WHERE seq = ?", [(s,) for s in seqs])


class _Tx:
    """``BEGIN IMMEDIATE`` .. ``COMMIT`` (``ROLLBACK`` on an exception); with ``lock``, held throughout
    (a connection shared between threads, as :class:`~.library.GameLibrary`'s)."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock | None = None):
        self.conn, self.lock = conn, lock

    def __enter__(self) -> sqlite3.Connection:
        if self.lock is not None:
            self.lock.acquire()
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except BaseException:
            if self.lock is not None:
                self.lock.release()
            raise
        return self.conn

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> Literal[False]:
        try:
            self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")
        finally:
            if self.lock is not None:
                self.lock.release()
        return False
