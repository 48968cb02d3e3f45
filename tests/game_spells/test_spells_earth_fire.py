"""Earth (V4.01c L2251-2296) and Fire (L2297-2333) spells in the game flow, one test per spell."""

from __future__ import annotations

import pytest
from spell_support import (
    blank_save_total,
    cast_at_bobs_unit,
    cast_spells,
    clear_army,
    effect,
    faces_for,
    id_face,
    new_game,
    no_id_until,
    roll_total,
    totals_around_cast,
    units_at,
    until_topic,
    zero_face,
    zero_faces,
)

from companion.rules.core.state import DUA, RESERVE
from companion.rules.game import IllegalSpell


def test_stone_skin_adds_one_save():
    """V4.01c L2253-2256."""
    g = new_game(species=("Dwarves", "Undead"))
    army = "p1@frontier"
    cast_spells(g, [{"spell": "Stone Skin", "target": army}])
    assert blank_save_total(g, army) == 1


def test_path_moves_one_unit_to_another_army():
    """V4.01c L2257-2259: one of your units at a terrain moves to a terrain where you have an army."""
    g = new_game(species=("Dwarves", "Undead"))
    uid = units_at(g, "p1", "home-p2")[0]
    cast_spells(g, [{"spell": "Path", "target": uid, "to": "frontier"}])
    assert g.state.location[uid] == "frontier"


def test_path_cast_twice_combined_moves_two_units():
    """V4.01c L2257-2259 with L2139-2148: Path's "one" is cumulative: two combined castings (8 magic)
    move two of your units to one destination."""
    g = new_game(species=("Dwarves", "Undead"))
    a, b = units_at(g, "p1", "home-p2")[:2]
    cast_spells(g, [{"spell": "Path", "castings": 2, "units": [a, b], "to": "frontier"}])
    assert g.state.location[a] == g.state.location[b] == "frontier"


def test_combined_path_needs_one_unit_per_casting():
    """V4.01c L2139-2148: two combined castings target two units, not one."""
    g = new_game(species=("Dwarves", "Undead"))
    a = units_at(g, "p1", "home-p2")[0]
    with pytest.raises(IllegalSpell, match="2 of your units"):
        cast_spells(g, [{"spell": "Path", "castings": 2, "units": [a], "to": "frontier"}])


def test_path_needs_an_army_at_the_destination():
    """V4.01c L2257-2259."""
    g = new_game(species=("Dwarves", "Undead"))
    clear_army(g, "p1", "frontier")
    uid = units_at(g, "p1", "home-p2")[0]
    with pytest.raises(IllegalSpell, match="'to'"):
        cast_spells(g, [{"spell": "Path", "target": uid, "to": "frontier"}])


def test_berserker_rage_on_an_army_with_feral_units():
    """V4.01c L2260-2268: the target army must hold a Feral unit; its Feral units count saves as
    melee in counter-attacks."""
    g = new_game(species=("Feral", "Undead"))
    with pytest.raises(IllegalSpell, match="Feral"):
        cast_spells(g, [{"spell": "Berserker Rage", "target": "p2@home-p1"}])
    army = "p1@frontier"
    saves = [
        next((f for f in u.spec.faces if f.endswith(" Save")), zero_face(g, u.uid, "melee"))
        for u in g.state.army("p1", "frontier").units
    ]
    before = roll_total(g, army, "melee", saves, counter_attack=True)
    cast_spells(g, [{"spell": "Berserker Rage", "target": army}])
    assert effect(g, "Berserker Rage").target == army
    assert roll_total(g, army, "melee", saves, counter_attack=True) > before
    assert roll_total(g, army, "melee", saves) == before  # only in counter-attacks


def test_higher_ground_subtracts_five_melee():
    """V4.01c L2269-2275."""
    g = new_game(species=("Dwarves", "Undead"))
    army = "p2@home-p1"
    before, after = totals_around_cast(g, army, "melee", "Higher Ground")
    assert after == max(0, before - 5)


def test_scent_of_fear_sends_opposing_units_to_reserve():
    """V4.01c L2276-2279: up to three health-worth of opposing units at a terrain go to their Reserve."""
    g = new_game(species=("Goblins", "Undead"))
    targets = units_at(g, "p2", "home-p1")[:3]
    cast_spells(g, [{"spell": "Scent of Fear", "target": "home-p1", "units": targets}])
    assert all(g.state.location[u] == RESERVE for u in targets)


def test_wall_of_thorns_damages_the_army_that_maneuvers_the_terrain():
    """V4.01c L2280-2289: an army that maneuvers the terrain takes six damage, less the melee
    results of the melee roll it makes instead of a save roll."""
    g = new_game(species=("Treefolk", "Undead"))
    cast_spells(g, [{"spell": "Wall of Thorns", "target": "frontier"}])
    until_topic(g, "march")
    g.apply({"type": "choose", "choice": "p1@frontier"})
    g.apply({"type": "choose", "choice": "maneuver"})
    g.apply({"type": "choose", "choice": "no"})  # Bob lets the maneuver happen
    g.apply({"type": "choose", "choice": "up"})
    d = g.pending
    assert d.kind == "roll" and d.data["roll"] == "melee" and d.player == "p1"
    faces = faces_for(d, "melee", "zero")
    faces[0] = next(f for f in d.dice[0]["faces"] if f.endswith(" ID"))  # one melee result
    g.apply({"type": "roll", "faces": faces})
    no_id_until(g, "action")  # allocation; Treefolk Replanting rolls (no ID: no return to Reserve)
    assert len(units_at(g, "p1", "frontier")) == 8 - 5


