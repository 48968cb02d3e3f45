"""The games of one table: ``GameLibrary``, an index of game files beside the table's game file.

Every game keeps its own durable event log (``EventStore``: one SQLite file, WAL, one transaction
per event); nothing here rewrites or moves a game file.  The table's game file (``--db FILE``)
holds its first game; each later game is a new file beside it, ``STEM.YYYYmmdd-HHMMSS-XXXX.SUFFIX``.
The index, ``FILE.library`` (SQLite), keeps for each game its file, players, edition, dates and
state (in progress or ended, winner), which game is the table's current one, and the requests of
tablets to start, resume or end a game, which the host confirms or declines.

Switching games only changes the ``current`` row, so a crash never leaves the table without its
games; a game file the index does not know (made before the index, or by a crash between writing
the game and indexing it) is found again at start (``discover``: the table file and its
``STEM.*.SUFFIX`` siblings that are game logs).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .store import FORMAT, SessionError, _Tx, now

if TYPE_CHECKING:
    from .game_session import GameSession


SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    edition TEXT,
    players TEXT NOT NULL,
    created_at TEXT,
    last_played_at TEXT,
    last_seq INTEGER NOT NULL DEFAULT 0,
    over INTEGER NOT NULL DEFAULT 0,
    winner TEXT,
    ended_at TEXT,
    ended_by TEXT
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    game_id TEXT,
    asked_by TEXT NOT NULL,
    asked_at TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    decided_at TEXT,
    result_game_id TEXT
);
"""

REQUEST_KINDS = ("new", "resume", "end")
MAX_PENDING_REQUESTS = 20


class LibraryError(SessionError):
    """A game or request the library does not hold, or a request already decided."""


def progress(session: GameSession, last_event: dict[str, Any]) -> dict[str, Any]:
    """The part of a game's library line that an action changes (what ``GameLibrary.update`` writes):
    last played, last seq, over, winner -- from the event just written and the game's state, without
    reading the whole log again as ``summarize`` does (an action late in a long game would pay for it)."""
    state = session.state_dict()
    names = {p.get("id"): p.get("name") for p in state.get("players", []) if isinstance(p, dict)}
    winner = state.get("winner")
    return {
        "game_id": str(session.game_id),
        "last_played_at": last_event["at"],
        "last_seq": int(last_event["seq"]),
        "over": bool(state.get("over")),
        "winner": names.get(winner, winner) if winner else None,
    }


def summarize(session: GameSession) -> dict[str, Any]:
    """What the library keeps of a game: id, kind, edition, player names, dates, seq, winner."""
    events = session.events()
    setup = events[0]["action"] if events else {}
    state = session.state_dict()
    names = {p.get("id"): p.get("name") for p in state.get("players", []) if isinstance(p, dict)}
    winner = state.get("winner")
    return {
        "game_id": str(session.game_id),
        "game": setup.get("game") or "dragon_dice",
        "edition": None if setup.get("game") == "battle_dice" else (setup.get("edition") or "v4"),
        "players": [names[k] for k in names],
        "created_at": events[0]["at"] if events else None,
        "last_played_at": events[-1]["at"] if events else None,
        "last_seq": int(events[-1]["seq"]) if events else 0,
        "over": bool(state.get("over")),
        "winner": names.get(winner, winner) if winner else None,
    }


def is_game_file(path: Path) -> bool:
    """True if path is a game log (read only: a file that is not one is left untouched)."""
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return False
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        return False
    return bool(row) and row[0] == FORMAT


def check_table_file(path: str | Path) -> None:
    """SessionError unless ``path`` is absent, empty or a game log: a table never takes over (or
    writes beside) a file that is something else."""
    p = Path(path)
    if p.is_dir():
        raise SessionError(f"{p} is a folder, not a game database file")
    if p.exists() and p.stat().st_size > 0 and not is_game_file(p):
        raise SessionError(
            f"{p} is not a game database of this companion; it was left as it was (choose another --db)"
        )


