"""A game on a durable event log: ``GameSession``.

    s = GameSession.create("game.db", {"force_size": 24, "players": [{"name": "Alice", "species": "Dwarves"},
                                                                      {"name": "Bob", "species": "Goblins"}]})
    s.pending()     # {"player": "p1", "kind": "roll", "prompt": "...", "dice": [...], "choices": [], ...}
    s.submit({"type": "roll_for_me", "seed": 1})        # -> [event]
    s.state_dict()  # players, terrains, armies, reserves, DUA, BUA, pool, effects, phase/march/step, winner
    s.undo()        # take back the last accepted action
    s.export("game.json"); GameSession.import_file("copy.db", "game.json")

Action dicts accepted by ``submit`` (the pending decision's ``answer`` says which):

* ``{"type": "roll", "faces": ["2 Melee", "ID", 3, ...]}``: one face per die of ``pending()["dice"]``,
  in order, as the face text or its 1-based number on that die;
* ``{"type": "roll_for_me", "seed": 1}``: the companion rolls (seeded; the faces are logged);
* a roll read by a source (camera, smart dice, typed): ``submit_readings([DieReading, ...])``, one
  ``companion.readings.DieReading`` per die; its event is the ``roll`` above plus ``"readings"`` (each
  die's reading as JSON), which replay never gives the game: logs without it replay as before;
* ``{"type": "choose", "choice": value}``: one of ``pending()["choices"][i]["value"]``;
* ``{"type": "allocate", "units": ["u3", "u7"]}``: the units that die (kill enough to cover the damage,
  never in excess; ``pending()["choices"]`` lists legal sets);
* ``{"type": "cast", "spells": [{"spell": "Stone Skin", "target": "p1@frontier", "element": "Earth"}]}``;
* ``{"type": "reinforce", "moves": {"u5": "frontier"}}`` and ``{"type": "retreat", "units": ["u2"]}``.

An optional ``"player"`` key is checked against the player who must decide.  Every accepted action
is written to SQLite (WAL, one transaction per event) before ``submit`` returns; the state is the
replay of the log.  Illegal input raises a ``GameRuleError`` (a ``ValueError``) that says what is
wrong and cites the rule, and changes nothing.
"""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path
from typing import Any

from ..readings import DieReading, parse_reading
from ..rules import games
from ..rules.core.errors import GameRuleError, IllegalAction
from ..rules.games import TableGame
from .store import FORMAT, EventLog, EventStore, SessionError, check_by

ACTION_TYPES = ("roll", "roll_for_me", "choose", "allocate", "cast", "reinforce", "retreat")
ROLL_EVENTS = ("roll", "roll_for_me")  # the events whose roll the state's last_roll shows
READINGS_KEY = "readings"  # a roll event's per-die readings (``submit_readings``); never given to the game


def _change(event: dict[str, Any]) -> dict[str, Any]:
    return {"seq": event["seq"], "type": event["type"], "by": event.get("by")}


def full_setup(setup: dict[str, Any]) -> dict[str, Any]:
    """A set-up as its game takes it; players given only by name/species are filled in (quick start).
    Which game (V4.01c, 1996, Battle Dice) is the registry's (``companion.rules.games``)."""
    return games.full_setup(setup)


def new_game(setup: dict[str, Any]) -> TableGame:
    """The game a set-up starts, from the registry of games (``companion.rules.games``)."""
    return games.start_game(setup)


def quick_start(
    db_path: str | Path,
    names: tuple[str, ...] = ("Alice", "Bob"),
    species: tuple[str, ...] = ("Dwarves", "Goblins"),
    force_size: int = 24,
) -> GameSession:
    """A new quick-start game (one species per player, armies of a third of the force each)."""
    players = [{"name": n, "species": s} for n, s in zip(names, species, strict=True)]
    return GameSession.create(db_path, {"force_size": force_size, "players": players})


