"""A test per spell that modifies a roll (V4.01c L2085-2446), with cumulative castings
(L2139-2156), and the lasting SAI effects usable as effects in force."""

from __future__ import annotations

import pytest

from companion.rules.catalogue import load_catalogue
from companion.rules.v4.contributions import ALL, Op, Scope
from companion.rules.v4.situation import Situation
from companion.rules.v4.spells import (
    OTHER_SPELLS,
    ROLL_SPELLS,
    UNDOCUMENTED_SPELLS,
    UnknownSpell,
    find_roll_spell,
    spell_contribution,
)

MAN = Situation("maneuver")
MEL = Situation("melee")
MIS = Situation("missile")
MAG = Situation("magic")
SAV = Situation("save")
DRAGON = Situation("save", against="dragon")


def mods(name, situation, castings=1):
    c = spell_contribution(name, situation, castings=castings)
    return set() if c is None else {(m.stage, m.result, m.amount) for m in c.modifiers}


# (spell, situation, castings, expected modifiers, citation)
SPELL_RULES = [
    ("Blizzard", MEL, 1, {(Op.SUBTRACT, "melee", 3)}, "L2163-2166"),
    ("Blizzard", MEL, 2, {(Op.SUBTRACT, "melee", 6)}, "L2163-2166"),
    ("Blizzard", SAV, 1, set(), "L2163-2166"),
    ("Wind Walk", MAN, 1, {(Op.ADD, "maneuver", 4)}, "L2172-2174"),
    ("Wind Walk", MAN, 3, {(Op.ADD, "maneuver", 12)}, "L2143-2148"),
    ("Wind Walk", MEL, 1, set(), "L2172-2174"),
    ("Fields of Ice", MAN, 2, {(Op.SUBTRACT, "maneuver", 8)}, "L2175-2181"),
    ("Palsy", SAV, 1, {(Op.SUBTRACT, "save", 1)}, "L2196-2199"),
    ("Palsy", MEL, 3, {(Op.SUBTRACT, "melee", 3)}, "L2196-2199"),
    ("Palsy", MAN, 1, set(), "L2196-2199"),
    ("Palsy", DRAGON, 4, {(Op.SUBTRACT, ALL, 4)}, "L2196-2199"),
    ("Decay", MEL, 2, {(Op.SUBTRACT, "melee", 4)}, "L2201-2204"),
    ("Evil Eye", SAV, 1, {(Op.SUBTRACT, "save", 2)}, "L2205-2208"),
    ("Magic Drain", MAG, 2, {(Op.SUBTRACT, "magic", 4)}, "L2209-2212"),
    ("Restless Dead", MAN, 2, {(Op.ADD, "maneuver", 6)}, "L2213-2215"),
    ("Stone Skin", SAV, 1, {(Op.ADD, "save", 1)}, "L2253-2256"),
    ("Stone Skin", SAV, 3, {(Op.ADD, "save", 3)}, "L2253-2256"),
    ("Stone Skin", DRAGON, 2, {(Op.ADD, "save", 2)}, "L2253-2256"),
    ("Stone Skin", MEL, 1, set(), "L2253-2256"),
    ("Higher Ground", MEL, 1, {(Op.SUBTRACT, "melee", 5)}, "L2269-2275"),
    ("Transmute Rock to Mud", MAN, 1, {(Op.SUBTRACT, "maneuver", 6)}, "L2290-2296"),
    ("Ash Storm", MAN, 3, {(Op.SUBTRACT, "maneuver", 3)}, "L2297-2301"),
    ("Ash Storm", SAV, 1, {(Op.SUBTRACT, "save", 1)}, "L2297-2301"),
    ("Fiery Weapon", MEL, 1, {(Op.ADD, "melee", 2)}, "L2323-2326"),
    ("Fiery Weapon", MIS, 2, {(Op.ADD, "missile", 4)}, "L2323-2326"),
    ("Fiery Weapon", SAV, 1, set(), "L2323-2326"),
    ("Dancing Lights", MEL, 1, {(Op.SUBTRACT, "melee", 6)}, "L2327-2330"),
    ("Dancing Lights", MIS, 1, set(), "L2327-2330"),
    ("Watery Double", SAV, 2, {(Op.ADD, "save", 2)}, "L2337-2342"),
    ("Deluge", MAN, 1, {(Op.SUBTRACT, "maneuver", 3)}, "L2358-2361"),
    ("Deluge", MIS, 2, {(Op.SUBTRACT, "missile", 6)}, "L2358-2361"),
    ("Deluge", DRAGON, 1, {(Op.SUBTRACT, "missile", 3)}, "L2358-2361"),
    ("Wall of Fog", MIS, 1, {(Op.SUBTRACT, "missile", 6)}, "L2384-2387"),
    ("Wall of Fog", SAV, 1, set(), "L2384-2387"),
    ("Frost Breath", SAV, 1, {(Op.DIVIDE, "save", 2)}, "L1589-1598"),
    ("Galeforce", SAV, 1, {(Op.SUBTRACT, "save", 4)}, "L1599-1608"),
    ("Galeforce", MAN, 1, {(Op.SUBTRACT, "maneuver", 4)}, "L1599-1608"),
    ("Magic Suppression", MAG, 1, {(Op.SUBTRACT, "magic", 4)}, "L1698-1713"),
    ("Wither", MEL, 3, {(Op.SUBTRACT, "melee", 3)}, "L2081-2084"),
    ("Chill Wind", MEL, 2, {(Op.SUBTRACT, "melee", 4)}, "L2849-2860"),
    ("Cloak", SAV, 3, {(Op.ADD, "save", 3)}, "L1332-1345"),
]


