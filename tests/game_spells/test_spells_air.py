"""Air spells in the game flow, V4.01c L2157-2193 (one test per spell, plus their limits)."""

from __future__ import annotations

import pytest
from spell_support import (
    cast_at_bobs_unit,
    cast_spells,
    effect,
    faces_for,
    id_face,
    new_game,
    roll_total,
    totals_around_cast,
    units_at,
    until_topic,
    zero_face,
    zero_faces,
)

from companion.rules.core.state import DUA, RESERVE
from companion.rules.game import IllegalSpell


def test_hailstorm_one_damage_to_an_opposing_army():
    """V4.01c L2159-2161: Hailstorm inflicts one damage on an opposing army, which saves as an army."""
    g = new_game(species=("Coral Elves", "Dwarves"))
    before = len(units_at(g, "p2", "home-p1"))
    cast_spells(g, [{"spell": "Hailstorm", "target": "p2@home-p1"}])
    d = g.pending
    assert d.kind == "roll" and d.player == "p2" and d.data["roll"] == "save"
    g.apply({"type": "roll", "faces": faces_for(d, "save", "zero")})
    d = g.pending
    if d.kind == "allocate":
        g.apply({"type": "allocate", "units": d.choices[0]["value"]})
    assert len(units_at(g, "p2", "home-p1")) == before - 1
    assert len(g.state.area("p2", DUA)) == 1


def test_hailstorm_cannot_target_own_army():
    """V4.01c L2159: Hailstorm targets an opposing army."""
    g = new_game(species=("Coral Elves", "Dwarves"))
    with pytest.raises(IllegalSpell, match="opposing"):
        cast_spells(g, [{"spell": "Hailstorm", "target": "p1@frontier"}])


def test_blizzard_subtracts_three_melee_at_the_terrain():
    """V4.01c L2163-2166: -3 melee to all army rolls at the target terrain until the caster's next turn."""
    g = new_game(species=("Coral Elves", "Dwarves"))
    army = "p2@frontier"
    before, after = totals_around_cast(g, army, "melee", "Blizzard", "frontier")
    assert effect(g, "Blizzard").target == "frontier"
    assert after == max(0, before - 3)


def test_wilding_doubles_one_units_melee():
    """V4.01c L2167-2171: the target army may double the melee (and saves) of one unit per casting."""
    g = new_game(species=("Feral", "Dwarves"))
    army = "p1@frontier"
    before, after = totals_around_cast(g, army, "melee", "Wilding")
    assert after > before


def test_wind_walk_adds_four_maneuvers():
    """V4.01c L2172-2174: +4 maneuver results on the target army's rolls."""
    g = new_game(species=("Coral Elves", "Dwarves"))
    army = "p1@frontier"
    zero = zero_faces(g, army, "maneuver")
    cast_spells(g, [{"spell": "Wind Walk", "target": army}])
    assert roll_total(g, army, "maneuver", zero) == 4


def test_fields_of_ice_subtracts_maneuvers_and_gives_ties_to_the_counter_maneuver():
    """V4.01c L2175-2181: -4 maneuver at the terrain; ties in maneuver rolls there go to the
    counter-maneuvering army."""
    g = new_game(species=("Frostwings", "Dwarves"))
    army = "p2@frontier"
    before, after = totals_around_cast(g, army, "maneuver", "Fields of Ice", "frontier")
    assert after == max(0, before - 4)
    # Second march: Alice maneuvers at the Frontier, Bob counters; both roll nothing: a tie.
    d = until_topic(g, "march")
    g.apply({"type": "choose", "choice": "p1@frontier"})
    g.apply({"type": "choose", "choice": "maneuver"})
    g.apply({"type": "choose", "choice": "counter"})
    face = g.state.terrains["frontier"].face
    for _ in range(2):
        d = g.pending
        g.apply({"type": "roll", "faces": faces_for(d, "maneuver", "zero")})
    assert g.state.terrains["frontier"].face == face
    assert any("fails" in line for line in g.log[-3:])


def test_mirage_moves_unsaved_targets_to_reserve():
    """V4.01c L2182-2185: up to five health-worth of units at a terrain save; those without a save
    result go to their Reserve Area."""
    g = new_game(species=("Firewalkers", "Dwarves"))
    targets = units_at(g, "p2", "home-p1")[:5]
    cast_spells(g, [{"spell": "Mirage", "target": "home-p1", "units": targets}])
    d = g.pending
    assert d.player == "p2" and [x["uid"] for x in d.dice] == targets
    g.apply({"type": "roll", "faces": [id_face(g, targets[0])] + [zero_face(g, u) for u in targets[1:]]})
    assert g.state.location[targets[0]] == "home-p1"
    assert all(g.state.location[u] == RESERVE for u in targets[1:])


def test_mirage_must_use_as_much_health_worth_as_possible():
    """V4.01c L1098-1102 with L2182: "up to" five health-worth means five when five are there."""
    g = new_game(species=("Firewalkers", "Dwarves"))
    targets = units_at(g, "p2", "home-p1")[:3]
    with pytest.raises(IllegalSpell, match="as much as possible"):
        cast_spells(g, [{"spell": "Mirage", "target": "home-p1", "units": targets}])


def test_lightning_strike_kills_a_unit_without_a_save():
    """V4.01c L2187-2192: the targeted unit saves alone; no save result kills it."""
    g = new_game(species=("Coral Elves", "Dwarves"))
    uid = cast_at_bobs_unit(g, "Lightning Strike")
    d = g.pending
    assert [x["uid"] for x in d.dice] == [uid]
    g.apply({"type": "roll", "faces": [zero_face(g, uid)]})
    assert g.state.location[uid] == DUA


def test_lightning_strike_saved_by_a_save_result():
    """V4.01c L2188-2189: a save result keeps the unit alive."""
    g = new_game(species=("Coral Elves", "Dwarves"))
    uid = cast_at_bobs_unit(g, "Lightning Strike")
    g.apply({"type": "roll", "faces": [id_face(g, uid)]})
    assert g.state.location[uid] == "home-p1"


def test_lightning_strike_once_per_unit_per_magic_action():
    """V4.01c L2192-2193: no unit is the target of two Lightning Strikes in one magic action."""
    g = new_game(species=("Coral Elves", "Dwarves"))
    uid = units_at(g, "p2", "home-p1")[0]
    with pytest.raises(IllegalSpell, match="more than one Lightning Strike"):
        cast_spells(
            g, [{"spell": "Lightning Strike", "target": uid}, {"spell": "Lightning Strike", "target": uid}]
        )
