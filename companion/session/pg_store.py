"""The event log on PostgreSQL (psycopg 3): the same interface as :class:`~.store.EventStore`.

    store = PgEventStore.create_game(dsn, game_id, setup, table="7")   # or PgEventStore(dsn, game_id)
    session = GameSession(store)                                        # replay, submit, undo as on SQLite

Many games share one database: table ``games`` (one row per game, ``last_seq``) and table ``events``
(``(game_id, seq)`` primary key; the columns of the SQLite log, ``action``/``log``/``changed_by`` as ``jsonb``).
Every write is one transaction that first locks the game's row (``SELECT ... FOR UPDATE``), so two
writers of one game are serialised and ``seq`` has no gaps.  A trigger refuses DELETE, TRUNCATE and any
UPDATE other than an undo turning ``undone`` true (``pg_migrations/001_event_log.sql``).

Schema migrations are the numbered ``pg_migrations/NNN_name.sql`` files, applied in order at start
inside one transaction under an advisory lock (many tables may start at once); ``schema_version``
records which ran.  A dropped connection is reopened on the next call; a write whose connection
broke raises :class:`SessionError` and the caller re-reads the log (the write either committed whole
or not at all).
"""

from __future__ import annotations

import re
import threading
import uuid
from importlib import resources
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, Literal

from .store import FORMAT, EventWriter, SessionError, check_frame, event_record

if TYPE_CHECKING:
    from psycopg import Connection

    from .game_session import GameSession

    PgConnection = Connection[tuple[Any, ...]]


MIGRATION_LOCK = 0x44726167  # advisory lock key held while migrating ("Drag")
_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def is_postgres_dsn(value: object) -> bool:
    """True for a ``postgresql://`` / ``postgres://`` URL (the form ``--db`` and ``--league`` take)."""
    return isinstance(value, str) and value.startswith(("postgresql://", "postgres://"))


def _psycopg() -> ModuleType:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the optional extra is missing
        raise SessionError(
            "PostgreSQL needs psycopg 3: pip install 'dragon-dice-companion[league]'"
        ) from None
    return psycopg


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every shipped migration, in order."""
    out = []
    for entry in resources.files(__package__).joinpath("pg_migrations").iterdir():
        m = _MIGRATION_NAME.match(entry.name)
        if m:
            out.append((int(m.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    out.sort()
    versions = [v for v, _, _ in out]
    if versions != list(range(1, len(out) + 1)):
        raise SessionError(f"migrations are not numbered 1..N without gaps: {versions}")
    return out


def migrate(conn: PgConnection) -> list[int]:
    """Apply the migrations this database lacks; returns the versions applied now."""
    applied_now: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, "
            "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {r[0] for r in conn.execute("SELECT version FROM schema_version")}
        known = migrations()
        newer = [v for v in done if v > len(known)]
        if newer:
            raise SessionError(
                f"the database has schema version {max(newer)}, newer than this program "
                f"knows ({len(known)}); upgrade the companion"
            )
        for version, name, sql in known:
            if version in done:
                continue
            conn.execute(sql)
            conn.execute("INSERT INTO schema_version (version, name) VALUES (%s, %s)", (version, name))
            applied_now.append(version)
    return applied_now


def connect(dsn: str, *, migrate_schema: bool = True, connect_timeout: float = 5) -> PgConnection:
    """An autocommit connection to ``dsn`` with the schema brought up to date."""
    psycopg = _psycopg()
    try:
        conn: PgConnection = psycopg.connect(
            dsn, autocommit=True, connect_timeout=max(1, int(connect_timeout))
        )
    except psycopg.Error as exc:
        raise SessionError(
            f"cannot reach the PostgreSQL database {redact(dsn)}: {_first_line(exc)}"
        ) from None
    if migrate_schema:
        try:
            migrate(conn)
        except psycopg.Error as exc:
            conn.close()
            raise SessionError(f"cannot migrate the schema of {redact(dsn)}: {_first_line(exc)}") from None
    return conn


def redact(dsn: str) -> str:
    """The DSN without its password (for messages and logs)."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", dsn)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def event_row(row: tuple[Any, ...]) -> dict[str, Any]:
    seq, type_, player, action, log, undone, at, by = row
    return event_record(seq, type_, player, action, log, undone, at, by)


EVENT_COLUMNS = "seq, type, player, action, log, undone, at, changed_by"
INSERT_EVENT = (
    f"INSERT INTO events (game_id, {EVENT_COLUMNS}) "
    "VALUES (%s, %s, %s, %s, %s, %s, false, %s, %s)"
)  # game_id, seq, type, player, action, log, at, by


