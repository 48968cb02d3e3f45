"""SAIs whose effects follow any roll (moves, DUA returns, promotions, lasting effects, Illusion, Sleep,
Spell Disruption, Sneak Attack, Wave while marching, Rise from the Ashes), one test per SAI and roll
type; each test names its lines of the V4.01c SAI table."""

from __future__ import annotations

import pytest
from sai_arena import arena, attack, drive, roll, where, wild_growth_roll

from companion.rules.game import sai_status

D = ["Goblins/Thug", "Goblins/Mugger", "Goblins/Cutthroat"]
THUG, MUGGER, CUT = range(3)


@pytest.mark.parametrize(
    ("units", "roll_type", "faces", "dest", "targets", "expect"),
    [
        pytest.param(
            ["Coral Elves/Gryphon", "Dwarves/Footman", "Dwarves/Footman"],
            "melee",
            {0: ["4 Ferry"]},
            "home-p1",
            [1, 2],
            ["home-p1"] * 3,
            id="ferry_moves_the_unit_and_four_health_worth_l1510_1513",
        ),
        pytest.param(
            ["Firewalkers/Genie", "Dwarves/Footman", "Dwarves/Footman"],
            "save",
            {0: ["4 Firewalking"]},
            "home-p2",
            [1],
            ["home-p2", "home-p2", "frontier"],
            id="firewalking_moves_with_three_health_worth_l1532_1538",
        ),
        pytest.param(
            ["Treefolk/Unicorn", "Dwarves/Footman"],
            "missile",
            {0: ["4 Teleport"]},
            "home-p1",
            [1],
            ["home-p1", "home-p1"],
            id="teleport_moves_with_three_health_worth_l1994_1997",
        ),
        pytest.param(
            ["Dracolem/Bronze Armored Dracolem", "Dracolem/Bronze Draco-Rogue", "Dwarves/Footman"],
            "melee",
            {0: ["4 Gate"], 1: ["3 Maneuver"]},
            "reserve",
            [1],
            ["frontier", "reserve", "frontier"],
            id="gate_moves_other_dracolem_of_its_alloy_l1609_1617",
        ),
    ],
)
def test_non_maneuver_sai_moves_the_units_the_roller_picks(units, roll_type, faces, dest, targets, expect):
    """Ferry, Firewalking, Teleport and Gate in a non-maneuver roll move the units the roller picks
    (``faces`` and ``targets`` index Alice's dice; lines in each case's id)."""
    game, a, b = arena(units, D)
    roll(
        game,
        "p1",
        roll_type,
        faces={a[i]: f for i, f in faces.items()},
        answers=[("sai_move", dest), ("sai_target", [a[i] for i in targets])],
    )
    assert where(game, a) == expect


def test_ferry_does_nothing_in_a_maneuver_roll_l1510_1513():
    game, a, b = arena(["Coral Elves/Gryphon", "Dwarves/Footman"], D)
    d = roll(game, "p1", "maneuver", faces={a[0]: ["4 Ferry"]})
    assert "sai_move" not in d.topics() and where(game, a) == ["frontier"] * 2


@pytest.mark.parametrize(
    ("unit", "face"),
    [
        pytest.param("Firewalkers/Genie", "4 Firewalking", id="firewalking_l1527_1531"),
        pytest.param("Treefolk/Unicorn", "4 Teleport", id="teleport_l1989_1993"),
    ],
)
def test_maneuver_roll_generates_x_maneuver(unit, face):
    game, a, b = arena([unit], D)
    assert roll(game, "p1", "maneuver", faces={a[0]: [face]}).result.total == 4


def test_vanish_save_counts_and_the_unit_may_leave_l2019_2023():
    game, a, b = arena(["Undead/Ghost", "Undead/Zombie"], D)
    d = roll(
        game, "p1", "save", faces={a[0]: ["3 Vanish"]}, answers=[("sai_move", "reserve")], against="melee"
    )
    assert d.result.total == 3 and where(game, a) == ["reserve", "frontier"]


def test_regenerate_non_maneuver_returns_units_from_the_dua_l1746_1750():
    game, a, b = arena(["Goblins/Troll"], D, p1_dua=["Goblins/Thug", "Goblins/Cutthroat"])
    dead = [u.uid for u in game.state.area("p1", "dua")]
    roll(game, "p1", "melee", faces={a[0]: ["4 Regenerate"]}, answers=[("Regenerate", dead)])
    assert where(game, dead) == ["frontier", "frontier"]