@pytest.mark.parametrize(
    ("spell", "situation", "castings", "expected", "lines"),
    SPELL_RULES,
    ids=[f"{r[0]}-{r[1].roll_for}-x{r[2]}" for r in SPELL_RULES],
)
def test_spell_modifies_roll(spell, situation, castings, expected, lines):
    assert mods(spell, situation, castings) == expected, f"V4.01c {lines}"


def test_worked_example_v4_21_three_wind_walks_add_twelve():
    """V4-21 (V4.01c L2143-2148): three combined Wind Walks add 12 maneuver and cost 12 air."""
    ww = find_roll_spell("Wind Walk")
    assert ww.amount(3) == 12 and 3 * ww.cost == 12


def test_worked_example_v4_22_palsy_three_castings_cost_six():
    """V4-22 (V4.01c L2149-2153): Palsy x3 costs 6; -3 on one target or split -1/-1/-1, -2/-1."""
    palsy = find_roll_spell("Palsy")
    assert 3 * palsy.cost == 6
    assert palsy.amount(3) == 3
    assert palsy.amount(2) + palsy.amount(1) == 3 == 3 * palsy.amount(1)


def test_non_cumulative_spell_gains_nothing_from_repeats_l2154_2156():
    one = spell_contribution("Necromantic Wave", MEL, castings=1)
    three = spell_contribution("Necromantic Wave", MEL, castings=3)
    assert one == three


def test_necromantic_wave_magic_counts_as_melee_or_missile_l2227_2233():
    (ca,) = spell_contribution("Necromantic Wave", MEL).counts_as
    assert (ca.counts_as, ca.result) == ("magic", "melee")
    (ca,) = spell_contribution("Necromantic Wave", MIS).counts_as
    assert (ca.counts_as, ca.result) == ("magic", "missile")
    assert spell_contribution("Necromantic Wave", SAV) is None


def test_berserker_rage_feral_saves_as_melee_in_counter_attacks_l2260_2268():
    (ca,) = spell_contribution("Berserker Rage", Situation("melee", counter_attack=True)).counts_as
    assert (ca.counts_as, ca.result, ca.species) == ("save", "melee", "Feral")
    assert spell_contribution("Berserker Rage", MEL) is None


def test_wilding_doubles_one_unit_per_casting_l2167_2171():
    c = spell_contribution("Wilding", SAV, castings=2)
    assert [(m.stage, m.result, m.amount, m.reach) for m in c.modifiers] == [
        (Op.MULTIPLY, "save", 2, Scope.ONE_UNIT)
    ] * 2


def test_flashfire_rerolls_in_non_maneuver_army_rolls_l2317_2322():
    c = spell_contribution("Flashfire", SAV, castings=2)
    assert c.effects[0].kind == "may_reroll_units" and c.effects[0].amount == 2
    assert spell_contribution("Flashfire", MAN) is None


def test_fields_of_ice_counter_maneuver_wins_ties_l2175_2181():
    c = spell_contribution("Fields of Ice", MAN)
    assert c.effects[0].kind == "counter_maneuver_wins_ties"


def test_fiery_weapon_choice_in_dragon_attack_l2323_2326():
    c = spell_contribution(
        "Fiery Weapon", Situation("save", against="dragon", choices={"Fiery Weapon": "missile"})
    )
    assert c.chosen == "missile" and {(m.result, m.amount) for m in c.modifiers} == {("missile", 2)}


def test_army_spells_never_touch_an_individual_roll_l1050_1066():
    """R96-28 / V4.01c L1052: a unit rolling alone gets none of its army's modifiers."""
    assert spell_contribution("Watery Double", Situation("save", against="individual")) is None
    assert spell_contribution("Stone Skin", Situation("save", individual=True)) is None


def test_unknown_spell_refused_and_known_non_roll_spells_accepted():
    with pytest.raises(UnknownSpell, match="Kazoo"):
        spell_contribution("Kazoo", SAV)
    assert spell_contribution("Lightning Strike", SAV) is None
    assert find_roll_spell("stone  skin").name == "Stone Skin"


def test_bad_castings_refused():
    with pytest.raises(ValueError, match="castings"):
        spell_contribution("Stone Skin", SAV, castings=0)


def test_every_v4_spell_card_is_known():
    """The catalogue's spell cards (V4 list L2159-2446) are all either roll spells or known others."""
    names = {s.name for s in load_catalogue().spells}
    known = {s.name for s in ROLL_SPELLS.values() if s.is_spell} | set(OTHER_SPELLS)
    assert len(known) == 47  # the V4 spell list (inventory A8.2)
    assert names - known == set(UNDOCUMENTED_SPELLS)  # the Dracolem alloy cards
    assert all(find_roll_spell_or_none(n) == "known" for n in names)


def find_roll_spell_or_none(name):
    try:
        find_roll_spell(name)
    except UnknownSpell:
        return "unknown"
    return "known"


def test_flash_flood_threshold_cumulative_l2352_2357():
    from companion.rules.v4.spells import flash_flood_resisted

    assert flash_flood_resisted(6) and not flash_flood_resisted(5)
    assert not flash_flood_resisted(11, castings=2) and flash_flood_resisted(12, castings=2)


def test_tidal_wave_damage_and_threshold_l2374_2383():
    from companion.rules.v4.spells import tidal_wave

    assert tidal_wave() == (4, 4)
    assert tidal_wave(2) == (8, 8)


def test_wall_of_thorns_melee_reduces_damage_l2280_2289():
    from companion.rules.v4.spells import wall_of_thorns_damage

    assert wall_of_thorns_damage(4) == 2
    assert wall_of_thorns_damage(9) == 0
    assert wall_of_thorns_damage(4, castings=2) == 8
    with pytest.raises(ValueError):
        wall_of_thorns_damage(1, castings=0)