class PgEventStore(EventWriter):
    """One game's event log in a PostgreSQL database (``GameSession(PgEventStore(dsn, game_id))``)."""

    def __init__(self, dsn: str, game_id: str, *, create: bool = False, conn: PgConnection | None = None):
        if not isinstance(game_id, str) or not GAME_ID.match(game_id):
            raise SessionError(f"game id {game_id!r} must be 1-64 letters, digits, '-' or '_'")
        self.dsn = dsn
        self.game_id = game_id
        self.path = f"{redact(dsn)} game {game_id}"  # what messages call this log
        self._lock = threading.RLock()
        self._tx_seq: int | None = None
        self.conn = conn if conn is not None else connect(dsn)
        if not create and self.meta("format") is None:
            raise SessionError(f"no game {game_id} in {redact(dsn)}")

    # -- connection ------------------------------------------------------------------------------
    def _reconnect(self) -> None:
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001 - the old connection is broken anyway
            pass
        self.conn = connect(self.dsn, migrate_schema=False)

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run a query; outside a transaction a dropped connection is reopened once."""
        psycopg = _psycopg()
        with self._lock:
            try:
                if self.conn.closed:
                    self._reconnect()
                return self.conn.execute(sql, params).fetchall()
            except psycopg.OperationalError as exc:
                if self._tx_seq is not None:
                    raise SessionError(f"lost the database during a write: {_first_line(exc)}") from None
                try:
                    self._reconnect()
                    return self.conn.execute(sql, params).fetchall()
                except psycopg.Error as exc2:
                    raise SessionError(
                        f"the database {redact(self.dsn)} is unreachable: {_first_line(exc2)}"
                    ) from None

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    # -- the EventStore interface ------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        if key == "game_id":
            return self.game_id
        if key == "format":
            rows = self._read("SELECT format FROM games WHERE game_id = %s", (self.game_id,))
            return rows[0][0] if rows else None
        if key == "table":
            rows = self._read("SELECT table_no FROM games WHERE game_id = %s", (self.game_id,))
            return rows[0][0] if rows else None
        return None

    def init(
        self, game_id: str, setup: dict[str, Any], table: str | None = None, by: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        if game_id != self.game_id:
            raise SessionError(f"this store is for game {self.game_id}, not {game_id}")
        psycopg = _psycopg()
        with self._lock:
            try:
                with self.conn.transaction():
                    self.conn.execute(
                        "INSERT INTO games (game_id, format, table_no) VALUES (%s, %s, %s)",
                        (game_id, FORMAT, table),
                    )
                    self._tx_seq = 0
                    return self.insert("create", None, setup, [], by=by)
            except psycopg.errors.UniqueViolation:
                raise SessionError(f"game {game_id} already exists in {redact(self.dsn)}") from None
            finally:
                self._tx_seq = None

    def transaction(self) -> _PgTx:
        return _PgTx(self)

    def _need_transaction(self, what: str) -> None:
        if self._tx_seq is None:
            raise SessionError(f"{what} needs the caller's transaction (with store.transaction(): ...)")

    def _write(
        self, type_: str, player: str | None, action: Any, log: list[str], at: str, by: dict[str, Any] | None
    ) -> int:
        from psycopg.types.json import Jsonb

        assert self._tx_seq is not None, "an event is written inside the caller's transaction"
        seq = self._tx_seq + 1
        self.conn.execute(
            INSERT_EVENT,
            (
                self.game_id,
                seq,
                type_,
                player,
                Jsonb(action),
                Jsonb(log),
                at,
                None if by is None else Jsonb(by),
            ),
        )
        self.conn.execute("UPDATE games SET last_seq = %s WHERE game_id = %s", (seq, self.game_id))
        self._tx_seq = seq
        return seq

    def put_frame(self, seq: int, jpeg: bytes) -> None:
        """Keep the camera frame a roll was read from (in the caller's transaction, after its event)."""
        self._need_transaction("put_frame")
        check_frame(seq, jpeg)
        self.conn.execute(
            "INSERT INTO event_frames (game_id, seq, jpeg) VALUES (%s, %s, %s)", (self.game_id, seq, jpeg)
        )

    def frame(self, seq: int) -> bytes | None:
        rows = self._read(
            "SELECT jpeg FROM event_frames WHERE game_id = %s AND seq = %s", (self.game_id, seq)
        )
        return bytes(rows[0][0]) if rows else None

    def frames(self, since: int, upto: int) -> list[tuple[int, bytes]]:
        return [
            (s, bytes(j))
            for s, j in self._read(
                "SELECT seq, jpeg FROM event_frames WHERE game_id = %s AND seq > %s AND seq <= %s ORDER BY seq",
                (self.game_id, since, upto),
            )
        ]

    def last_seq(self) -> int:
        if self._tx_seq is not None:
            return self._tx_seq
        rows = self._read("SELECT last_seq FROM games WHERE game_id = %s", (self.game_id,))
        if not rows:
            raise SessionError(f"no game {self.game_id} in {redact(self.dsn)}")
        return int(rows[0][0])

    def events(self, since: int = 0) -> list[dict[str, Any]]:
        rows = self._read(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE game_id = %s AND seq > %s ORDER BY seq",
            (self.game_id, since),
        )
        return [event_row(r) for r in rows]

    def _set_undone(self, seqs: list[int]) -> None:
        self.conn.execute(
            "UPDATE events SET undone = true WHERE game_id = %s AND seq = ANY(%s)", (self.game_id, list(seqs))
        )

    # -- opening games -------------------------------------------------------------------------------
    @classmethod
    def create_game(
        cls,
        dsn: str,
        setup: dict[str, Any],
        *,
        table: str | None = None,
        game_id: str | None = None,
        conn: PgConnection | None = None,
        by: dict[str, Any] | None = None,
    ) -> PgEventStore:
        """A new game (its ``create`` event committed, ``by`` who started it) in the database at ``dsn``."""
        store = cls(dsn, game_id or uuid.uuid4().hex, create=True, conn=conn)
        store.init(store.game_id, setup, table=table, by=by)
        return store

    @staticmethod
    def latest_game(dsn: str, table: str | None, conn: PgConnection | None = None) -> str | None:
        """The id of the game last created for ``table`` (None: none yet)."""
        own = conn is None
        conn = conn or connect(dsn)
        try:
            row = conn.execute(
                "SELECT game_id FROM games WHERE table_no IS NOT DISTINCT FROM %s "
                "ORDER BY created_at DESC, game_id LIMIT 1",
                (table,),
            ).fetchone()
            return None if row is None else row[0]
        finally:
            if own:
                conn.close()


class _PgTx:
    """``with store.transaction():`` one transaction holding the game's row lock."""

    def __init__(self, store: PgEventStore):
        self.store = store
        self._tx: Any = None

    def __enter__(self) -> PgConnection:
        psycopg = _psycopg()
        s = self.store
        s._lock.acquire()
        try:
            if s.conn.closed or s.conn.broken:
                s._reconnect()
            self._tx = s.conn.transaction()
            self._tx.__enter__()
            row = s.conn.execute(
                "SELECT last_seq FROM games WHERE game_id = %s FOR UPDATE", (s.game_id,)
            ).fetchone()
        except psycopg.Error as exc:
            self._abort()
            raise SessionError(f"cannot write to {redact(s.dsn)}: {_first_line(exc)}") from None
        except BaseException:
            self._abort()
            raise
        if row is None:
            self._abort()
            raise SessionError(f"no game {s.game_id} in {redact(s.dsn)}")
        s._tx_seq = row[0]
        return s.conn

    def _abort(self) -> None:
        s = self.store
        s._tx_seq = None
        try:
            if self._tx is not None:
                self._tx.__exit__(RuntimeError, RuntimeError("aborted"), None)
        except Exception:  # noqa: BLE001 - the connection is gone; nothing was committed
            pass
        finally:
            s._lock.release()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> Literal[False]:
        psycopg = _psycopg()
        s = self.store
        try:
            self._tx.__exit__(exc_type, exc, tb)
        except psycopg.Error as exc2:
            if exc_type is None:
                raise SessionError(
                    f"the write to {redact(s.dsn)} did not finish: {_first_line(exc2)}"
                ) from None
        finally:
            s._tx_seq = None
            s._lock.release()
        if exc is not None and isinstance(exc, psycopg.Error):
            raise SessionError(f"the write to {redact(s.dsn)} failed: {_first_line(exc)}") from exc
        return False


def create_session(
    dsn: str, setup: dict[str, Any], *, table: str | None = None, by: dict[str, Any] | None = None
) -> GameSession:
    """A new ``GameSession`` on PostgreSQL (the set-up is checked before anything is written)."""
    from .game_session import GameSession, full_setup, new_game

    full = full_setup(setup)
    new_game(full)
    return GameSession(PgEventStore.create_game(dsn, full, table=table, by=by))


def open_session(dsn: str, game_id: str) -> GameSession:
    from .game_session import GameSession

    return GameSession(PgEventStore(dsn, game_id))
