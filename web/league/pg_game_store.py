"""The tablet page's game store on PostgreSQL (``companion serve --db postgresql://... [--table 7]``).

Same as :class:`web.store.GameStore`, but the game lives in the league database
(:mod:`companion.session.pg_store`): the table's current game is the one last created for its table
label, and a new game is a new row set (nothing is renamed: the old game stays in the database).
After each change the table's live row (``league_live``; its result when the game ends) is written
too, so a table playing straight on the database shows on the organizer's page like a pushing one.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from companion.session.pg_store import PgEventStore, connect, create_session, open_session, redact

from ..store import GameStore

log = logging.getLogger("companion.web")


class PgGameStore(GameStore):
    def __init__(self, dsn: str, table: str | None = None):
        # db_path only places side files (corrections); the log itself is in the database
        super().__init__(Path(tempfile.gettempdir()) / f"companion-pg-table-{table or 'none'}.sqlite")
        self.dsn = dsn
        self.table = table
        self._live_conn = connect(dsn)  # fails early, with a clear message; brings the schema up to date

    def _reset_tail(self) -> None:
        """The store's view of the log, read anew after the game changed."""
        self._catch_up(reset=True)

    def open_existing(self) -> bool:
        game_id = PgEventStore.latest_game(self.dsn, self.table)
        if game_id is None:
            return False
        with self.lock:
            self.session = open_session(self.dsn, game_id)
            self._reset_tail()
        log.info("opened game %s of table %s from %s", game_id, self.table, redact(self.dsn))
        return True

    def _post_live(self) -> None:
        """The organizer's page shows this table too: its live row (and result) after every change."""
        from companion.league.live import post_live

        s = self.session
        if s is None or not self.table:
            return
        try:
            # only the newest event (the store has just caught up to _last_seq); the create event's
            # time is read only when a result is posted
            last = s.events(max(self._last_seq - 1, 0))[-1]
            with self._live_conn.transaction():
                post_live(
                    self._live_conn,
                    s.game_id,
                    self.table,
                    last["seq"],
                    s.game,
                    lambda: s.events()[0]["at"],
                    last["at"],
                )
        except Exception as exc:  # noqa: BLE001 - the game is written; only the organizer's view lags
            log.warning("could not update the league's view of table %s: %s", self.table, exc)
            if self._live_conn.closed or self._live_conn.broken:
                try:
                    self._live_conn = connect(self.dsn, migrate_schema=False)
                except Exception:  # noqa: BLE001
                    pass

    def _write(self, change) -> list:  # every change to the game: an action, or a roll of readings
        events = super()._write(change)
        with self.lock:
            self._post_live()
        return events

    def undo(self, n: int, by: dict | None = None):
        result = super().undo(n, by)
        with self.lock:
            self._post_live()
        return result

    def create(self, setup, by: dict | None = None):
        with self.lock:
            old = self.session
            self.session = create_session(self.dsn, setup, table=self.table, by=by)
            if old is not None:
                old.close()
            self.reading = None
            self._reset_tail()
            self._post_live()
        self.notice("new_game", {"game_id": self.game_id})
        return self.session
