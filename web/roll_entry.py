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

from .game_copies import game_copy, spare_lock, state_key

#: the last previews' answers by (game key, faces): the same faces asked again (the page asks after each
#: tap) are answered without a copy of the game
_answers: dict[tuple, dict] = {}
ANSWERS_KEPT = 64


def _remembered(key: tuple, faces: dict, answer: dict | None = None) -> dict | None:
    """The answer kept for these faces of this game state (a copy), or keep ``answer`` for them."""
    import copy

    k = (key, tuple(sorted(faces.items())))
    with spare_lock:
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
    key = state_key(store)
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
