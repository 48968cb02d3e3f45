"""The game store: the current game session, its live listeners, and the roll being read.

``GameStore`` holds the one game this server referees (a ``companion.session.GameSession`` on a
SQLite file).  Every change goes through it under one lock, and every new event wakes the
server-sent-event streams waiting in ``wait``.  Besides the durable event log it keeps *notices*:
short-lived news that is not part of the game (a camera lost, a die read but not yet confirmed),
which are pushed to the pages but never replayed.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from flask import Flask

log = logging.getLogger("companion.web")


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
            self._last_seq = self._max_seq()
        log.info("opened game %s from %s", self.session.game_id, self.db_path)
        return True

    def close(self) -> None:
        self.closing = True
        with self._cond:
            self._cond.notify_all()

    @property
    def game_id(self) -> str | None:
        return None if self.session is None else str(self.session.game_id)

    def _max_seq(self, since: int = 0) -> int:
        """The last event's seq (reading only the events after ``since``, which is known)."""
        events = self.session.events(since) if self.session is not None else []
        return max((int(_seq(e)) for e in events), default=since)

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
            self._last_seq = self._max_seq()
        self.notice("new_game", {"game_id": self.game_id})
        return self.session

    def submit(self, action: dict) -> list:
        with self.lock:
            self._need_game()
            events = self.session.submit(action)
            self._last_seq = self._max_seq(self._last_seq)
            self.reading = None
        self._wake()
        return events

    def undo(self, n: int) -> Any:
        with self.lock:
            self._need_game()
            result = self.session.undo(n)
            self._last_seq = self._max_seq(self._last_seq)
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

    def notices_since(self, nid: int) -> list[dict]:
        with self._cond:
            return [n for n in self._notices if n["nid"] > nid]


def _seq(event: Any) -> int:
    return event["seq"] if isinstance(event, dict) else event.seq
