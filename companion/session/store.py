"""The durable event log: one SQLite file per game (WAL journal, one transaction per event).

Table ``events``: ``seq`` (never reused), ``type``, ``player``, ``action`` (JSON), ``log`` (JSON),
``undone`` (0/1), ``at`` (UTC time written).  Table ``meta``: ``game_id``, ``format``.  Event 1 is
``create``, whose action is the full set-up.  An event is committed (``synchronous=FULL``) before
the caller acknowledges it.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

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
    at TEXT NOT NULL
);
"""


class SessionError(Exception):
    """The game file or database is missing, not a game, or damaged."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class EventStore:
    def __init__(self, path: str | Path, create: bool = False):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise SessionError(f"no game database at {self.path}")
        try:
            self.conn = sqlite3.connect(str(self.path), timeout=10, check_same_thread=False, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise SessionError(f"{self.path} is not a game database: {exc}") from None
        if not create:
            fmt = self.meta("format")
            if fmt != FORMAT:
                raise SessionError(f"{self.path} is not a game database of format {FORMAT} (found {fmt!r})")

    def close(self) -> None:
        self.conn.close()

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def init(self, game_id: str, setup: dict) -> dict:
        if self.conn.execute("SELECT count(*) FROM events").fetchone()[0]:
            raise SessionError(f"{self.path} already holds a game")
        with self.transaction():
            self.conn.execute("INSERT INTO meta VALUES ('format', ?), ('game_id', ?)", (FORMAT, game_id))
            return self._insert("create", None, setup, [])

    def transaction(self):
        return _Tx(self.conn)

    def append(self, type_: str, player: str | None, action: dict, log: list[str]) -> dict:
        """Append one event in its own transaction; returns it once committed."""
        with self.transaction():
            return self._insert(type_, player, action, log)

    def insert(self, type_: str, player: str | None, action: dict, log: list[str]) -> dict:
        """Insert inside a transaction the caller holds (``with store.transaction(): ...``)."""
        return self._insert(type_, player, action, log)

    def _insert(self, type_: str, player: str | None, action: dict, log: list[str], undone: int = 0,
                at: str | None = None) -> dict:
        at = at or now()
        cur = self.conn.execute(
            "INSERT INTO events (type, player, action, log, undone, at) VALUES (?, ?, ?, ?, ?, ?)",
            (type_, player, json.dumps(action), json.dumps(log), undone, at),
        )
        return {"seq": cur.lastrowid, "type": type_, "player": player, "action": action, "log": log,
                "undone": bool(undone), "at": at}

    def last_seq(self) -> int:
        return self.conn.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0]

    def events(self, since: int = 0) -> list[dict]:
        rows = self.conn.execute(
            "SELECT seq, type, player, action, log, undone, at FROM events WHERE seq > ? ORDER BY seq", (since,)
        ).fetchall()
        out = []
        for seq, type_, player, action, log, undone, at in rows:
            try:
                out.append({"seq": seq, "type": type_, "player": player, "action": json.loads(action),
                            "log": json.loads(log), "undone": bool(undone), "at": at})
            except json.JSONDecodeError as exc:
                raise SessionError(f"event {seq} in {self.path} is damaged: {exc}") from None
        return out

    def mark_undone(self, seqs: list[int], marker: dict) -> dict:
        """Mark events undone and log the undo (inside the caller's transaction)."""
        self.conn.executemany("UPDATE events SET undone = 1 WHERE seq = ?", [(s,) for s in seqs])
        return self._insert("undo", None, marker, [f"undid events {seqs}"])


class _Tx:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self):
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")
        return False
