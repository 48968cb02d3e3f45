"""SAIs in the army's response to a dragon attack, through the flow (V4.01c L670-673: any SAI that
generates melee, missile or saves, or acts in a dragon attack, applies).  The FAQ96 rulings on these
SAIs against dragons (FAQ96-09 to FAQ96-12) read the same in V4.01c's SAI table, with X the face's
value: Counter gives X saves and X melee (L1396-1397), Fly X saves only (maneuver is not counted,
L1586-1587), Trample X melee, not doubled (L2008-2009), Smite X melee (L1877-1878)."""

from __future__ import annotations

import pytest
from dragon_support import answer, new_game, place, to_dragon_phase, zero_faces


def respond_with(die: str, face: str) -> str:
    """Bob's home army: `die` and Soldiers (whose maneuver face counts nothing here)."""
    bob = {
        "home": [die, "Amazons/Soldier", "Amazons/Soldier"],
        "horde": ["Amazons/Soldier"] * 10,
        "campaign": ["Amazons/Soldier"] * (14 if "Nightmare" in die else 15),
    }
    game = new_game(
        force=30,
        bob=bob,
        dragons=(("Dragons/Red Drake", "Dragons/Red Wyrm"), ("Dragons/Blue Drake", "Dragons/Blue Wyrm")),
    )
    place(game, "home-p2", "Red Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["0 Belly"])
    d = game.pending
    faces = zero_faces(d)
    faces[[x["die"] for x in d.dice].index(die)] = face
    game.apply({"type": "roll", "faces": faces})
    return next(line for line in game.log if line.startswith("Against the dragons"))


@pytest.mark.parametrize(
    "case,die,face,expected",
    [
        ("FAQ96-09", "Amazons/Harbinger", "4 Counter", "4 melee, 0 missile, 4 saves"),
        ("FAQ96-10", "Amazons/Nightmare", "4 Fly", "0 melee, 0 missile, 4 saves"),
        ("FAQ96-11", "Amazons/War Driver", "3 Trample", "3 melee, 0 missile, 0 saves"),
        ("FAQ96-12", "Amazons/War Chief", "4 Smite", "4 melee, 0 missile, 0 saves"),
    ],
)
def test_sai_in_dragon_response(case, die, face, expected):
    """FAQ96-09 [F] Counter vs dragon: saves and melee; FAQ96-10 [F] Fly vs dragon: saves only;
    FAQ96-11 [F] Trample vs dragons: hits, not doubled; FAQ96-12 [F] Smite vs dragons: normal hits
    (V4.01c rows cited in the module docstring)."""
    assert respond_with(die, face) == f"Against the dragons: {expected}", case
