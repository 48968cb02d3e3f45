"""Answers the game tests give the engine: faces for a roll decision from a script (each die's queued
faces, else a face worth nothing for the roll), and the answer that takes the first option and does
nothing more (allocate the first legal set; cast, reinforce and retreat nothing).

Shared by the helper modules of the game test folders (game_support, sai_arena, species_script,
dragon_support, r96_helpers); each keeps its own choice of faces and of answers where they differ."""

from __future__ import annotations

from collections.abc import Mapping

from companion.rules.core.decisions import ANSWER_TYPE, Decision
from companion.rules.core.state import spec_for

ARMY_ROLLS = ("maneuver", "melee", "missile", "magic", "save")
ICON_OF_ROLL = {roll: roll.capitalize() for roll in ARMY_ROLLS}
# The field of each kind's answer that holds what was decided (companion.rules.core.decisions).
ANSWER_FIELD = {
    "roll": "faces",
    "choice": "choice",
    "allocate": "units",
    "cast": "spells",
    "reinforce": "moves",
    "retreat": "units",
}


def blank_face(name: str, roll: str) -> str:
    """A face of die `name` worth nothing for `roll` (no ID, no SAI, not its icon): the die's first
    face with another action icon."""
    icon = ICON_OF_ROLL.get(roll)
    for f in spec_for(name).faces:
        kind = f.split(" ", 1)[1]
        if kind in ICON_OF_ROLL.values() and kind != icon:
            return f
    raise AssertionError(f"no blank face for {roll} on {name}")


def scripted_faces(
    decision: Decision, queued: Mapping[str, list[str]], terrain: str | None = None
) -> list[str]:
    """One face per die of roll `decision`: the next of that die's `queued` faces (by uid; taken off the
    list), else for an army roll a ``blank_face``, for a terrain roll `terrain` where one is given, and
    otherwise the die's first face that is not its ID."""
    roll = decision.data.get("roll", "special")
    out = []
    for die in decision.dice:
        queue = queued.get(die["uid"])
        if queue:
            out.append(queue.pop(0))
        elif roll in ARMY_ROLLS:
            out.append(blank_face(die["die"], roll))
        elif roll == "terrain" and terrain is not None:
            out.append(terrain)
        else:
            out.append(next(f for f in die["faces"] if not f.endswith(" ID")))
    return out


def answer_with(decision: Decision, value) -> dict:
    """`value` as the answer to `decision`: the choice, the units to allocate or retreat, the spells to
    cast, the reinforcing moves or the faces rolled, as its kind takes it."""
    return {"type": ANSWER_TYPE[decision.kind], ANSWER_FIELD[decision.kind]: value}


def first_option(decision: Decision) -> dict:
    """The answer to a decision that is not a roll: choose the first option, allocate the first legal set
    of units, cast, reinforce and retreat nothing."""
    kind = decision.kind
    if kind == "choice":
        return {"type": "choose", "choice": decision.choices[0]["value"]}
    if kind == "allocate":
        return {"type": "allocate", "units": decision.choices[0]["value"]}
    if kind == "cast":
        return {"type": "cast", "spells": []}
    if kind == "reinforce":
        return {"type": "reinforce", "moves": {}}
    if kind == "retreat":
        return {"type": "retreat", "units": []}
    raise AssertionError(f"first_option answers no {kind!r} decision: {decision.prompt}")
