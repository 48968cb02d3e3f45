"""Death spells in the game flow, V4.01c L2194-2250 (one test per spell), with Open Grave and
Soiled Ground on the death-hook pipeline."""

from __future__ import annotations

import pytest
from spell_support import (
    add_die,
    cast_at_bobs_unit,
    cast_spells,
    drive,
    effect,
    id_face,
    max_faces,
    melee_march,
    new_game,
    roll_total,
    totals_around_cast,
    units_at,
    zero_face,
    zero_faces,
)

from companion.rules.core.state import BUA, DUA, RESERVE
from companion.rules.game import IllegalSpell
from companion.rules.game.dua import kill_flow


def test_palsy_subtracts_one_from_non_maneuver_rolls():
    """V4.01c L2196-2199: -1 result on the target's non-maneuver rolls; maneuvers untouched."""
    g = new_game(species=("Undead", "Dwarves"))
    army = "p2@home-p1"
    melee, man = max_faces(g, army, "melee"), max_faces(g, army, "maneuver")
    m0, v0 = roll_total(g, army, "melee", melee), roll_total(g, army, "maneuver", man)
    cast_spells(g, [{"spell": "Palsy", "target": army}])
    assert roll_total(g, army, "melee", melee) == m0 - 1
    assert roll_total(g, army, "maneuver", man) == v0


def test_decay_subtracts_two_melee():
    """V4.01c L2201-2204."""
    g = new_game(species=("Goblins", "Dwarves"))
    army = "p2@home-p1"
    before, after = totals_around_cast(g, army, "melee", "Decay")
    assert after == before - 2


def test_evil_eye_subtracts_two_saves():
    """V4.01c L2205-2208."""
    g = new_game(species=("Undead", "Dwarves"))
    army = "p2@home-p1"
    before, after = totals_around_cast(g, army, "save", "Evil Eye", against="melee")
    assert after == before - 2


def test_magic_drain_subtracts_two_magic_at_the_terrain():
    """V4.01c L2209-2212: every army roll at the terrain, the caster's own too."""
    g = new_game(species=("Frostwings", "Dwarves"))
    army = "p2@frontier"
    before, after = totals_around_cast(g, army, "magic", "Magic Drain", "frontier")
    assert after == before - 2


def test_restless_dead_adds_three_maneuvers():
    """V4.01c L2213-2215."""
    g = new_game(species=("Undead", "Dwarves"))
    army = "p1@frontier"
    cast_spells(g, [{"spell": "Restless Dead", "target": army}])
    assert roll_total(g, army, "maneuver", zero_faces(g, army, "maneuver")) == 3


def test_swamp_fever_kills_on_id_and_buries_on_a_second_id():
    """V4.01c L2216-2220: the targets roll; an ID kills; the killed roll again, an ID buries."""
    g = new_game(species=("Swamp Stalkers", "Dwarves"))
    targets = units_at(g, "p2", "home-p1")[:3]
    cast_spells(g, [{"spell": "Swamp Fever", "target": "p2@home-p1", "units": targets}])
    g.apply(
        {"type": "roll", "faces": [id_face(g, targets[0]), id_face(g, targets[1]), zero_face(g, targets[2])]}
    )
    d = g.pending
    assert [x["uid"] for x in d.dice] == targets[:2]
    g.apply({"type": "roll", "faces": [id_face(g, targets[0]), zero_face(g, targets[1])]})
    assert g.state.location[targets[0]] == BUA
    assert g.state.location[targets[1]] == DUA
    assert g.state.location[targets[2]] == "home-p1"


def test_finger_of_death_kills_with_no_save_roll():
    """V4.01c L2221-2226: one damage, no save possible: a 1-health unit dies at once."""
    g = new_game(species=("Undead", "Dwarves"))
    uid = cast_at_bobs_unit(g, "Finger of Death")
    assert g.state.location[uid] == DUA
    assert g.pending.topic == "march"  # no save roll was asked


def test_finger_of_death_combined_castings_add_damage():
    """V4.01c L2221 with L2139-2148: two combined castings inflict two damage (a 2-health unit dies)."""
    g = new_game(species=("Undead", "Dwarves"))
    two = add_die(g, "p2", "Dwarves/Sergeant", "home-p1")
    cast_spells(g, [{"spell": "Finger of Death", "target": two, "castings": 2}])
    assert g.state.location[two] == DUA


def test_necromantic_wave_lets_magic_count_as_melee():
    """V4.01c L2227-2233: units of the target army may count magic results as melee."""
    g = new_game(species=("Lava Elves", "Dwarves"))
    army = "p1@frontier"
    before, after = totals_around_cast(g, army, "melee", "Necromantic Wave", best_for="magic")
    assert after > before