class GameLibrary:
    def __init__(self, table_path: str | Path):
        self.table_path = Path(table_path)
        self.path = self.table_path.with_name(self.table_path.name + ".library")
        self._lock = threading.RLock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=10, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    def _tx(self) -> _Tx:
        return _Tx(self._db, self._lock)

    # -- files -------------------------------------------------------------------------------
    def candidates(self) -> list[Path]:
        """The table file and its ``STEM.*.SUFFIX`` siblings."""
        t = self.table_path
        pattern = f"{t.stem}.*{t.suffix}" if t.suffix else f"{t.name}.*"
        siblings = sorted(
            p
            for p in t.parent.glob(pattern)
            if p != t and not p.name.endswith((".library", ".tablets", "-wal", "-shm", "-journal", ".lock"))
        )
        return [t, *siblings]

    def unknown_files(self) -> list[Path]:
        with self._lock:
            known = {r[0] for r in self._db.execute("SELECT path FROM games")}
        return [p for p in self.candidates() if str(p.resolve()) not in known and is_game_file(p)]

    def new_path(self) -> Path:
        """Where a new game is written: the table file while it holds no game, else a new sibling."""
        t = self.table_path
        with self._lock:
            used = self._db.execute("SELECT 1 FROM games WHERE path = ?", (str(t.resolve()),)).fetchone()
        if not used and (not t.exists() or t.stat().st_size == 0):
            return t
        while True:
            stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
            p = t.with_name(f"{t.stem}.{stamp}-{secrets.token_hex(2)}{t.suffix}")
            if not p.exists():
                return p

    # -- games -------------------------------------------------------------------------------
    def register(self, path: Path, summary: dict[str, Any]) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO games (game_id, path, game, edition, players, created_at, last_played_at, last_seq,"
                " over, winner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(game_id) DO UPDATE SET"
                " path = excluded.path",
                (
                    summary["game_id"],
                    str(Path(path).resolve()),
                    summary["game"],
                    summary["edition"],
                    json.dumps(summary["players"]),
                    summary["created_at"],
                    summary["last_played_at"],
                    summary["last_seq"],
                    int(summary["over"]),
                    summary["winner"],
                ),
            )

    def update(self, summary: dict[str, Any]) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE games SET last_played_at = ?, last_seq = ?, over = ?, winner = ? WHERE game_id = ?",
                (
                    summary["last_played_at"],
                    summary["last_seq"],
                    int(summary["over"]),
                    summary["winner"],
                    summary["game_id"],
                ),
            )

    def path_of(self, game_id: str) -> Path:
        with self._lock:
            row = self._db.execute("SELECT path FROM games WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            raise LibraryError(f"no game {game_id!r} in this table's library")
        return Path(row[0])

    def current(self) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'current'").fetchone()
        return row[0] if row else None

    def set_current(self, game_id: str) -> None:
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('current', ?)", (game_id,))

    def end(self, game_id: str, by: str) -> None:
        self.path_of(game_id)
        with self._tx() as db:
            db.execute("UPDATE games SET ended_at = ?, ended_by = ? WHERE game_id = ?", (now(), by, game_id))

    def reopen(self, game_id: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE games SET ended_at = NULL, ended_by = NULL WHERE game_id = ?", (game_id,))

    def ended(self, game_id: str | None) -> bool:
        if game_id is None:
            return False
        with self._lock:
            row = self._db.execute("SELECT ended_at FROM games WHERE game_id = ?", (game_id,)).fetchone()
        return bool(row and row[0])

    def games(self) -> list[dict[str, Any]]:
        """Every game, the most recently played first; ``status``: in_progress, over (a winner) or
        ended (by the host, without a winner)."""
        current = self.current()
        with self._lock:
            rows = self._db.execute(
                "SELECT game_id, path, game, edition, players, created_at, last_played_at, last_seq, over, winner,"
                " ended_at, ended_by FROM games ORDER BY coalesce(last_played_at, created_at) DESC"
            ).fetchall()
        out = []
        for gid, path, game, edition, players, created, played, seq, over, winner, ended_at, ended_by in rows:
            status = "over" if over else "ended" if ended_at else "in_progress"
            out.append(
                {
                    "game_id": gid,
                    "file": Path(path).name,
                    "game": game,
                    "edition": edition,
                    "players": json.loads(players),
                    "created_at": created,
                    "last_played_at": played,
                    "last_seq": seq,
                    "status": status,
                    "winner": winner,
                    "ended_at": ended_at,
                    "ended_by": ended_by,
                    "current": gid == current,
                }
            )
        return out

    # -- requests from tablets ------------------------------------------------------------------
    def ask(self, kind: str, body: dict[str, Any], game_id: str | None, asked_by: str) -> dict[str, Any]:
        if kind not in REQUEST_KINDS:
            raise LibraryError(f"a request is one of {', '.join(REQUEST_KINDS)}, not {kind!r}")
        with self._tx() as db:
            n = db.execute("SELECT count(*) FROM requests WHERE status = 'pending'").fetchone()[0]
            if n >= MAX_PENDING_REQUESTS:
                raise LibraryError(
                    f"{n} requests are already waiting for the host; wait until the host has answered them"
                )
            cur = db.execute(
                "INSERT INTO requests (kind, body, game_id, asked_by, asked_at) VALUES (?, ?, ?, ?, ?)",
                (kind, json.dumps(body), game_id, asked_by, now()),
            )
            rid = cur.lastrowid
            assert rid is not None, "an INSERT sets lastrowid"
        return self.request(rid)

    def request(self, rid: int) -> dict[str, Any]:
        with self._lock:
            row = self._db.execute(
                "SELECT id, kind, body, game_id, asked_by, asked_at, status, decided_at, result_game_id"
                " FROM requests WHERE id = ?",
                (rid,),
            ).fetchone()
        if row is None:
            raise LibraryError(f"no request {rid}")
        return _request(row)

    def requests(self, status: str | None = "pending") -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, kind, body, game_id, asked_by, asked_at, status, decided_at, result_game_id"
                " FROM requests WHERE ? IS NULL OR status = ? ORDER BY id",
                (status, status),
            ).fetchall()
        return [_request(r) for r in rows]

    def decide(self, rid: int, status: str, result_game_id: str | None = None) -> dict[str, Any]:
        with self._tx() as db:
            row = db.execute("SELECT status FROM requests WHERE id = ?", (rid,)).fetchone()
            if row is None:
                raise LibraryError(f"no request {rid}")
            if row[0] != "pending":
                raise LibraryError(f"request {rid} was already {row[0]}")
            db.execute(
                "UPDATE requests SET status = ?, decided_at = ?, result_game_id = ? WHERE id = ?",
                (status, now(), result_game_id, rid),
            )
        return self.request(rid)


def _request(row: tuple[Any, ...]) -> dict[str, Any]:
    rid, kind, body, game_id, asked_by, asked_at, status, decided_at, result = row
    return {
        "id": rid,
        "kind": kind,
        "body": json.loads(body),
        "game_id": game_id,
        "asked_by": asked_by,
        "asked_at": asked_at,
        "status": status,
        "decided_at": decided_at,
        "result_game_id": result,
    }
