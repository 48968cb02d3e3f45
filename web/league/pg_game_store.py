"""The tablet page's game store on PostgreSQL (``companion serve --db postgresql://... [--table 7]``).

Same as :class:`web.store.GameStore`, but the game lives in the league database
(:mod:`companion.session.pg_store`): the table's current game is the one last created for its table
label, and a new game is a new row set (nothing is renamed: the old game stays in the database).
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
        connect(dsn).close()  # fail early, with a clear message, and bring the schema up to date

    def _reset_tail(self) -> None:
        """The store's view of the log, read anew after the game changed."""
        catch_up = getattr(self, "_catch_up", None)
        if catch_up is not None:
            catch_up(reset=True)
        else:
            self._last_seq = self._max_seq()

    def open_existing(self) -> bool:
        game_id = PgEventStore.latest_game(self.dsn, self.table)
        if game_id is None:
            return False
        with self.lock:
            self.session = open_session(self.dsn, game_id)
            self._reset_tail()
        log.info("opened game %s of table %s from %s", game_id, self.table, redact(self.dsn))
        return True

    def create(self, setup):
        with self.lock:
            old = self.session
            self.session = create_session(self.dsn, setup, table=self.table)
            if old is not None:
                old.close()
            self.reading = None
            self._reset_tail()
        self.notice("new_game", {"game_id": self.game_id})
        return self.session
