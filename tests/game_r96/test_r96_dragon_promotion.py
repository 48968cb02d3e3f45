"""Slaying a dragon (R96 L902-905): the army "may promote as many units as possible", and "all
promotions occur simultaneously": the matching is made against the dead unit area as it was, so a
unit just traded into it can never be taken by another promotion, and the owner may decline."""

from __future__ import annotations

from r96_helpers import DUA, roll, where
from test_r96_dragons import FRONT, board, dragon, start

ARMY = ["Dwarves/Patroller", "Dwarves/Footman"] + ["Dwarves/Mammoth Rider"] * 5
#: 12 melee slay the drake (5 health + 5 saves), 6 saves stop its claw (5 damage): nobody dies
FACES = ["2 Maneuver", "1 Melee", "4 Melee", "4 Melee", "4 Melee", "3 Save", "3 Save"]


def slay(dead):
    game, units = board(ARMY, dead={"p1": dead})
    red = dragon(game, "p2", "Dragons/Red Drake")
    start(game)
    roll(game, "6 Claw")
    roll(game, *FACES)
    assert where(game, red) == DUA
    return game, units[("p1", FRONT)], units[("p1", DUA)]


def test_promotions_are_simultaneous_and_never_reuse_a_unit_just_traded():
    game, army, dead = slay(["Dwarves/Mammoth Rider"])
    patroller, footman = army[0], army[1]
    d = game.pending
    assert d.topic == "dragon_promotion" and d.player == "p1" and "R96 L902-905" in d.rule
    values = [c["value"] for c in d.choices]
    assert "none" in values and len(values) == 2  # promote the Patroller, or nothing
    game.apply({"type": "choose", "choice": next(v for v in values if v != "none")})
    assert where(game, patroller) == DUA and where(game, dead[0]) == FRONT
    assert where(game, footman) == FRONT  # not promoted to the Patroller that just went to the DUA


def test_the_army_may_decline():
    game, army, dead = slay(["Dwarves/Mammoth Rider"])
    game.apply({"type": "choose", "choice": "none"})
    assert where(game, army[0]) == FRONT and where(game, dead[0]) == DUA


def test_as_many_as_possible_in_one_choice():
    game, army, dead = slay(["Dwarves/Mammoth Rider", "Dwarves/Sergeant"])
    d = game.pending
    full = [c for c in d.choices if c["value"] != "none"]
    assert len(full) == 1 and "Patroller" in full[0]["label"] and "Footman" in full[0]["label"]
    game.apply({"type": "choose", "choice": full[0]["value"]})
    assert [where(game, u) for u in army[:2]] == [DUA, DUA] and [where(game, u) for u in dead] == [
        FRONT,
        FRONT,
    ]