@pytest.mark.parametrize(
    ("option", "total", "dead_at"),
    [("Save", 4, "dua"), ("return units", 0, "frontier")],
    ids=["saves", "return_units"],
)
def test_regenerate_in_a_save_roll_gives_saves_or_returns_units_l1746_1750(option, total, dead_at):
    """X saves, or up to X health-worth returned from the DUA instead, as the roller chooses."""
    game, a, b = arena(["Goblins/Troll"], D, p1_dua=["Goblins/Thug"])
    dead = [u.uid for u in game.state.area("p1", "dua")]
    d = roll(
        game,
        "p1",
        "save",
        faces={a[0]: ["4 Regenerate"]},
        against="melee",
        answers=[("saves or return units", option), ("Regenerate: return", dead)],
    )
    assert d.result.total == total and where(game, dead) == [dead_at]


def test_wild_growth_non_maneuver_promotes_all_at_once_l2072_2080():
    game, a, b = arena(["Treefolk/Noble Willow", "Treefolk/Oakling"], D, p1_dua=["Treefolk/Oak"])
    oak = game.state.area("p1", "dua")[0].uid
    roll(game, "p1", "melee", faces={a[0]: ["4 Wild Growth"]}, answers=[("Wild Growth", "p0")])
    assert where(game, [a[1], oak]) == ["dua", "frontier"]


def test_wild_growth_save_roll_gives_saves_l2072_2080():
    game, a, b = arena(["Treefolk/Noble Willow"], D)
    assert roll(game, "p1", "save", faces={a[0]: ["4 Wild Growth"]}, against="melee").result.total == 4


def _p2_melee(game, b, faces):
    return roll(game, "p2", "melee", faces={u: [f] for u, f in zip(b, faces, strict=False)}).result.total


@pytest.mark.parametrize("kind", ["melee", "missile"])
def test_frost_breath_halves_an_opposing_army_at_this_terrain_l1589_1598(kind):
    game, a, b = arena(["Frostwings/Cryohydra"], D)
    roll(game, "p1", kind, faces={a[0]: ["4 Frost Breath"]})
    assert [(e.name, e.target) for e in game.state.effects] == [("Frost Breath", "p2@frontier")]
    assert _p2_melee(game, b, ["2 Melee", "2 Melee", "3 Melee"]) == 3  # 7 halved


@pytest.mark.parametrize("kind", ["melee", "missile", "magic"])
def test_galeforce_opposing_army_minus_four_saves_and_maneuver_l1599_1608(kind):
    game, a, b = arena(["Firewalkers/Genie"], D)
    roll(game, "p1", kind, faces={a[0]: ["4 Galeforce"]}, answers=[("sai_target", "p2@frontier")])
    assert any(e.name == "Galeforce" and e.target == "p2@frontier" for e in game.state.effects)
    d = roll(
        game,
        "p2",
        "save",
        faces={b[CUT]: ["2 Save"], b[THUG]: ["1 Save"], b[MUGGER]: ["1 Save"]},
        against="melee",
    )
    assert d.result.total == 0


@pytest.mark.parametrize("kind", ["melee", "missile"])
def test_magic_suppression_opposing_army_minus_four_magic_l1698_1710(kind):
    game, a, b = arena(["Dracolem/Bronze Draco-Baal"], ["Dwarves/Wizard", "Dwarves/Wizard"])
    roll(game, "p1", kind, faces={a[0]: ["4 Magic Suppression"]}, answers=[("sai_target", "p2@frontier")])
    assert roll(game, "p2", "magic", faces={b[0]: ["4 Magic"], b[1]: ["3 Magic"]}).result.total == 3


def test_magic_suppression_magic_generates_four_magic_l1711_1713():
    game, a, b = arena(["Dracolem/Bronze Draco-Baal"], D)
    assert roll(game, "p1", "magic", faces={a[0]: ["4 Magic Suppression"]}).result.total == 4