def test_wall_of_thorns_not_on_an_eighth_face():
    """V4.01c L2280: a terrain not at its eighth face."""
    g = new_game(species=("Treefolk", "Undead"))
    g.state.terrains["frontier"].face = 8
    with pytest.raises(IllegalSpell, match="eighth"):
        cast_spells(g, [{"spell": "Wall of Thorns", "target": "frontier"}])


def test_transmute_rock_to_mud_subtracts_six_maneuvers():
    """V4.01c L2290-2296."""
    g = new_game(species=("Dwarves", "Undead"))
    army = "p2@home-p1"
    before, after = totals_around_cast(g, army, "maneuver", "Transmute Rock to Mud")
    assert after == max(0, before - 6)


def test_ash_storm_subtracts_one_at_the_terrain():
    """V4.01c L2297-2301: -1 to every army roll at the terrain."""
    g = new_game(species=("Dwarves", "Undead"))
    army = "p2@frontier"
    before, after = totals_around_cast(g, army, "missile", "Ash Storm", "frontier")
    assert after == before - 1


def test_fearful_flames_second_save_or_flee():
    """V4.01c L2302-2310: a unit that saves against the damage makes a second save roll; without a
    save result it flees to the Reserve Area."""
    g = new_game(species=("Lava Elves", "Undead"))
    uid = cast_at_bobs_unit(g, "Fearful Flames")
    g.apply({"type": "roll", "faces": [id_face(g, uid)]})  # saves the 1 damage
    d = g.pending
    assert [x["uid"] for x in d.dice] == [uid]
    g.apply({"type": "roll", "faces": [zero_face(g, uid)]})
    assert g.state.location[uid] == RESERVE


@pytest.mark.parametrize(
    ("caster", "spell"),
    [
        pytest.param("Lava Elves", "Fearful Flames", id="fearful_flames"),  # V4.01c L2302-2304
        pytest.param("Dwarves", "Firebolt", id="firebolt"),  # V4.01c L2311-2313, saved alone (L1116-1117)
    ],
)
def test_one_damage_kills_an_unsaved_small_unit(caster, spell):
    """Fearful Flames (V4.01c L2302-2304) and Firebolt (L2311-2313): one damage to the unit, which saves
    alone (L1116-1117); without a save result a 1-health unit dies."""
    g = new_game(species=(caster, "Undead"))
    uid = cast_at_bobs_unit(g, spell)
    g.apply({"type": "roll", "faces": [zero_face(g, uid)]})
    assert g.state.location[uid] == DUA


def test_firestorm_damages_every_army_at_the_terrain():
    """V4.01c L2314-2316: two damage on each army at the terrain, the caster's own too."""
    g = new_game(species=("Scalders", "Undead"))
    cast_spells(g, [{"spell": "Firestorm", "target": "frontier"}])
    for who in ("p1", "p2"):
        d = g.pending
        assert d.player == who and d.data["roll"] == "save"
        g.apply({"type": "roll", "faces": faces_for(d, "save", "zero")})
        d = g.pending
        if d.kind == "allocate":
            g.apply({"type": "allocate", "units": d.choices[0]["value"]})
    assert len(units_at(g, "p1", "frontier")) == 6
    assert len(units_at(g, "p2", "frontier")) == 6


def test_flashfire_rerolls_one_unit_in_a_non_maneuver_roll():
    """V4.01c L2317-2322: in a non-maneuver army roll the owner may re-roll one unit per casting once,
    the earlier result ignored."""
    g = new_game(species=("Firewalkers", "Undead"))
    cast_spells(g, [{"spell": "Flashfire", "target": "p1@frontier"}])
    assert effect(g, "Flashfire").detail["castings"] == 1
    until_topic(g, "march")
    g.apply({"type": "choose", "choice": "p1@frontier"})
    g.apply({"type": "choose", "choice": "skip"})
    g.apply({"type": "choose", "choice": "missile"})
    g.apply({"type": "choose", "choice": "p2@frontier"})
    d = g.pending
    first = d.dice[0]["uid"]
    g.apply({"type": "roll", "faces": faces_for(d, "missile", "zero")})
    d = g.pending
    assert d.topic == "spell_choice" and "Flashfire" in d.prompt
    g.apply({"type": "choose", "choice": first})
    d = g.pending
    assert [x["uid"] for x in d.dice] == [first]
    g.apply({"type": "roll", "faces": [id_face(g, first)]})
    assert g.state.last_roll["total"] == 1
    assert g.state.last_roll["faces"][0]["faces"] == [id_face(g, first)]


def test_fiery_weapon_adds_two_melee():
    """V4.01c L2323-2326."""
    g = new_game(species=("Dwarves", "Undead"))
    army = "p1@frontier"
    cast_spells(g, [{"spell": "Fiery Weapon", "target": army}])
    assert roll_total(g, army, "melee", zero_faces(g, army, "melee")) == 2


def test_dancing_lights_subtracts_six_melee():
    """V4.01c L2327-2330."""
    g = new_game(species=("Dwarves", "Undead"))
    army = "p2@home-p1"
    before, after = totals_around_cast(g, army, "melee", "Dancing Lights")
    assert after == max(0, before - 6)
