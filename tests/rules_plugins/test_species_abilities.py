"""A test per species ability (V4.01c L771-998) that changes a roll; the rest are checked to be
listed for the game flow."""

from __future__ import annotations

import pytest

from companion.rules.v4.contributions import Op
from companion.rules.v4.situation import Situation
from companion.rules.v4.species import (
    SPECIES_ABILITIES,
    bone_magic,
    cursed_bullets,
    dua_cap,
    foul_stench,
    magic_negation,
    resist_fear,
    s_multiplier,
    scorching_touch_damage,
    species_contributions,
    terrain_harmony_elements,
)

COAST = frozenset({"Air", "Water"})
HIGH = frozenset({"Fire", "Earth"})
FLAT = frozenset({"Air", "Earth"})
SWAMP = frozenset({"Water", "Earth"})
WASTE = frozenset({"Air", "Fire"})
FEY = frozenset({"Water", "Fire"})


def conversions(species, situation, **kw):
    return {
        (ca.counts_as, ca.result, ca.source)
        for c in species_contributions(species, situation, **kw)
        for ca in c.counts_as
    }


def test_27_abilities_listed_l771_998():
    assert len(SPECIES_ABILITIES) == 27
    assert all(a.citation.startswith("V4.01c L") for a in SPECIES_ABILITIES.values())


# (ability, species, situation, terrain elements that allow it, elements that do not, source, target, lines)
COUNTS_AS_RULES = [
    ("Coastal Dodge", "Coral Elves", Situation("save"), COAST, HIGH, "maneuver", "save", "L817-819"),
    ("Mountain Mastery", "Dwarves", Situation("maneuver"), HIGH, COAST, "melee", "maneuver", "L828-830"),
    (
        "Dwarven Might",
        "Dwarves",
        Situation("melee", counter_attack=True),
        HIGH,
        SWAMP,
        "save",
        "melee",
        "L832-834",
    ),
    (
        "Stampede",
        "Feral",
        Situation("melee", counter_attack=True),
        FLAT,
        HIGH,
        "maneuver",
        "melee",
        "L863-865",
    ),
    ("Flaming Shields", "Firewalkers", Situation("melee"), WASTE, FLAT, "save", "melee", "L874-877"),
    ("Swamp Mastery", "Goblins", Situation("maneuver"), SWAMP, COAST, "melee", "maneuver", "L903-905"),
    ("Volcanic Adaptation", "Lava Elves", Situation("save"), HIGH, COAST, "maneuver", "save", "L918-920"),
    (
        "Intangibility",
        "Scalders",
        Situation("save", against="missile"),
        FEY,
        HIGH,
        "maneuver",
        "save",
        "L940-942",
    ),
    ("Born of the Swamp", "Swamp Stalkers", Situation("save"), SWAMP, WASTE, "maneuver", "save", "L945-947"),
]


@pytest.mark.parametrize(
    ("ability", "species", "situation", "good", "bad", "src", "dst", "lines"),
    COUNTS_AS_RULES,
    ids=[r[0] for r in COUNTS_AS_RULES],
)
def test_counts_as_ability(ability, species, situation, good, bad, src, dst, lines):
    from dataclasses import replace

    assert conversions(species, replace(situation, terrain_elements=good)) == {(src, dst, ability)}, lines
    assert conversions(species, replace(situation, terrain_elements=bad)) == set(), lines
    # only that species (a Dwarf does not get a Coral Elf ability)
    other = "Undead"
    assert conversions(other, replace(situation, terrain_elements=good)) == set()
    # not in the Reserve Area: no terrain
    assert conversions(species, replace(situation, terrain_elements=good, at_terrain=False)) == set()


def test_counts_as_carries_species_and_adds_at_step_10_l1040_1048():
    (c,) = species_contributions("Coral Elves", Situation("save", terrain_elements=COAST))
    (ca,) = c.counts_as
    assert ca.species == "Coral Elves" and ca.citation == "V4.01c L817-819"


def test_stampede_needs_both_earth_and_air_l863_865():
    s = Situation("melee", counter_attack=True, terrain_elements=frozenset({"Earth"}))
    assert conversions("Feral", s) == set()


def test_dwarven_might_only_in_counter_attacks_l832_834():
    assert conversions("Dwarves", Situation("melee", terrain_elements=HIGH)) == set()


def test_flaming_shields_not_in_counter_attacks_l874_877():
    assert (
        conversions("Firewalkers", Situation("melee", counter_attack=True, terrain_elements=WASTE)) == set()
    )


def test_intangibility_only_against_missile_l940_942():
    assert conversions("Scalders", Situation("save", against="melee", terrain_elements=FEY)) == set()


