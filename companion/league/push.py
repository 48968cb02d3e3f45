"""What the league accepts from a table: one place for the rules of a push.

A table pushes ``{"game_id": ID, "events": [event, ...]}`` (events as its SQLite log holds them,
in seq order, from any seq at or before the league's next one) with its table token.  In one
transaction the league:

1. checks the token: a table token (sha256 looked up in ``league_tokens``), else ``forbidden``;
2. checks every event's shape (``malformed``) before touching anything;
3. locks the game's row; a new game must start with its ``create`` event (seq 1) and becomes the
   pushing table's; a game of another table is ``forbidden``;
4. for each event: an already stored seq must be the same event, who made it (``by``) included
   (``conflict`` otherwise, so a
   re-sent batch changes nothing: idempotent); the next seq is replayed on the game engine
   (``illegal``: the league never stores a log that does not replay) and inserted; a later seq is a
   ``gap``;
5. derives ``undone`` from the undo events (the table's flag is not trusted), updates the table's
   live state (``league_live``) and, when the engine says the game is over, posts its result.

Any refusal rolls the whole push back: nothing changed.  The answer is ``{"acked": last_seq}``.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from companion.session.pg_store import EVENT_COLUMNS, GAME_ID, INSERT_EVENT, event_row
from companion.session.store import FORMAT, check_by

if TYPE_CHECKING:
    from companion.rules.games import TableGame
    from companion.session.pg_store import PgConnection

MAX_EVENTS = 500
TYPE = re.compile(r"^[a-z_]{1,32}$")
ROLES = ("organizer", "table", "judge")
TABLE_LABEL = re.compile(r"^[A-Za-z0-9_-]{1,16}$")


class PushRefused(Exception):
    """A push (or a request) the league refuses; ``code`` says which rule, ``status`` the HTTP status."""

    STATUS = {
        "malformed": 400,
        "forbidden": 403,
        "not_found": 404,
        "conflict": 409,
        "gap": 409,
        "illegal": 422,
    }

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message
        self.status = self.STATUS.get(code, 400)

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message}


# -- tokens -------------------------------------------------------------------------------------------
def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_token(conn: PgConnection, role: str, table: str | None = None, label: str = "") -> str:
    """A new token for ``role`` (a table token names its table); only its hash is stored."""
    if role not in ROLES:
        raise PushRefused("malformed", f"role must be one of {', '.join(ROLES)}, not {role!r}")
    if role == "table":
        if not isinstance(table, str) or not TABLE_LABEL.match(table):
            raise PushRefused(
                "malformed", "a table token needs a table label of 1-16 letters, digits, '-', '_'"
            )
    else:
        table = None
    token = f"{role[0]}{table or ''}-{secrets.token_urlsafe(18)}"
    conn.execute(
        "INSERT INTO league_tokens (token_hash, role, table_no, label) VALUES (%s, %s, %s, %s)",
        (token_hash(token), role, table, label),
    )
    return token


TOKEN_ID_LEN = 12  # a token is named (listed, revoked) by the first hex digits of its hash


def identify(conn: PgConnection, token: Any) -> tuple[str, str | None]:
    """(role, table) of a token, or ``forbidden``.  Looked up on every request (one primary-key
    read; no cache), so a revoked token is refused from the next request on."""
    if not isinstance(token, str) or not token or len(token) > 200:
        raise PushRefused("forbidden", "a league token is required (X-League-Token header)")
    row = conn.execute(
        "SELECT role, table_no, revoked_at FROM league_tokens WHERE token_hash = %s", (token_hash(token),)
    ).fetchone()
    if row is None:
        raise PushRefused("forbidden", "unknown league token (forged or mistyped)")
    if row[2] is not None:
        raise PushRefused(
            "forbidden", f"this league token was revoked at {row[2].isoformat(timespec='seconds')}"
        )
    return row[0], row[1]


def list_tokens(conn: PgConnection) -> list[dict[str, Any]]:
    """Every token (never the token itself): its id, role, table, label, when issued and revoked."""
    return [
        {
            "id": h[:TOKEN_ID_LEN],
            "role": role,
            "table": table,
            "label": label,
            "created_at": created.isoformat(timespec="seconds"),
            "revoked_at": None if revoked is None else revoked.isoformat(timespec="seconds"),
        }
        for h, role, table, label, created, revoked in conn.execute(
            "SELECT token_hash, role, table_no, label, created_at, revoked_at FROM league_tokens "
            "ORDER BY created_at, token_hash"
        )
    ]


def revoke_tokens(
    conn: PgConnection, *, token: Any = None, token_id: Any = None, table: Any = None
) -> list[str]:
    """Revoke one token (given itself, or by its id from :func:`list_tokens`) or every live token of
    a table; returns the ids revoked.  Refused (``malformed``/``not_found``), changing nothing, when
    not exactly one of them is given or it names no live token."""
    given = [x for x in (token, token_id, table) if x not in (None, "")]
    if len(given) != 1:
        raise PushRefused("malformed", "name exactly one of: the token, its id, or a table")
    if token not in (None, ""):
        if not isinstance(token, str) or len(token) > 200:
            raise PushRefused("malformed", "the token to revoke must be a string of at most 200 characters")
        where, arg, what = "token_hash = %s", token_hash(token), "that token"
    elif token_id not in (None, ""):
        if not isinstance(token_id, str) or not re.fullmatch(f"[0-9a-f]{{{TOKEN_ID_LEN}}}", token_id):
            raise PushRefused(
                "malformed", f"a token id is {TOKEN_ID_LEN} hex digits (companion league token list)"
            )
        where, arg, what = f"left(token_hash, {TOKEN_ID_LEN}) = %s", token_id, f"token {token_id}"
    else:
        if not isinstance(table, str) or not TABLE_LABEL.match(table):
            raise PushRefused("malformed", "a table label is 1-16 letters, digits, '-', '_'")
        where, arg, what = "role = 'table' AND table_no = %s", table, f"table {table}"
    rows = conn.execute(
        f"UPDATE league_tokens SET revoked_at = now() WHERE {where} AND revoked_at IS NULL "
        "RETURNING token_hash",
        (arg,),
    ).fetchall()
    if not rows:
        raise PushRefused("not_found", f"no live token for {what}")
    return sorted(r[0][:TOKEN_ID_LEN] for r in rows)


def require(conn: PgConnection, token: Any, *roles: str) -> tuple[str, str | None]:
    role, table = identify(conn, token)
    if role not in roles:
        raise PushRefused("forbidden", f"this needs a {' or '.join(roles)} token; yours is a {role} token")
    return role, table


# -- shape --------------------------------------------------------------------------------------------
def check_batch(batch: Any) -> tuple[str, list[dict[str, Any]]]:
    """The game id and events of a push, or ``malformed`` naming what is wrong."""
    if not isinstance(batch, dict):
        raise PushRefused("malformed", "a push is a JSON object {game_id, events}")
    game_id = batch.get("game_id")
    if not isinstance(game_id, str) or not GAME_ID.match(game_id):
        raise PushRefused("malformed", "game_id must be 1-64 letters, digits, '-' or '_'")
    events = batch.get("events")
    if not isinstance(events, list) or not events:
        raise PushRefused("malformed", "events must be a non-empty list")
    if len(events) > MAX_EVENTS:
        raise PushRefused("malformed", f"at most {MAX_EVENTS} events per push, not {len(events)}")
    out: list[dict[str, Any]] = []
    for i, e in enumerate(events):
        where = f"event {i} of the push"
        if not isinstance(e, dict):
            raise PushRefused("malformed", f"{where} is not an object")
        seq = e.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise PushRefused("malformed", f"{where}: seq must be a positive integer")
        where = f"event seq {seq}"
        if not isinstance(e.get("type"), str) or not TYPE.match(e["type"]):
            raise PushRefused("malformed", f"{where}: type must be a short lower-case word")
        if e.get("player") is not None and not (isinstance(e["player"], str) and len(e["player"]) <= 32):
            raise PushRefused("malformed", f"{where}: player must be a player id or null")
        if not isinstance(e.get("action"), dict):
            raise PushRefused("malformed", f"{where}: action must be an object")
        log = e.get("log", [])
        if not isinstance(log, list) or not all(isinstance(x, str) for x in log):
            raise PushRefused("malformed", f"{where}: log must be a list of strings")
        if not isinstance(e.get("at"), str) or not e["at"] or len(e["at"]) > 40:
            raise PushRefused("malformed", f"{where}: at must be the event's time")
        if out and seq != out[-1]["seq"] + 1:
            raise PushRefused(
                "gap" if seq > out[-1]["seq"] else "malformed",
                f"events must be pushed in order without gaps: seq {seq} follows {out[-1]['seq']}",
            )
        if e["type"] == "create" and seq != 1:
            raise PushRefused("malformed", f"{where}: only event 1 is a game's create event")
        if seq == 1 and e["type"] != "create":
            raise PushRefused("malformed", "event 1 of a game must be its create event")
        if e["type"] == "undo":
            undid = e["action"].get("undid")
            if (
                not isinstance(undid, list)
                or not undid
                or not all(isinstance(s, int) and not isinstance(s, bool) and 1 < s < seq for s in undid)
            ):
                raise PushRefused(
                    "malformed", f"{where}: an undo names the earlier events it took back (undid)"
                )
        try:
            by = check_by(e.get("by"))
        except ValueError as exc:
            raise PushRefused("malformed", f"{where}: {exc}") from None
        out.append(
            {
                "seq": seq,
                "type": e["type"],
                "player": e.get("player"),
                "action": e["action"],
                "log": log,
                "at": e["at"],
                "by": by,
            }
        )
    return game_id, out


# -- the engine's view of each game (kept between pushes) -----------------------------------------------
class _Replays:
    """game_id -> (seq, engine game) for the last games pushed (a bounded cache; rebuilt on a miss)."""

    def __init__(self, size: int = 256) -> None:
        self._games: OrderedDict[str, tuple[int, TableGame]] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def take(self, game_id: str, seq: int) -> TableGame | None:
        """The cached game at ``seq`` (removed from the cache: the caller moves it on, then puts it back)."""
        with self._lock:
            hit = self._games.pop(game_id, None)
            return hit[1] if hit is not None and hit[0] == seq else None

    def put(self, game_id: str, seq: int, game: TableGame) -> None:
        with self._lock:
            self._games[game_id] = (seq, game)
            self._games.move_to_end(game_id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._games.pop(game_id, None)


REPLAYS = _Replays()


def _same(stored: dict[str, Any], e: dict[str, Any]) -> bool:
    return all(stored[k] == e[k] for k in ("type", "player", "action", "log", "at", "by"))


def accept_push(conn: PgConnection, token: Any, batch: Any) -> dict[str, Any]:
    """Store a table's events (see the module text); returns ``{"game_id", "acked", "stored"}``."""
    import psycopg
    from psycopg.types.json import Jsonb

    from companion.rules.core.errors import GameRuleError
    from companion.session.game_session import new_game, replay

    game_id, events = check_batch(batch)
    role, table = require(conn, token, "table")
    with conn.transaction():
        row = conn.execute(
            "SELECT table_no, last_seq FROM games WHERE game_id = %s FOR UPDATE", (game_id,)
        ).fetchone()
        if row is None:
            if events[0]["seq"] != 1:
                raise PushRefused(
                    "gap",
                    f"the league has no game {game_id} yet: push from its create event "
                    f"(seq 1), not seq {events[0]['seq']}",
                )
            try:
                conn.execute(
                    "INSERT INTO games (game_id, format, table_no) VALUES (%s, %s, %s)",
                    (game_id, FORMAT, table),
                )
            except psycopg.errors.UniqueViolation:
                raise PushRefused(
                    "conflict", f"game {game_id} was created at the same moment; push again"
                ) from None
            last = 0
        else:
            owner, last = row
            if owner != table:
                raise PushRefused(
                    "forbidden", f"game {game_id} belongs to table {owner}; this token is table {table}'s"
                )
        old = [e for e in events if e["seq"] <= last]
        if old:
            stored = {
                r[0]: event_row(r)
                for r in conn.execute(
                    f"SELECT {EVENT_COLUMNS} FROM events WHERE game_id = %s AND seq BETWEEN %s AND %s",
                    (game_id, old[0]["seq"], old[-1]["seq"]),
                )
            }
            for e in old:
                if not _same(stored[e["seq"]], e):
                    raise PushRefused(
                        "conflict",
                        f"event seq {e['seq']} differs from the one the league "
                        f"already holds for game {game_id}",
                    )
        new = [e for e in events if e["seq"] > last]
        if new and new[0]["seq"] != last + 1:
            raise PushRefused(
                "gap",
                f"game {game_id}: the league holds events up to seq {last}; seq {new[0]['seq']} leaves a gap",
            )
        if not new:
            return {"game_id": game_id, "acked": last, "stored": 0}
        # replay the new events on the engine before storing them
        game: TableGame | None = REPLAYS.take(game_id, last) if last else None
        if game is None and last:
            game = replay(game_log(conn, game_id))
        rebuild = False
        try:
            for e in new:
                if e["type"] == "create":
                    game = new_game(e["action"])
                elif e["type"] == "undo":
                    rebuild = True  # an undo is replayed by rebuilding from the log below
                elif rebuild:
                    pass
                else:
                    assert game is not None, "a game's first event is its create event (check_batch)"
                    game.apply(dict(e["action"]))
        except (GameRuleError, KeyError, TypeError, ValueError) as exc:
            raise PushRefused(
                "illegal",
                f"event seq {e['seq']} does not replay on the rules engine: {getattr(exc, 'reason', exc)}",
            ) from None
        for e in new:
            conn.execute(
                INSERT_EVENT,
                (
                    game_id,
                    e["seq"],
                    e["type"],
                    e["player"],
                    Jsonb(e["action"]),
                    Jsonb(e["log"]),
                    e["at"],
                    None if e["by"] is None else Jsonb(e["by"]),
                ),
            )
            if e["type"] == "undo":
                conn.execute(
                    "UPDATE events SET undone = true WHERE game_id = %s AND seq = ANY(%s)",
                    (game_id, e["action"]["undid"]),
                )
        last = new[-1]["seq"]
        conn.execute("UPDATE games SET last_seq = %s WHERE game_id = %s", (last, game_id))
        if rebuild:
            try:
                game = replay(game_log(conn, game_id))
            except (GameRuleError, KeyError, TypeError, ValueError) as exc:
                raise PushRefused(
                    "illegal", f"game {game_id} does not replay after its undo: {getattr(exc, 'reason', exc)}"
                ) from None
        from .live import post_live

        assert game is not None, "the push held at least the game's create event or the league had the game"
        post_live(conn, game_id, table, last, game, lambda: events_first_at(conn, game_id), new[-1]["at"])
    REPLAYS.put(game_id, last, game)
    return {"game_id": game_id, "acked": last, "stored": len(new)}