class GameSession:
    """One game, its SQLite event log and the state rebuilt from it."""

    def __init__(self, store: EventLog):
        self._store = store
        self._lock = threading.RLock()
        self.game_id = store.meta("game_id") or ""
        self._rebuild()

    # -- opening ------------------------------------------------------------------------------------
    @classmethod
    def create(
        cls, db_path: str | Path, setup: dict[str, Any], by: dict[str, Any] | None = None
    ) -> GameSession:
        """Start a new game in a new database file; its ``create`` event records ``by``, who started it
        (:func:`~.store.check_by`).  Raises ``IllegalSetup`` for an illegal set-up."""
        full = full_setup(setup)
        new_game(full)  # validate before anything is written
        by = check_by(by)
        path = Path(db_path)
        if path.exists() and path.stat().st_size > 0:
            probe = EventStore(path, create=True)
            try:
                if probe.last_seq():
                    raise SessionError(f"{path} already holds a game; open it or choose another file")
            finally:
                probe.close()
        store = EventStore(path, create=True)
        store.init(uuid.uuid4().hex, full, by=by)
        return cls(store)

    @classmethod
    def open(cls, db_path: str | Path) -> GameSession:
        return cls(EventStore(db_path))

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> GameSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- replay ---------------------------------------------------------------------------------------
    def _rebuild(self) -> None:
        events = self._store.events()
        if not events or events[0]["type"] != "create":
            raise SessionError(f"{self._store.path} has no 'create' event")
        self._game = replay(events)
        self._seq = events[-1]["seq"]
        active = [e for e in events if not e["undone"] and e["type"] not in ("create", "undo")]
        rolls = [e for e in active if e["type"] in ROLL_EVENTS]
        self._last_change = _change(active[-1]) if active else None
        self._last_roll = _change(rolls[-1]) if rolls else None

    def _sync(self) -> None:
        """Another process may have written: catch up before reading or writing."""
        if self._store.last_seq() != self._seq:
            self._rebuild()

    @property
    def game(self) -> TableGame:
        with self._lock:
            self._sync()
            return self._game

    # -- reading ----------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        with self._lock:
            self._sync()
            state = self._game.state.to_dict()
            state["game_id"] = self.game_id
            state["seq"] = self._seq
            state["pending"] = self._pending_unlocked()
            state["over"] = self._game.over
            state["log"] = self._game.log[-30:]
            return state

    def pending(self) -> dict[str, Any] | None:
        with self._lock:
            self._sync()
            return self._pending_unlocked()

    def _pending_unlocked(self) -> dict[str, Any] | None:
        p = self._game.pending_dict()
        if p is not None:
            p["player_name"] = self._game.state.player(p["player"]).name
        return p

    def events(self, since: int = 0) -> list[dict[str, Any]]:
        with self._lock:
            return self._store.events(since)

    # -- writing ----------------------------------------------------------------------------------------
    def submit(
        self, action: dict[str, Any], by: dict[str, Any] | None = None, frame: bytes | None = None
    ) -> list[dict[str, Any]]:
        """Validate and apply one action; it is committed to the log before this returns.  ``by``
        (who made it, :func:`~.store.check_by`) is kept with the event, and ``frame`` (the JPEG a camera
        roll was read from) beside it, in the same transaction; replay reads neither."""
        try:
            by = check_by(by)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from None
        if not isinstance(action, dict):
            raise IllegalAction(f"an action must be a JSON object, not {type(action).__name__}")
        if action.get("type") not in ACTION_TYPES:
            raise IllegalAction(
                f"unknown action type {action.get('type')!r}; known: {', '.join(ACTION_TYPES)}"
            )
        try:
            json.dumps(action)
        except (TypeError, ValueError) as exc:
            raise IllegalAction(f"the action is not JSON: {exc}") from None
        return self._submit(action, by, frame)

    def submit_readings(
        self,
        readings: list[DieReading | dict[str, Any]],
        by: dict[str, Any] | None = None,
        frame: bytes | None = None,
    ) -> list[dict[str, Any]]:
        """Answer the pending roll with one reading per die (``DieReading`` or its JSON form), matched
        by ``die`` to the roll's dice.  Every die of the roll needs exactly one reading, and it must be
        ``read`` (a cocked or unread die is rerolled or tapped first).  The event is the ``roll`` the
        game takes (faces in the roll's order) with the readings beside the faces; replay reads the faces
        only.  Raises ``IllegalAction`` (changing nothing) naming the die that is wrong."""
        try:
            by = check_by(by)
            parsed = [parse_reading(r) for r in readings]
        except ValueError as exc:  # ReadingError included
            raise IllegalAction(str(exc)) from None
        return self._submit({"type": "roll"}, by, frame, parsed)

    def _submit(
        self,
        action: dict[str, Any],
        by: dict[str, Any] | None,
        frame: bytes | None,
        readings: list[DieReading] | None = None,
    ) -> list[dict[str, Any]]:
        with self._lock:
            try:
                # The write lock is taken first, so no other process can append between our
                # catching up with the log and our event (BEGIN IMMEDIATE).
                with self._store.transaction():
                    self._sync()
                    if readings is not None:  # matched to the roll pending now, under the write lock
                        pending = self._game.pending_dict()
                        if not pending or pending.get("kind") != "roll":
                            raise IllegalAction(
                                "no roll is pending now"
                                + (f" (waiting for: {pending['prompt']})" if pending else "")
                            )
                        readings = roll_readings(pending["dice"], readings)
                        action = {"type": "roll", "faces": [r.face for r in readings]}
                    player = self._game.pending.player if self._game.pending else None
                    accepted = self._game.apply(action)  # raises, unchanged, on illegal input
                    log = accepted.pop("log")
                    if readings is not None:
                        accepted[READINGS_KEY] = logged_readings(readings, accepted.get("faces"))
                    event = self._store.insert(accepted["type"], player, accepted, log, by=by)
                    if frame is not None:
                        self._store.put_frame(event["seq"], frame)
            except GameRuleError:
                raise
            except BaseException:
                self._rebuild()  # the game object may have moved on without the log: go back to the log
                raise
            self._seq = event["seq"]
            self._last_change = _change(event)
            if event["type"] in ROLL_EVENTS:
                self._last_roll = self._last_change
            return [event]

    def last_changes(self) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """``({seq, type, by}`` of the last action still in force, ``{seq, type, by}`` of the last roll
        still in force``)`` (None: none yet; ``by`` None: not recorded), for the table's pages."""
        with self._lock:
            self._sync()
            return self._last_change, self._last_roll

    def undo(self, n: int = 1, by: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Take back the last `n` accepted actions (not the set-up); returns the undo event (with ``by``,
        who took them back)."""
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise IllegalAction(f"undo needs a positive number of actions, not {n!r}")
        try:
            by = check_by(by)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from None
        with self._lock:
            with self._store.transaction():
                active = [
                    e for e in self._store.events() if not e["undone"] and e["type"] not in ("create", "undo")
                ]
                if n > len(active):
                    raise IllegalAction(f"only {len(active)} action(s) can be undone, not {n}")
                seqs = [e["seq"] for e in active[-n:]]
                event = self._store.mark_undone(seqs, {"undid": seqs}, by=by)
            self._rebuild()
            return [event]

    def frame(self, seq: int) -> bytes | None:
        """The camera frame roll event ``seq`` was read from (None: typed, a smart die, or no frame kept)."""
        with self._lock:
            return self._store.frame(seq)

    def frames(self, since: int, upto: int) -> list[tuple[int, bytes]]:
        """(seq, JPEG) of the camera frames kept for events ``since`` < seq <= ``upto``."""
        with self._lock:
            return self._store.frames(since, upto)

    # -- files ------------------------------------------------------------------------------------------
    def export(self, path: str | Path) -> Path:
        """Write the whole game (set-up and every event) to a JSON game file."""
        with self._lock:
            doc = {"format": FORMAT, "game_id": self.game_id, "events": self._store.events()}
        path = Path(path)
        if path.is_dir():
            raise SessionError(f"{path} is a folder: give the game file's name")
        if not path.parent.is_dir():
            raise SessionError(f"{path}: the folder {path.parent} does not exist")
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(doc, indent=1))
            tmp.replace(path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise SessionError(f"{path}: cannot write the game file ({exc.strerror or exc})") from None
        return path

    @classmethod
    def import_file(cls, db_path: str | Path, path: str | Path) -> GameSession:
        """Load a game file into a new database; the file is replayed (checked) before anything is written."""
        try:
            doc = json.loads(Path(path).read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SessionError(f"cannot read game file {path}: {exc}") from None
        if (
            not isinstance(doc, dict)
            or doc.get("format") != FORMAT
            or not isinstance(doc.get("events"), list)
        ):
            raise SessionError(f"{path} is not a game file of format {FORMAT}")
        events = doc["events"]
        try:
            replay(events)
        except (SessionError, GameRuleError, KeyError, TypeError, ValueError) as exc:
            raise SessionError(f"{path} does not replay to a legal game: {exc}") from None
        dbp = Path(db_path)
        if dbp.exists() and dbp.stat().st_size > 0:
            raise SessionError(f"{dbp} already exists; import into a new file")
        store = EventStore(dbp, create=True)
        with store.transaction() as conn:
            conn.execute(
                "INSERT INTO meta VALUES ('format', ?), ('game_id', ?)",
                (FORMAT, str(doc.get("game_id") or uuid.uuid4().hex)),
            )
            for e in events:
                conn.execute(
                    "INSERT INTO events (seq, type, player, action, log, undone, at, changed_by) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        int(e["seq"]),
                        e["type"],
                        e.get("player"),
                        json.dumps(e["action"]),
                        json.dumps(e.get("log", [])),
                        int(bool(e.get("undone"))),
                        e.get("at") or "",
                        None if e.get("by") is None else json.dumps(e["by"]),
                    ),
                )
        return cls(store)


class EventError(SessionError, ValueError):
    """An event of a game log that is malformed or does not replay; the message names its seq and key."""


def _event_seq(k: int, e: object, last: int) -> int:
    """The seq of event ``k`` (0-based) of a log, once its keys are of the right kind (``EventError``
    naming the event and the key otherwise); ``last`` is the seq before it."""
    if not isinstance(e, dict):
        raise EventError(f"event {k + 1} of the log (after seq {last}) is not an object")
    seq = e.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq <= last:
        raise EventError(
            f"event {k + 1} of the log (after seq {last}): seq: must be a whole number above {last}, not {seq!r}"
        )
    type_, action = e.get("type"), e.get("action")
    if (type_ == "create") != (k == 0):
        raise EventError(
            f"event seq {seq}: type: a log's first event, and only it, is 'create' (not {type_!r})"
        )
    if not isinstance(action, dict):
        raise EventError(f"event seq {seq}: action: must be an object, not {action!r}")
    if type_ not in ("create", "undo") and type_ != action.get("type"):
        raise EventError(f"event seq {seq}: type: {type_!r} is not its action's type {action.get('type')!r}")
    if not isinstance(e.get("undone", False), bool):
        raise EventError(f"event seq {seq}: undone: must be true or false, not {e['undone']!r}")
    log = e.get("log", [])
    if not isinstance(log, list) or not all(isinstance(line, str) for line in log):
        raise EventError(f"event seq {seq}: log: must be a list of lines of text")
    return seq


def replay(events: list[dict[str, Any]]) -> TableGame:
    """Rebuild a game from its events (``create`` first; undone events and undo markers skipped).
    Only ``seq``, ``type``, ``undone`` and ``action`` are read: who made a change (``by``) and when
    (``at``) never change the game.  ``EventError`` names the event (its seq) and the key that is wrong."""
    if not events or not isinstance(events[0], dict) or events[0].get("type") != "create":
        raise SessionError("a game log starts with its 'create' event")
    game: TableGame | None = None
    last = 0
    for k, e in enumerate(events):
        last = _event_seq(k, e, last)
        if k and (e["type"] == "undo" or e.get("undone")):  # the create event always counts
            continue
        action: dict[str, Any] = dict(e["action"])
        action.pop(READINGS_KEY, None)  # how the faces were read; the game takes the faces only
        try:
            if game is None:
                game = new_game(action)
            else:
                game.apply(action)
        except (GameRuleError, KeyError, TypeError, ValueError) as exc:
            raise EventError(f"event seq {last}: action: {exc}") from None
    assert game is not None  # the first event is the create event
    return game


def roll_readings(dice: list[dict[str, Any]], readings: list[DieReading]) -> list[DieReading]:
    """One reading per die of a pending roll's ``dice`` (``pending()["dice"]``), in their order;
    ``IllegalAction`` names a die with no reading, two readings, an unknown die or one not read."""
    uids = [d["uid"] for d in dice]
    by_die: dict[str, DieReading] = {}
    for r in readings:
        if r.die not in uids:
            raise IllegalAction(f"{r.die!r} is not one of the dice to roll now ({', '.join(uids)})")
        if r.die in by_die:
            raise IllegalAction(f"two readings for die {r.die}: give one face per die")
        if not r.is_read:
            why = f": {r.problem}" if r.problem else ""
            raise IllegalAction(
                f"die {r.die} is {r.state.value}{why}; "
                + ("reroll it" if r.is_cocked else "tap its face")
                + " before the roll is confirmed"
            )
        by_die[r.die] = r
    missing = [u for u in uids if u not in by_die]
    if missing:
        raise IllegalAction(f"no face for {', '.join(missing)}: every die of the roll needs a reading")
    return [by_die[u] for u in uids]


def logged_readings(readings: list[DieReading], faces: list[object] | None) -> list[dict[str, Any]]:
    """The readings (in the roll's order) as a roll event keeps them: each face as the game accepted it."""
    out = []
    for k, r in enumerate(readings):
        d = r.to_dict()
        if faces is not None and k < len(faces) and isinstance(faces[k], str):
            d["face"] = faces[k]
        out.append(d)
    return out