def test_wither_melee_opposing_army_subtracts_x_from_all_rolls_l2081_2084():
    game, a, b = arena(["Undead/Mummy"], D)
    roll(game, "p1", "melee", faces={a[0]: ["3 Wither"]})
    assert _p2_melee(game, b, ["2 Melee", "2 Melee", "3 Melee"]) == 4


def test_cloak_save_adds_x_saves_until_your_next_turn_l1335_1337():
    game, a, b = arena(["Lava Elves/Lurker in the Deep", "Lava Elves/Bladesman"], D)
    assert roll(game, "p1", "save", faces={a[0]: ["4 Cloak"]}, against="melee").result.total == 4
    assert [(e.name, e.target) for e in game.state.effects] == [("Cloak", "p1@frontier")]
    assert roll(game, "p1", "save", against="missile").result.total == 4  # a later roll keeps the saves


def test_cloak_magic_generates_x_magic_l1338_1339():
    game, a, b = arena(["Lava Elves/Lurker in the Deep"], D)
    assert roll(game, "p1", "magic", faces={a[0]: ["4 Cloak"]}).result.total == 4


def test_cloak_individual_roll_generates_x_results_l1340_1341():
    from companion.rules.core.state import Army

    game, a, b = arena(["Lava Elves/Lurker in the Deep"], D)
    unit = game.state.units[a[0]]
    d = drive(
        game,
        game.roll(Army("p1", "frontier", (unit,)), "save", "alone", "t", individual=True),
        faces={a[0]: ["4 Cloak"]},
    )
    assert d.result.total == 4


@pytest.mark.parametrize("kind", ["magic", "melee", "missile"])
def test_illusion_hides_an_army_from_opposing_missiles_and_spells_l1667_1675(kind):
    game, a, b = arena(["Lava Elves/Beholder"], D)
    roll(game, "p1", kind, faces={a[0]: ["4 Illusion"]}, answers=[("sai_target", "p1@frontier")])
    assert sai_status.hidden_by_illusion(game, "p2", "p1@frontier")
    assert "p1@frontier" not in [t.id for t in game._missile_targets("p2", "home-p2")]


def test_sleep_melee_one_opposing_unit_asleep_l1853_1858():
    game, a, b = arena(["Goblins/Cannibal"], D)
    roll(game, "p1", "melee", faces={a[0]: ["4 Sleep"]}, answers=[("sai_target", b[CUT])])
    assert sai_status.statuses(game, b[CUT]) == ["asleep"]
    d = roll(game, "p2", "save", against="melee")
    assert b[CUT] not in [x["uid"] for x in d.decisions[0].dice]


@pytest.mark.parametrize("kind", ["melee", "missile"])
def test_spell_disruption_expires_four_points_of_spells_l1913_1923(kind):
    game, a, b = arena(["Dracolem/Bronze Draco-Baal"], D)
    skin = game.add_effect("Stone Skin", "p2", "p2@frontier")
    roll(game, "p1", kind, faces={a[0]: ["4 Spell Disruption"]})
    assert skin not in game.state.effects


def test_spell_disruption_magic_generates_four_magic_l1924_1926():
    game, a, b = arena(["Dracolem/Bronze Draco-Baal"], D)
    assert roll(game, "p1", "magic", faces={a[0]: ["4 Spell Disruption"]}).result.total == 4


@pytest.mark.parametrize("kind", ["missile", "magic"])
def test_sneak_attack_x_damage_without_save_at_this_terrain_l1888_1899(kind):
    game, a, b = arena(["Eldarim/Death Dragon Hunter"], D)
    roll(game, "p1", kind, faces={a[0]: ["4 Sneak Attack"]})
    assert where(game, b) == ["dua"] * 3


def test_sneak_attack_melee_generates_x_melee_l1900_1902():
    game, a, b = arena(["Eldarim/Death Dragon Hunter"], D)
    assert roll(game, "p1", "melee", faces={a[0]: ["4 Sneak Attack"]}).result.total == 4
    assert where(game, b) == ["frontier"] * 3


def test_wave_marching_maneuver_counter_maneuvers_lose_x_l2045_2047():
    game, a, b = arena(["Coral Elves/Leviathan"], D)
    drive(
        game,
        game._maneuver_step("p1", "frontier"),
        faces={a[0]: ["4 Wave"], b[CUT]: ["3 Maneuver"], b[MUGGER]: ["1 Maneuver"]},
        answers=[("maneuver", "maneuver"), ("counter_maneuver", "counter"), ("direction", "up")],
    )
    assert game.state.terrains["frontier"].face == 4  # 0 vs 4 - 4 = 0: the marcher wins the tie