def game_log(conn: PgConnection, game_id: str) -> list[dict[str, Any]]:
    """Every event the league holds for ``game_id``, in seq order."""
    return [
        event_row(r)
        for r in conn.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE game_id = %s ORDER BY seq", (game_id,)
        )
    ]


def events_first_at(conn: PgConnection, game_id: str) -> str:
    row = conn.execute("SELECT at FROM events WHERE game_id = %s AND seq = 1", (game_id,)).fetchone()
    return row[0] if row else ""


# -- camera frames ------------------------------------------------------------------------------------
def accept_frame(conn: PgConnection, token: Any, game_id: Any, seq: Any, jpeg: Any) -> dict[str, Any]:
    """Store the camera frame roll event ``seq`` of ``game_id`` was read from: the pushing table's own
    game (``forbidden`` otherwise), an event the league already holds that is a roll (``not_found`` /
    ``malformed``), a JPEG of at most ``MAX_FRAME_BYTES``.  Idempotent: the same frame again changes
    nothing; a different one for the same event is a ``conflict``.  Returns ``{"game_id", "seq", "stored"}``."""
    from companion.session.store import MAX_FRAME_BYTES

    if not isinstance(game_id, str) or not GAME_ID.match(game_id):
        raise PushRefused("malformed", "game_id must be 1-64 letters, digits, '-' or '_'")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise PushRefused("malformed", "seq must be a positive integer")
    if not isinstance(jpeg, bytes) or not jpeg.startswith(b"\xff\xd8\xff"):
        raise PushRefused("malformed", "a frame is a JPEG image (Content-Type: image/jpeg)")
    if len(jpeg) > MAX_FRAME_BYTES:
        raise PushRefused("malformed", f"a frame is at most {MAX_FRAME_BYTES} bytes, not {len(jpeg)}")
    _, table = require(conn, token, "table")
    with conn.transaction():
        row = conn.execute("SELECT table_no FROM games WHERE game_id = %s", (game_id,)).fetchone()
        if row is None:
            raise PushRefused("not_found", f"the league has no game {game_id}: push its events first")
        if row[0] != table:
            raise PushRefused(
                "forbidden", f"game {game_id} belongs to table {row[0]}; this token is table {table}'s"
            )
        event = conn.execute(
            "SELECT type FROM events WHERE game_id = %s AND seq = %s", (game_id, seq)
        ).fetchone()
        if event is None:
            raise PushRefused(
                "not_found", f"game {game_id} has no event {seq} at the league yet: push it first"
            )
        if event[0] != "roll":
            raise PushRefused(
                "malformed",
                f"event {seq} of game {game_id} is a {event[0]}, not a roll: "
                "only a roll is read from a camera frame",
            )
        stored = conn.execute(
            "INSERT INTO event_frames (game_id, seq, jpeg) VALUES (%s, %s, %s) "
            "ON CONFLICT (game_id, seq) DO NOTHING",
            (game_id, seq, jpeg),
        ).rowcount
        if not stored:
            old = conn.execute(
                "SELECT jpeg FROM event_frames WHERE game_id = %s AND seq = %s", (game_id, seq)
            ).fetchone()
            assert old is not None, "the insert found this frame there"
            old = old[0]
            if bytes(old) != jpeg:
                raise PushRefused(
                    "conflict", f"the league already holds another frame for event {seq} of game {game_id}"
                )
    return {"game_id": game_id, "seq": seq, "stored": int(bool(stored))}
