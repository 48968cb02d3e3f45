"""The set-up steps both editions take from one place (``companion.rules.core.setup_steps``): each
edition refuses a bad force with its own words and citation, numbers the dice the same way, and rolls
terrains for their starting distance by its own rule."""

from __future__ import annotations

import copy

import pytest
from game_support import plain_setup
from r96_helpers import setup as r96_setup

from companion.rules.core.errors import IllegalSetup
from companion.rules.game import Game
from companion.rules.r96.game import R96Game

EDITIONS = {
    "v4": (Game, plain_setup, "the home, horde and campaign armies", "V4.01c L296-302", "V4.01c L290-292"),
    "r96": (R96Game, r96_setup, "home, campaign and horde", "R96 L157-163", "R96 L146-150"),
}


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_force_that_is_not_armies_and_dragons_is_refused_with_the_editions_citation(edition):
    make, base, wanted, armies_rule, dragons_rule = EDITIONS[edition]
    bad = copy.deepcopy(base())
    bad["players"][0]["armies"] = ["Dwarves/Footman"]
    with pytest.raises(IllegalSetup, match=f"'armies' must give {wanted} \\(") as err:
        make(bad)
    assert err.value.rule == armies_rule
    bad = copy.deepcopy(base())
    bad["players"][1]["armies"]["home"] = "Goblins/Thug"
    with pytest.raises(IllegalSetup, match="the home army must be a list of die names"):
        make(bad)
    bad = copy.deepcopy(base())
    bad["players"][0]["dragons"] = "Dragons/Red Drake"
    with pytest.raises(IllegalSetup, match="'dragons' must be a list of dragon names") as err:
        make(bad)
    assert err.value.rule == dragons_rule


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_die_of_every_force_gets_the_next_unit_id(edition):
    make, base, *_ = EDITIONS[edition]
    setup = base()
    game = make(setup)
    dice = [
        d
        for p in setup["players"]
        for d in [
            *p["armies"]["home"],
            *p["armies"]["horde"],
            *p["armies"]["campaign"],
            *p.get("dragons", []),
        ]
    ]
    assert sorted(game.state.units, key=lambda u: int(u[1:])) == [f"u{i}" for i in range(1, len(dice) + 1)]
    assert sorted(u.name for u in game.state.units.values()) == sorted(dice)


def _to_terrain_roll(game):
    """Answer the set-up's decisions (each with its first legal answer; the k-th roll shows each die's k-th face, so ties end) up to the
    first terrain roll."""
    for k in range(100):
        d = game.pending
        if d.topic == "terrain_roll":
            return d
        if d.kind == "roll":
            game.apply({"type": "roll", "faces": [die["faces"][k % len(die["faces"])] for die in d.dice]})
        else:
            game.apply({"type": "choose", "choice": d.choices[0]["value"]})
    raise AssertionError("no terrain roll in the set-up")


@pytest.mark.parametrize(("edition", "seven_becomes"), [("v4", 6), ("r96", 7)])
def test_a_terrain_rolls_again_on_8_and_starts_on_the_editions_face(edition, seven_becomes):
    make, base, *_ = EDITIONS[edition]
    game = make(base())
    d = _to_terrain_roll(game)
    terrain = game.state.terrains[d.data["terrain"]]
    game.apply({"type": "roll", "faces": ["8"]})
    assert game.pending.topic == "terrain_roll" and game.pending.data["terrain"] == terrain.id
    assert game.pending.rule == d.rule == {"v4": "V4.01c L340-343", "r96": "R96 L251-255"}[edition]
    game.apply({"type": "roll", "faces": ["7"]})
    assert terrain.face == seven_becomes