def test_wave_does_nothing_in_a_counter_maneuver_l2047_2048():
    game, a, b = arena(D, ["Coral Elves/Leviathan"])
    d = roll(game, "p2", "maneuver", faces={b[0]: ["4 Wave"]}, counter_maneuver=True)
    assert d.result.total == 0 and "Wave" not in " ".join(game.log[-2:])


def test_rise_from_the_ashes_save_generates_x_saves_l1767_1771():
    game, a, b = arena(["Firewalkers/Phoenix"], D)
    assert (
        roll(game, "p1", "save", faces={a[0]: ["4 Rise from the Ashes"]}, against="melee").result.total == 4
    )


def test_rise_from_the_ashes_killed_unit_rolls_and_goes_to_reserves_l1772_1776():
    game, a, b = arena(["Dwarves/Warlord"], ["Firewalkers/Phoenix"])
    attack(game, faces={a[0]: ["4 Smite"], b[0]: ["4 Rise from the Ashes"]})
    assert where(game, b) == ["reserve"]


def test_rise_from_the_ashes_failed_roll_goes_to_the_dua_l1772_1776():
    game, a, b = arena(["Dwarves/Warlord"], ["Firewalkers/Phoenix"])
    attack(game, faces={a[0]: ["4 Smite"], b[0]: ["4 Save"]})
    assert where(game, b) == ["dua"]


def test_rise_from_the_ashes_killed_and_buried_rolls_first_l1777_1781():
    game, a, b = arena(["Coral Elves/Leviathan"], ["Firewalkers/Phoenix"])
    attack(game, faces={a[0]: ["4 Swallow"], b[0]: ["4 Save", "4 Rise from the Ashes"]})
    assert where(game, b) == ["reserve"]


def test_fabricate_magic_summons_equipment_from_the_pool_l1506_1509():
    game, a, b = arena(
        ["Dracolem/Bronze Beast Dracolem", "Dwarves/Footman"], D, p1_pool=["Items/Air Vorpal Sword"]
    )
    sword = game.state.area("p1", "pool")[-1].uid
    roll(game, "p1", "magic", faces={a[0]: ["1 Fabricate"]}, answers=[("Fabricate", "1")])
    assert where(game, [sword]) == ["pool"]  # a large equipment is worth 2: more than X = 1
    game, a, b = arena(
        ["Dracolem/Bronze Draco-Gunner", "Dwarves/Footman"], D, p1_pool=["Items/Air Vorpal Sword"]
    )
    sword = game.state.area("p1", "pool")[-1].uid
    roll(game, "p1", "magic", faces={a[0]: ["3 Fabricate"]}, answers=[("Fabricate", "1")])
    assert where(game, [sword]) == ["frontier"]


def test_sneak_attack_buries_dragonkin_it_kills_l1891_1892():
    game, a, b = arena(["Eldarim/Death Dragon Hunter"], ["Dragonkin/Dragontroop (Air)"])
    roll(game, "p1", "missile", faces={a[0]: ["4 Sneak Attack"]})
    assert where(game, b) == ["bua"]


def test_wild_growth_in_a_save_roll_may_promote_instead_l2072_2080():
    game, a, (oak,), d = wild_growth_roll(["Treefolk/Oak"], "Save:0,promote:4", p2=tuple(D))
    assert d.result.total == 0 and where(game, [a[1], oak]) == ["dua", "frontier"]


def test_rise_from_the_ashes_when_buried_by_a_temple_l1772_1776():
    game, a, b = arena(D, D, p2_dua=["Firewalkers/Phoenix"])
    phoenix = game.state.area("p2", "dua")[-1].uid
    for uid in [u.uid for u in game.state.area("p2", "dua")]:
        if uid != phoenix:
            game.state.location[uid] = "bua"
    terrain = game.state.terrains["frontier"]
    drive(
        game,
        game._temple("p1", terrain),
        faces={phoenix: ["4 Rise from the Ashes"]},
        answers=[("temple", "p2")],
    )
    assert where(game, [phoenix]) == ["reserve"]
