"""Damage allocation, the eighth face icons (City, Temple), promotion, losing control, elimination.
Each test names its case of ../shared/rules/worked-examples.md or the rule line it checks."""

from __future__ import annotations

import pytest
from r96_helpers import BUA, DUA, RESERVE, choose, roll, stage, started, where

from companion.rules.core.errors import IllegalAllocation

FRONT = "frontier"


def test_r96_12_damage_is_covered_exactly_never_in_excess():
    """R96-12: 2 damage on {1, 1, 2, 3}: both 1s or the 2, never the 3; on {3, 3, 3, 3} nothing dies."""
    game = started()
    units = stage(
        game,
        {
            ("p1", FRONT): ["Dwarves/Sergeant"],
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", FRONT): ["Goblins/Thug", "Goblins/Mugger", "Goblins/Cutthroat", "Goblins/Marauder"],
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
        faces={FRONT: 5},
    )
    choose(game, FRONT)
    choose(game, "stay")
    choose(game, "melee")
    choose(game, "skirmish")
    roll(game, "2 Melee")
    roll(game, "1 Melee", "1 Melee", "2 Melee", "3 Melee")
    assert game.pending.kind == "allocate"
    thug, mugger, cutthroat, marauder = units[("p2", FRONT)]
    sets = sorted(sorted(c["value"]) for c in game.pending.choices)
    assert sets == sorted([sorted([thug, mugger]), [cutthroat]])
    with pytest.raises(IllegalAllocation, match="excess"):
        game.apply({"type": "allocate", "units": [marauder]})
    with pytest.raises(IllegalAllocation, match="does not cover"):
        game.apply({"type": "allocate", "units": [thug]})
    game.apply({"type": "allocate", "units": [cutthroat]})
    assert where(game, cutthroat) == DUA and where(game, marauder) == FRONT
    game = started()
    units = stage(
        game,
        {
            ("p1", FRONT): ["Dwarves/Sergeant"],
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", FRONT): ["Goblins/Marauder"] * 4,
        },
        faces={FRONT: 5},
    )
    choose(game, FRONT)
    choose(game, "stay")
    choose(game, "melee")
    choose(game, "skirmish")
    roll(game, "2 Melee")
    log = roll(game, *["3 Melee"] * 4)
    assert any("no unit dies" in line for line in log)
    assert all(where(game, u) == FRONT for u in units[("p2", FRONT)])


def test_r96_18_city_promotes_one_health_up_within_the_race():
    """R96-18 (R96 L652-661): a City's holder recruits a dead common or promotes a unit to a dead unit of
    its race worth one more health (common -> uncommon; rare -> monster)."""
    game = started()
    units = stage(
        game,
        {
            ("p1", "home-p1"): ["Dwarves/Footman", "Dwarves/Mammoth Rider"],
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
        dead={"p1": ["Dwarves/Sergeant", "Dwarves/Behemoth", "Goblins/Cutthroat", "Dwarves/Pony Rider"]},
    )
    game.state.terrains["home-p1"].face, game.state.terrains["home-p1"].controller = 8, "p1"
    # the city acts at the beginning of Ann's next turn
    choose(game, "pass")
    choose(game, "pass")
    game.apply({"type": "retreat", "units": []})
    from r96_helpers import until

    until(game, "city", "p1")
    values = {c["label"] for c in game.pending.choices}
    assert values == {
        "Neither",
        "Recruit Dwarves/Pony Rider",
        "Promote Dwarves/Footman to Dwarves/Sergeant",
        "Promote Dwarves/Mammoth Rider to Dwarves/Behemoth",
    }
    footman = units[("p1", "home-p1")][0]
    sergeant = units[("p1", DUA)][0]
    choose(game, f"promote:{footman}:{sergeant}")
    assert where(game, sergeant) == "home-p1" and where(game, footman) == DUA


def test_temple_forces_a_burial_of_the_targets_choice():
    """R96 L668-673: the Temple's holder makes another player bury one dead unit, which that player picks."""
    game = started()
    units = stage(
        game,
        {
            ("p1", "home-p2"): ["Dwarves/Footman"],
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", FRONT): ["Goblins/Thug"],
        },
        dead={"p2": ["Goblins/Thug", "Goblins/Marauder"]},
    )
    t = game.state.terrains["home-p2"]
    assert t.kind.icon == "Temple"
    t.face, t.controller = 8, "p1"
    choose(game, "pass")
    choose(game, "pass")
    game.apply({"type": "retreat", "units": []})
    from r96_helpers import until

    until(game, "temple", "p1")
    choose(game, "p2")
    assert game.pending.player == "p2" and game.pending.topic == "temple_bury"
    marauder = units[("p2", DUA)][1]
    choose(game, marauder)
    assert where(game, marauder) == BUA


def test_abandoned_eighth_face_turns_back_to_seven():
    """R96 L610-614, L644-646: a captured terrain left by its army turns back to face 7."""
    game = started()
    units = stage(
        game,
        {
            ("p1", FRONT): ["Dwarves/Footman"],
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
    )
    t = game.state.terrains[FRONT]
    t.face, t.controller = 8, "p1"
    choose(game, "pass")
    choose(game, "pass")
    game.apply({"type": "retreat", "units": units[("p1", FRONT)]})
    assert t.face == 7 and t.controller is None
    assert where(game, units[("p1", FRONT)][0]) == RESERVE


def test_a_player_without_units_is_out_and_the_last_one_wins():
    """Decision D-LAST-ARMY: the last player with units in play wins."""
    game = started()
    stage(
        game,
        {
            ("p1", FRONT): ["Dwarves/Patroller"],
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", FRONT): ["Goblins/Thug"],
        },
        faces={FRONT: 5},
    )
    choose(game, FRONT)
    choose(game, "stay")
    choose(game, "melee")
    choose(game, "skirmish")
    roll(game, "3 Melee")
    log = roll(game, "1 Melee")
    assert game.state.winner == "p1" and game.pending is None
    assert any("last units" in line for line in log)