def test_coastal_dodge_applies_in_dragon_attack_saves_l817_819():
    assert conversions("Coral Elves", Situation("save", against="dragon", terrain_elements=COAST)) == {
        ("maneuver", "save", "Coastal Dodge")
    }


def test_javelin_charge_maneuver_as_missile_when_declared_l784_790():
    s = Situation("missile", terrain_elements=HIGH)
    assert conversions("Amazons", s) == set()
    assert conversions("Amazons", s, active={"Javelin Charge"}) == {("maneuver", "missile", "Javelin Charge")}
    assert conversions("Amazons", Situation("melee"), active={"Javelin Charge"}) == set()


def test_kukri_charge_maneuver_as_melee_when_declared_l791_797():
    s = Situation("melee")
    assert conversions("Amazons", s, active={"Kukri Charge"}) == {("maneuver", "melee", "Kukri Charge")}
    assert conversions("Amazons", Situation("missile"), active={"Kukri Charge"}) == set()


def test_terrain_harmony_l798_802():
    assert terrain_harmony_elements(COAST, at_terrain=True) == {"Air", "Water"}
    assert terrain_harmony_elements(COAST, at_terrain=False) == {"Ivory"}


def test_defensive_volley_missile_counter_attack_at_air_l821_824():
    s = Situation("missile", counter_attack=True, terrain_elements=COAST)
    assert [c.source for c in species_contributions("Coral Elves", s)] == ["Defensive Volley"]
    s = Situation("missile", counter_attack=True, terrain_elements=SWAMP)
    assert species_contributions("Coral Elves", s) == ()


def test_scorching_touch_l933_938():
    (c,) = species_contributions("Scalders", Situation("save", against="melee", terrain_elements=FEY))
    assert c.effects[0].kind == "damage_spell_saves_only"
    assert scorching_touch_damage(3) == 3
    assert (
        species_contributions("Scalders", Situation("save", against="missile", terrain_elements=HIGH)) == ()
    )


def test_rapid_growth_counter_maneuver_reroll_l968_973():
    (c,) = species_contributions(
        "Treefolk", Situation("maneuver", counter_maneuver=True, terrain_elements=SWAMP)
    )
    assert c.effects[0].kind == "may_reroll_once"
    assert species_contributions("Treefolk", Situation("maneuver", terrain_elements=SWAMP)) == ()


def test_s_multiplier_l776_780_worked_example_v4_10():
    """V4-10: a "max 5s" cap is 5 up to 24 points, 10 for 25-48, 15 for 49-72."""
    assert [5 * s_multiplier(p) for p in (24, 25, 48, 49, 72)] == [5, 10, 10, 15, 15]


def test_deadlands_counts_as_s_units_l2638_2643_worked_example_v4_11():
    """V4-11: one Deadlands counts as 1 DUA unit at 24 points, 2 at 25-48."""
    assert dua_cap(5, 0, 24, deadlands=1) == 1
    assert dua_cap(5, 0, 36, deadlands=1) == 2


def test_magic_negation_capped_by_dua_and_5s_l886_893():
    m = magic_negation(7, 3, 24)
    assert (m.stage, m.result, m.amount) == (Op.SUBTRACT, "magic", 3)
    assert magic_negation(9, 8, 24).amount == 5
    assert magic_negation(9, 8, 30).amount == 8


def test_bone_magic_l986_991():
    m = bone_magic(3, 10, 24)
    assert (m.stage, m.result, m.amount) == (Op.ADD, "magic", 3)
    assert bone_magic(6, 10, 24).amount == 4
    assert bone_magic(6, 2, 24).amount == 2


def test_cursed_bullets_l922_929():
    e = cursed_bullets(5, 2, 24)
    assert (e.kind, e.amount) == ("damage_spell_saves_only", 2)
    assert cursed_bullets(5, 9, 24).amount == 3


def test_foul_stench_l907_914():
    assert foul_stench(5, 24).amount == 3
    assert foul_stench(1, 24).amount == 1


def test_non_roll_abilities_flagged_for_the_game_flow():
    flow = {name for name, a in SPECIES_ABILITIES.items() if not a.changes_roll}
    assert flow == {
        "Dragonkin Handlers",
        "Feralization",
        "Air Flight",
        "Winter's Fortitude",
        "Mutate",
        "Replanting",
        "Stepped Damage",
    }


def test_bad_force_size_refused():
    with pytest.raises(ValueError):
        s_multiplier(0)


def test_resist_fear_dragonkin_up_to_eldarim_health_l838_840():
    assert resist_fear(4, [3, 2, 1]) == 2  # 3 + 1
    assert resist_fear(0, [1]) == 0
    assert resist_fear(6, [2, 2, 2]) == 3
