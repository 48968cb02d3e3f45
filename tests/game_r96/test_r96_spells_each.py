"""The 1996 spells the other r96 tests leave without an effect test: Spark of Life, Dancing Lights,
Wall of Ice and summoning a dragon of each other colour (R96 L1021-1081)."""

from __future__ import annotations

import pytest
from r96_helpers import DUA, cast, stage, started, where
from test_r96_magic import BLACK9, BLUE9, FRONT, GOLD9, _caster

from companion.rules.core.errors import IllegalSpell
from companion.rules.r96.game.rolls import Rolled


def test_spark_of_life_raises_one_health_per_casting_to_the_caster():
    """R96 L1021-1023 (cost 3 red): one casting brings a 1-health unit back to the casting army."""
    game, units = _caster([("Dwarves/Thaumaturgist", "3 Magic")], dead={"p1": ["Dwarves/Footman"]})
    footman = units[("p1", DUA)][0]
    assert game.pending.data["pools"] == {"Earth/Fire": 3}
    cast(game, {"spell": "Spark of Life", "units": [footman], "element": "Fire"})
    assert where(game, footman) == FRONT


def test_dancing_lights_halves_missile_and_magic_of_its_army():
    """R96 L1028-1030: the army's missile and magic results are halved, rounded down."""
    game = started()
    stage(
        game, {("p1", FRONT): ["Dwarves/Footman"], ("p2", "home-p2"): ["Goblins/Thug"] * 3}, faces={FRONT: 5}
    )
    game.add_effect("Dancing Lights", "p1", "p2@home-p2", "start", "p1")
    thugs = list(game.state.army("p2", "home-p2").units)
    missile = Rolled(thugs, [["ID"]] * 3, "missile", "p2", "home-p2", {})
    plain = Rolled(thugs, [["ID"]] * 3, "missile", "p2", "home-p2", {})
    game.state.effects.clear()
    full = game._resolve(plain).totals["missile"]
    game.add_effect("Dancing Lights", "p1", "p2@home-p2", "start", "p1")
    assert full >= 2 and game._resolve(missile).totals["missile"] == full // 2


def test_wall_of_ice_adds_three_saves_once_per_army():
    """R96 L1043-1045 (cost 3 green): 3 automatic saves that last; more castings go on other armies."""
    game = started()
    stage(game, {("p1", FRONT): ["Dwarves/Footman"], ("p2", "home-p2"): ["Goblins/Thug"]}, faces={FRONT: 5})
    assert game._bonus_saves("p2", "home-p2") == 0
    game.add_effect("Wall of Ice", "p2", "p2@home-p2", "start", "p2")
    assert game._bonus_saves("p2", "home-p2") == 3


@pytest.mark.parametrize(
    "spell,caster,players,owner",
    [
        ("Summon Black Dragon", BLACK9, 2, "p2"),  # Black Wyrm of p2
        ("Summon Blue Dragon", BLUE9, 3, "p3"),  # Blue Drake of p3
        ("Summon Green Dragon", BLUE9, 4, "p4"),  # Green Wyrm of p4
    ],
)
def test_summon_each_colour_brings_that_colours_dragon_from_a_dead_unit_area(spell, caster, players, owner):
    """R96 L1010-1011, L1057-1058, L1080-1081 (cost 7): a dragon of the spell's colour, from any dead
    unit area, to a terrain; a dragon of another colour is refused."""
    game, _ = _caster(caster, players=players)
    dragon = next(u.uid for u in game.state.area(owner, DUA) if u.spec.kind == "dragon")
    red = next(u.uid for u in game.state.area("p1", DUA) if u.spec.kind == "dragon")
    pools = game.pending.data["pools"]
    with pytest.raises(IllegalSpell):
        game._validate_casts(
            "p1", FRONT, pools, {"spells": [{"spell": spell, "dragon": red, "target": FRONT}]}, 0
        )
    cast(game, {"spell": spell, "dragon": dragon, "target": FRONT})
    assert where(game, dragon) == FRONT


def test_summon_gold_dragon_refuses_a_dragon_of_another_colour():
    """R96 L988-989: Summon Gold Dragon moves only a gold dragon (none in this battle: the red is refused)."""
    game, _ = _caster(GOLD9)
    red = next(u.uid for u in game.state.area("p1", DUA) if u.spec.kind == "dragon")
    with pytest.raises(IllegalSpell):
        game._validate_casts(
            "p1",
            FRONT,
            game.pending.data["pools"],
            {"spells": [{"spell": "Summon Gold Dragon", "dragon": red, "target": FRONT}]},
            0,
        )
