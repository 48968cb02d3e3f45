"""The game store: the table's games, the current one, its live listeners, and the roll being read.

``GameStore`` holds the game this server referees now (a ``companion.session.GameSession`` on a
SQLite file) and the table's library of every game played (``companion.session.library``): a new
game is a new file beside the others, and the host may resume any of them or end one; switching
only changes which game is current, no file is moved.  An ended game stays readable and refuses
changes until the host resumes it.  Every change goes through it under one lock, and every new event wakes the
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
        from companion.session.library import GameLibrary, check_table_file

        self.db_path = Path(db_path)
        check_table_file(self.db_path)  # SessionError, before anything is written beside it
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        self.library = GameLibrary(self.db_path)
        self.session = None
        self.ended = False  # the current game was ended by the host (changes refused until resumed)
        self.lock = threading.RLock()
        self._cond = threading.Condition(threading.Lock())
        self._last_seq = 0
        self._notice_ids = itertools.count(1)
        self._notices: deque[dict] = deque(maxlen=200)
        self.closing = False
        self.reading: dict | None = None  # the roll read (or typed) but not yet confirmed
        self._reading_rev = 0  # the last staged reading's "rev": every change of the reading gets a new one
        # the newest events of the current game as (seq, event, event as JSON), guarded by _cond
        self._recent: deque[tuple[int, dict, str]] = deque(maxlen=RECENT_EVENTS)
        self._recent_gid: str | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def init_app(self, app: Flask) -> None:
        app.extensions["game_store"] = self
        self.open_existing()

    def open_existing(self) -> bool:
        """Open the table's current game if there is one (a restarted server shows the same game);
        game files the library does not know yet are added to it first."""
        from companion.session import GameSession, SessionError
        from companion.session.library import summarize

        with self.lock:
            for path in self.library.unknown_files():
                try:
                    with GameSession.open(path) as found:
                        self.library.register(path, summarize(found))
                except (SessionError, ValueError, KeyError, TypeError) as exc:
                    log.warning("%s looks like a game file but does not replay: %s", path, exc)
            current = self.library.current()
            if current is None:  # a table file from before the library: its game is the current one
                games = [g for g in self.library.games() if g["file"] == self.db_path.name]
                current = games[0]["game_id"] if games else None
            if current is None:
                return False
            self._switch_to(current)
        log.info("opened game %s from %s", self.game_id, self.library.path_of(self.game_id))
        return True

    def _switch_to(self, game_id: str) -> None:
        """Make game_id current (under self.lock): open its file, close the previous one."""
        from companion.session import GameSession

        if game_id != self.game_id:
            session = GameSession.open(self.library.path_of(game_id))
            old, self.session = self.session, session
            if old is not None:
                old.close()
        self.library.set_current(game_id)
        self.ended = self.library.ended(game_id)
        self.reading = None
        self._catch_up(reset=True)

    def close(self) -> None:
        """Stop the live streams (the server is stopping)."""
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
    def create(self, setup: Any, by: dict | None = None):
        """A new game, in a new file of the library, becomes the current one; the previous game
        stays in the library as it was (in progress or ended) and can be resumed.  ``by``: who
        started it, recorded in its ``create`` event."""
        from companion.session import GameSession
        from companion.session.library import summarize

        with self.lock:
            path = self.library.new_path()
            session = GameSession.create(path, setup, by)  # checks the set-up before writing anything
            self.library.register(path, summarize(session))
            old, self.session = self.session, session
            if old is not None:
                old.close()
            self._switch_to(self.game_id)
        self.notice("new_game", {"game_id": self.game_id})
        return self.session

    def resume(self, game_id: str) -> None:
        """Make a game of the library current again (an ended one is no longer ended)."""
        with self.lock:
            self.library.path_of(game_id)  # LibraryError for a game the table does not have
            self.library.reopen(game_id)
            self._switch_to(game_id)
        self.notice("game_switched", {"game_id": game_id})

    def end(self, game_id: str) -> None:
        """The host ends a game: it stays in the library (and on screen if current), read only."""
        with self.lock:
            self.library.end(game_id, by="host")
            if game_id == self.game_id:
                self.ended = True
                self.reading = None
        self.notice("game_ended", {"game_id": game_id})

    def games(self) -> list[dict]:
        """The library: every game of this table, the most recently played first."""
        with self.lock:
            return self.library.games()

    @property
    def status(self) -> str | None:
        """The current game: in_progress, over (it has a winner), ended (by the host), or None."""
        if self.session is None:
            return None
        with self.lock:
            over = bool(self.session.state_dict().get("over"))
        return "over" if over else "ended" if self.ended else "in_progress"

    def _played(self, events: list) -> None:
        """After a change (``events``: what it wrote): the library's line of the current game (last played,
        winner) follows, from the last event and the game's state (the log is not read again)."""
        from companion.session.library import progress

        try:
            self.library.update(progress(self.session, events[-1]))
        except Exception:  # the index is derived data: the game's own log already holds the change
            log.exception("could not update the library line of game %s", self.game_id)

    def submit(self, action: dict, by: dict | None = None, frame: bytes | None = None) -> list:
        """Apply one action; ``by`` (who made it: ``web.api.changed_by``) is kept with its event, and
        ``frame`` (the JPEG a camera roll was read from: ``web.play.roll_frame_jpeg``) beside it."""
        return self._write(lambda: self.session.submit(action, by=by, frame=frame))

    def submit_readings(self, readings: list, by: dict | None = None, frame: bytes | None = None) -> list:
        """Answer the pending roll with one ``DieReading`` per die (``GameSession.submit_readings``)."""
        return self._write(lambda: self.session.submit_readings(readings, by=by, frame=frame))

    def _write(self, change) -> list:
        """Make one change to the open game (``change()`` returns the events it wrote) and tell the pages."""
        with self.lock:
            self._need_game()
            self._need_open_game()
            events = change()
            self._catch_up()
            self.reading = None
            self._played(events)
        self._wake()
        return events

    def undo(self, n: int, by: dict | None = None) -> Any:
        with self.lock:
            self._need_game()
            self._need_open_game()
            result = self.session.undo(n, by=by)
            self._catch_up()
            self.reading = None
            self._played(result)
        self.notice("undo", {"n": n})
        return result

    def _need_game(self) -> None:
        from .errors import Conflict

        if self.session is None:
            raise Conflict("no game yet: create one first (POST /api/games)", code="no_game")

    def _need_open_game(self) -> None:
        from .errors import Conflict

        if self.ended:
            raise Conflict(
                "the host ended this game: the host may resume it (Games panel, or "
                f"POST /api/games/{self.game_id}/resume)",
                code="game_ended",
            )

    # -- notices (not logged) -------------------------------------------------------------
    def notice(self, kind: str, payload: dict) -> None:
        with self._cond:
            self._notices.append(
                {"nid": next(self._notice_ids), "kind": kind, "at": time.time(), "data": payload}
            )
            self._cond.notify_all()

    def set_reading(self, reading: dict | None) -> None:
        """Stage ``reading`` (or clear it): each staged reading gets the next ``rev``, so a tablet that
        confirms or taps the roll as it saw it (``rev``) is refused once another tablet or the camera
        changed it since (``web.api``: ``stale_reading``)."""
        with self.lock:
            if reading is not None:
                self._reading_rev += 1
                reading = {**reading, "rev": self._reading_rev}
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
            while (
                not self.closing
                and self._last_seq <= seq
                and (not self._notices or self._notices[-1]["nid"] <= nid)
            ):
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
            if gid == self.game_id and (
                seq >= self._last_seq or (self._recent and self._recent[0][0] <= seq + 1)
            ):
                return gid, [(s, text) for s, _, text in self._recent if s > seq]
        with self.lock:
            gid = self.game_id
            return gid, [
                (int(e["seq"]), json.dumps(e, separators=(",", ":")))
                for e in (jsonable(x) for x in self.events_since(seq))
            ]

    def notices_since(self, nid: int) -> list[dict]:
        with self._cond:
            return [n for n in self._notices if n["nid"] > nid]