def test_exhume_buries_unsaved_dead_and_returns_own_dead():
    """V4.01c L2234-2239: targets in an opposing DUA save or are buried; the caster may return up
    to that health-worth from their own DUA to the casting army."""
    g = new_game(species=("Undead", "Dwarves"))
    a = add_die(g, "p2", "Dwarves/Footman", DUA)
    b = add_die(g, "p2", "Dwarves/Footman", DUA)
    mine = add_die(g, "p1", "Undead/Zombie", DUA)
    cast_spells(g, [{"spell": "Exhume", "target": "dua:p2", "units": [a, b]}])
    g.apply({"type": "roll", "faces": [zero_face(g, a), id_face(g, b)]})
    assert g.state.location[a] == BUA and g.state.location[b] == DUA
    d = g.pending
    assert d.topic == "spell_choice" and d.player == "p1"
    g.apply({"type": "choose", "choice": mine})
    assert g.state.location[mine] == "home-p1"


def test_open_grave_sends_units_killed_after_a_save_roll_to_reserve():
    """V4.01c L2240-2246: units of the army killed after a save roll go to the Reserve Area; with no
    save roll possible Open Grave does nothing."""
    g = new_game(species=("Undead", "Dwarves"))
    cast_spells(g, [{"spell": "Open Grave", "target": "p1@frontier"}])
    a, b = units_at(g, "p1", "frontier")[:2]
    drive(g, kill_flow(g, [a], save_roll=True))
    drive(g, kill_flow(g, [b], save_roll=False))
    assert g.state.location[a] == RESERVE
    assert g.state.location[b] == DUA


def test_open_grave_in_a_melee_attack():
    """V4.01c L2240-2246 in the flow: melee damage after the defender's save roll sends its killed
    units to Reserve."""
    from spell_support import faces_for, until_topic

    g = new_game(species=("Undead", "Dwarves"))
    cast_spells(g, [{"spell": "Open Grave", "target": "p1@frontier"}])
    until_topic(g, "march")
    melee_march(g, "frontier")
    # Bob attacks? No: Alice attacks Bob; make Bob counter-attack and kill Alice's units.
    d = g.pending
    g.apply({"type": "roll", "faces": faces_for(d, "melee", "zero")})
    d = g.pending
    assert d.topic == "counter_attack"
    g.apply({"type": "choose", "choice": "counter"})
    d = g.pending
    g.apply({"type": "roll", "faces": faces_for(d, "melee", "max")})
    d = g.pending
    g.apply({"type": "roll", "faces": faces_for(d, "save", "zero")})
    d = g.pending
    if d.kind == "allocate":
        g.apply({"type": "allocate", "units": d.choices[0]["value"]})
    assert len(g.state.area("p1", RESERVE)) > 0
    assert not [u for u in g.state.area("p1", DUA)]


def test_soiled_ground_buries_units_that_fail_their_save():
    """V4.01c L2247-2250: a unit killed at the terrain that goes into the DUA saves or is buried."""
    g = new_game(species=("Undead", "Dwarves"))
    cast_spells(g, [{"spell": "Soiled Ground", "target": "home-p1"}])
    a, b = units_at(g, "p2", "home-p1")[:2]
    drive(g, kill_flow(g, [a, b]), [{"type": "roll", "faces": [zero_face(g, a), id_face(g, b)]}])
    assert g.state.location[a] == BUA and g.state.location[b] == DUA


def test_soiled_ground_elsewhere_does_nothing():
    """V4.01c L2247-2248: only units killed at that terrain."""
    g = new_game(species=("Undead", "Dwarves"))
    cast_spells(g, [{"spell": "Soiled Ground", "target": "home-p1"}])
    a = units_at(g, "p2", "frontier")[0]
    drive(g, kill_flow(g, [a]))
    assert g.state.location[a] == DUA


def test_death_spell_needs_death_magic():
    """V4.01c L2095-2096: a Death spell is paid only with death magic (Dwarves roll earth and fire)."""
    g = new_game(species=("Dwarves", "Undead"))
    with pytest.raises(IllegalSpell):
        cast_spells(g, [{"spell": "Palsy", "target": "p2@home-p1"}])


def test_species_spell_needs_that_species():
    """V4.01c L466-468: Evil Eye is an Undead spell; Goblins' death magic cannot pay it."""
    g = new_game(species=("Goblins", "Dwarves"))
    with pytest.raises(IllegalSpell):
        cast_spells(g, [{"spell": "Evil Eye", "target": "p2@home-p1"}])
    assert effect(g, "Evil Eye") is None
