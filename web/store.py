"""The game store: the current game session, its live listeners, and the roll being read.

``GameStore`` holds the one game this server referees (a ``companion.session.GameSession`` on a
SQLite file).  Every change goes through it under one lock, and every new event wakes the
server-sent-event streams waiting in ``wait``.  Besides the durable event log it keeps *notices*:
short-lived news that is not part of the game (a camera lost, a die read but not yet confirmed),
which are pushed to the pages but never replayed.

The last ``RECENT_EVENTS`` events are also kept in memory, each already written as JSON, so a new
event reaches hundreds of open live streams without each of them reading the SQLite log
(``frames_since``); a stream further behind reads the log.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from flask import Flask

from .jsonable import jsonable

log = logging.getLogger("companion.web")

RECENT_EVENTS = 512


class GameStore:
    def __init__(self, db_path: str | Path):
        self.db_path = Path(db_path)
        self.session = None
        self.lock = threading.RLock()
        self._cond = threading.Condition(threading.Lock())
        self._last_seq = 0
        self._notice_ids = itertools.count(1)
        self._notices: deque[dict] = deque(maxlen=200)
        self.closing = False
        self.reading: dict | None = None  # the roll read (or typed) but not yet confirmed
        # the newest events of the current game as (seq, event, event as JSON), guarded by _cond
        self._recent: deque[tuple[int, dict, str]] = deque(maxlen=RECENT_EVENTS)
        self._recent_gid: str | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def init_app(self, app: Flask) -> None:
        app.extensions["game_store"] = self
        self.open_existing()

    def open_existing(self) -> bool:
        """Open the game in db_path if there is one (a restarted server shows the same game)."""
        from companion.session import GameSession

        if not self.db_path.exists() or self.db_path.stat().st_size == 0:
            return False
        with self.lock:
            self.session = GameSession.open(self.db_path)
            self._catch_up(reset=True)
        log.info("opened game %s from %s", self.session.game_id, self.db_path)
        return True

    def close(self) -> None:
        self.closing = True
        with self._cond:
            self._cond.notify_all()

    @property
    def game_id(self) -> str | None:
        return None if self.session is None else str(self.session.game_id)

    def _catch_up(self, reset: bool = False) -> None:
        """Read the events written since the last known one (all of them with ``reset``, after the
        game changed): they become ``last_seq`` and the in-memory tail of the log."""
        since = 0 if reset else self._last_seq
        events = self.session.events(since) if self.session is not None else []
        frames = []
        for event in events:
            e = jsonable(event)
            frames.append((int(e["seq"]), e, json.dumps(e, separators=(",", ":"))))
        with self._cond:
            if reset:
                self._recent.clear()
                self._recent_gid = self.game_id
                self._last_seq = 0
            for frame in frames:
                self._recent.append(frame)
                if frame[1].get("type") == "undo":
                    self._mark_undone(frame[1].get("action", {}).get("undid") or [])
            self._last_seq = max([self._last_seq] + [f[0] for f in frames])

    def _mark_undone(self, seqs: list) -> None:
        undone = {int(x) for x in seqs if isinstance(x, int)}
        for i, (seq, e, _) in enumerate(self._recent):
            if seq in undone and not e.get("undone"):
                e = dict(e, undone=True)
                self._recent[i] = (seq, e, json.dumps(e, separators=(",", ":")))

    # -- changes ---------------------------------------------------------------------------
    def create(self, setup: Any):
        """A new game replaces the current one; the old file is kept beside it, renamed."""
        from companion.session import GameSession

        with self.lock:
            if self.db_path.exists() and self.session is not None:
                old = self.db_path.with_name(f"{self.db_path.stem}.{self.game_id}{self.db_path.suffix}")
                close = getattr(self.session, "close", None)
                if close:
                    close()
                self.db_path.replace(old)
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
            self.session = GameSession.create(self.db_path, setup)
            self.reading = None
            self._catch_up(reset=True)
        self.notice("new_game", {"game_id": self.game_id})
        return self.session

    def submit(self, action: dict) -> list:
        with self.lock:
            self._need_game()
            events = self.session.submit(action)
            self._catch_up()
            self.reading = None
        self._wake()
        return events

    def undo(self, n: int) -> Any:
        with self.lock:
            self._need_game()
            result = self.session.undo(n)
            self._catch_up()
            self.reading = None
        self.notice("undo", {"n": n})
        return result

    def _need_game(self) -> None:
        from .errors import Conflict

        if self.session is None:
            raise Conflict("no game yet: create one first (POST /api/games)", code="no_game")

    # -- notices (not logged) -------------------------------------------------------------
    def notice(self, kind: str, payload: dict) -> None:
        with self._cond:
            self._notices.append({"nid": next(self._notice_ids), "kind": kind, "at": time.time(),
                                  "data": payload})
            self._cond.notify_all()

    def set_reading(self, reading: dict | None) -> None:
        with self.lock:
            self.reading = reading
        self.notice("reading", {"reading": reading})

    # -- listening -------------------------------------------------------------------------
    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    @property
    def last_seq(self) -> int:
        return self._last_seq

    def last_notice_id(self) -> int:
        with self._cond:
            return self._notices[-1]["nid"] if self._notices else 0

    def wait(self, seq: int, nid: int, timeout: float) -> None:
        """Block until an event after seq or a notice after nid exists, or timeout, or closing."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self.closing and self._last_seq <= seq and (
                    not self._notices or self._notices[-1]["nid"] <= nid):
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._cond.wait(left)

    def events_since(self, seq: int) -> list:
        with self.lock:
            if self.session is None:
                return []
            return list(self.session.events(seq))

    def frames_since(self, seq: int) -> tuple[str | None, list[tuple[int, str]]]:
        """The current game's id and its events after ``seq`` as (seq, JSON text), from memory when
        the in-memory tail reaches back that far, else from the log."""
        with self._cond:
            gid = self._recent_gid
            if gid == self.game_id and (seq >= self._last_seq or (self._recent and self._recent[0][0] <= seq + 1)):
                return gid, [(s, text) for s, _, text in self._recent if s > seq]
        with self.lock:
            gid = self.game_id
            return gid, [(int(e["seq"]), json.dumps(e, separators=(",", ":")))
                         for e in (jsonable(x) for x in self.events_since(seq))]

    def notices_since(self, nid: int) -> list[dict]:
        with self._cond:
            return [n for n in self._notices if n["nid"] > nid]
