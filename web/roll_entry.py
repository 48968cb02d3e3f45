"""What the Roll panel needs to enter a roll fast, all from the engine's data (the page counts nothing).

* the icon kind of each face of a pending roll's die comes in the decision itself (``dice[i].icons``,
  the engine's ``core.decisions.face_icons``): the page's "set every untapped die to <icon>" picks,
  for each die, the face of that kind (a die with two different faces of the kind is left for a tap).
* ``roll_preview(store, faces)``: the total the game would give these faces, resolved by the game
  engine itself on a replayed copy of the game (nothing is written); shown while faces are tapped.
  The copy for the next tap is replayed in the background, one replay at a time per game, and an
  answer is kept for the same faces of the same game state (asked again, it costs no replay).
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger("companion.web")

# One copy of the game, rebuilt from the log ahead of the next preview (each preview uses a copy up:
# giving it the roll changes it).  Keyed by game file, game and last event, so it is never stale.
# One rebuild at a time per game file: a preview that comes while it runs waits for it instead of
# replaying the log a second time beside it (taps quicker than a replay would pile replays up).
_spare: dict[str, tuple[tuple, object]] = {}
_building: dict[str, tuple[tuple, threading.Thread]] = {}
_spare_lock = threading.Lock()
#: the last previews' answers by (game key, faces): the same faces asked again (the page asks after each
#: tap) are answered without a copy of the game
_answers: dict[tuple, dict] = {}
ANSWERS_KEPT = 64
WAIT_S = 5.0  # longest wait for a rebuild under way before replaying here


def _key(store) -> tuple:
    return (str(store.db_path), store.game_id, store.last_seq)


def _rebuild(store, key: tuple) -> None:
    from companion.session.game_session import replay

    try:
        game = replay(store.session.events(0))
    except Exception as exc:  # the game moved on or closed meanwhile: the next preview replays itself
        log.debug("no spare game copy: %s", exc)
        game = None
    with _spare_lock:
        if game is not None and _key(store) == key:
            _spare[key[0]] = (key, game)
        if _building.get(key[0], (None, None))[1] is threading.current_thread():
            del _building[key[0]]


def _start_rebuild(store, key: tuple) -> None:
    with _spare_lock:
        busy = _building.get(key[0])
        if busy is not None and busy[0] == key and busy[1].is_alive():
            return  # one is under way for this very state
        t = threading.Thread(target=_rebuild, args=(store, key), name="preview-spare", daemon=True)
        _building[key[0]] = (key, t)
    t.start()


def game_copy(store):
    """A copy of the current game, rebuilt from its log: the spare one made after the last preview
    when it is still of this event (waiting for it if it is being made), else made now; another spare
    is then made in the background."""
    from companion.session.game_session import replay

    key = _key(store)
    with _spare_lock:
        got = _spare.pop(key[0], None)
        busy = _building.get(key[0])
    if (got is None or got[0] != key) and busy is not None and busy[0] == key:
        busy[1].join(WAIT_S)
        with _spare_lock:
            got = _spare.pop(key[0], None)
    game = got[1] if got is not None and got[0] == key else replay(store.session.events(0))
    _start_rebuild(store, key)
    return game


def _remembered(key: tuple, faces: dict, answer: dict | None = None) -> dict | None:
    """The answer kept for these faces of this game state (a copy), or keep ``answer`` for them."""
    import copy

    k = (key, tuple(sorted(faces.items())))
    with _spare_lock:
        if answer is None:
            got = _answers.get(k)
            return None if got is None else copy.deepcopy(got)
        if len(_answers) >= ANSWERS_KEPT:
            _answers.clear()
        _answers[k] = copy.deepcopy(answer)
    return answer


def roll_preview(store, faces: dict) -> dict:
    """The engine's total for ``faces`` (``{uid: face text}``) of the pending roll, without
    changing the game: a copy of the game is rebuilt from its log and given the roll.

    Every die set: ``{"complete": True, "total": T, "roll": "melee", "steps": [...]}``, or
    ``"again": [...]`` when a face makes dice roll again (the total comes after those).
    Some dice set: ``{"complete": False, "tapped": n, "dice": N, "total": T, "totals": {...}}`` where
    ``totals`` is what the dice set so far add up to by result type (the untapped ones not counting),
    from the game's ``roll_so_far`` (``TableGame``), and ``T`` the roll's own type among them; both
    None where the game cannot say before every die has a face (a face that makes dice roll again).
    Battle Dice gives ``totals`` only (the points of each phase; its roll has no one type)."""
    from .play import _pending_roll, reading_from_faces

    pending = _pending_roll(store)
    reading = reading_from_faces(store, faces, "typed")  # every uid and face checked
    chosen = reading["faces"]
    key = _key(store)
    kept = _remembered(key, chosen)
    if kept is not None:
        return kept
    return _remembered(key, chosen, _preview(store, pending, chosen))


def _preview(store, pending: dict, chosen: dict) -> dict:
    from .play import last_roll_view

    dice = pending["dice"]
    if any(d["uid"] not in chosen for d in dice):
        totals = game_copy(store).roll_so_far(
            {d["uid"]: chosen[d["uid"]] for d in dice if d["uid"] in chosen}
        )
        kind = pending.get("roll")
        total = None if totals is None or kind not in totals else int(totals[kind])
        return {
            "complete": False,
            "tapped": sum(d["uid"] in chosen for d in dice),
            "dice": len(dice),
            "total": total,
            "totals": totals,
            "roll": kind,
        }
    game = game_copy(store)
    game.apply({"type": "roll", "faces": [chosen[d["uid"]] for d in dice]})
    after = game.pending_dict()
    if after is not None and after.get("kind") == "roll" and after.get("reroll"):
        return {
            "complete": True,
            "total": None,
            "roll": pending.get("roll"),
            "again": [d["die"] for d in after.get("dice", [])],
        }
    state = game.state.to_dict() if hasattr(game.state, "to_dict") else {}
    roll = last_roll_view(state.get("last_roll") if isinstance(state, dict) else None)
    if not roll:  # a game that keeps no resolved roll (Battle Dice): nothing to add up here
        return {"complete": True, "total": None, "roll": pending.get("roll"), "steps": []}
    total = roll.get("total")
    if total is None:  # the 1996 game gives its totals by result type
        total = (roll.get("totals") or {}).get(roll.get("roll"))
    return {"complete": True, "total": total, "roll": roll.get("roll"), "steps": roll.get("steps", [])}
