"""SAIs of melee and missile attacks in play, one test per SAI and roll type (V4.01c SAI table,
L1178-2084; each test names its lines).  Bob's defending army is a Thug (1), a Mugger (1) and a
Cutthroat (2) of the Goblins at Coastland Tower (air and water: no Goblin ability acts there)."""

from __future__ import annotations

import pytest
from sai_arena import arena, attack, drive, id_face, where

from companion.rules.core.errors import IllegalAction
from companion.rules.core.state import Army
from companion.rules.game import sai_attack, sai_status

D = ["Goblins/Thug", "Goblins/Mugger", "Goblins/Cutthroat"]
THUG, MUGGER, CUT = range(3)


def game_with(attackers, defenders=D, **kw):
    return arena(attackers, defenders, **kw)


A0, A1 = "a0", "a1"  # Alice's attacking dice in the table below; Bob's are THUG, MUGGER, CUT (or 0)


def _uids(key, a, b):
    """A0/A1 name Alice's dice, a number Bob's, a list several of Bob's."""
    if isinstance(key, list):
        return [_uids(k, a, b) for k in key]
    return a[int(key[1:])] if isinstance(key, str) else b[key]


def _case(name, attackers, faces, expect, answers=(), kind="melee", defenders=D):
    return pytest.param(attackers, defenders, kind, faces, list(answers), expect, id=name)


WHERE_DEFENDERS_END = [
    # (SAI and its lines, Alice's attackers, faces, where Bob's dice end[, answers, attack, defenders])
    _case(
        "breath_melee_kills_x_health_worth_l1273_1279",
        ["Dragonkin/Dragonsteed (Death)"],
        {A0: ["3 Breath"]},
        ["dua", "frontier", "dua"],
        [("sai_target", [CUT, THUG])],
    ),
    # 2 melee - 2 saves: no damage; the IDs did not count
    _case(
        "choke_melee_delayed_kills_units_that_rolled_id_l1326_1331",
        ["Treefolk/Strangle Vine", "Dwarves/Footman"],
        {A0: ["4 Choke"], A1: ["2 Melee"], THUG: [id_face(D[0])], MUGGER: [id_face(D[1])], CUT: ["2 Save"]},
        ["dua", "dua", "frontier"],
    ),
    _case(
        "crush_missile_maneuver_or_die_then_save_or_buried_l1408_1419",
        ["Dwarves/Footman", "Items/Air Trebuchet"],
        {A0: ["1 Save"], A1: ["4 Crush"], CUT: ["3 Maneuver"], THUG: ["1 Melee", "1 Save"]},
        ["dua", "bua", "frontier"],
        kind="missile",
    ),
    _case("entangle_melee_kills_up_to_x_l1499_1501", ["Coral Elves/Tako"], {A0: ["4 Entangle"]}, ["dua"] * 3),
    _case(
        "firebreath_melee_damage_without_save_then_save_or_buried_l1514_1518",
        ["Amazons/Nightmare"],
        {A0: ["4 Fire Breath"], THUG: ["1 Save"]},
        ["dua", "bua", "bua"],
    ),
    *(
        _case(
            f"firecloud_maneuver_or_die_l1519_1526-{kind}",
            ["Firewalkers/Genie"],
            {A0: ["4 Firecloud"], MUGGER: ["1 Maneuver"]},
            ["dua", "frontier", "dua"],
            kind=kind,
        )
        for kind in ("melee", "missile")
    ),
    _case(
        "flame_melee_kills_and_buries_two_health_worth_l1539_1546",
        ["Lava Elves/Beholder"],
        {A0: ["2 Flame"]},
        ["frontier", "frontier", "bua"],
        [("sai_target", [CUT])],
    ),
    _case(
        "flaming_arrow_missile_save_or_die_then_save_or_buried_l1547_1561",
        ["Scalders/Blazer"],
        {A0: ["4 Flaming Arrow"], THUG: ["1 Save"], MUGGER: [id_face(D[1]), "1 Save"]},
        ["frontier", "frontier", "bua"],
        kind="missile",
    ),
    _case(
        "flaming_arrow_dead_that_save_stay_in_the_dua_l1547_1561",
        ["Scalders/Blazer"],
        {A0: ["4 Flaming Arrow"], CUT: ["2 Melee", "2 Save"]},
        ["bua", "bua", "dua"],
        kind="missile",
    ),
    _case(
        "gore_melee_two_damage_to_one_unit_buried_if_killed_l1618_1626",
        ["Feral/Rhino-folk"],
        {A0: ["4 Gore"]},
        ["frontier", "frontier", "bua"],
        [("sai_target", CUT)],
    ),
    # its 2 saves do not count; 1 missile - 1 save
    _case(
        "impale_missile_delayed_kills_one_unit_that_rolled_id_l1676_1687",
        ["Dracolem/Bronze Draco-Gunner", "Dwarves/Crossbowman"],
        {A0: ["4 Impale"], A1: ["1 Missile"], CUT: [id_face(D[2])], THUG: ["1 Save"]},
        ["frontier", "frontier", "dua"],
        kind="missile",
    ),
    _case(
        "kick_melee_one_unit_takes_x_and_may_save_l1688_1697",
        ["Amazons/Centaur"],
        {A0: ["4 Kick"], CUT: ["2 Save"]},
        ["frontier", "frontier", "dua"],
        [("sai_target", CUT)],
    ),
    _case(
        "plague_melee_chain_of_save_or_die_l1729_1735",
        ["Undead/Minor Death"],
        {A0: ["4 Plague"], MUGGER: ["1 Save"]},
        ["dua", "frontier", "frontier"],
        [("sai_target", THUG), ("Plague: target another", MUGGER)],
    ),
    _case(
        "poison_melee_save_or_die_then_save_or_buried_l1736_1745",
        ["Swamp Stalkers/Invader"],
        {A0: ["4 Poison"], THUG: ["1 Save"], MUGGER: ["1 Melee", "1 Save"]},
        ["frontier", "dua", "bua"],
    ),
    _case(
        "roar_melee_targets_flee_to_reserves_before_saves_l1782_1790",
        ["Dwarves/Behemoth"],
        {A0: ["4 Roar"]},
        ["reserve"] * 3,
    ),
    _case(
        "scare_melee_save_or_flee_ids_killed_l1791_1797",
        ["Undead/Death Knight"],
        {A0: ["3 Scare"], CUT: [id_face(D[2])]},
        ["reserve", "frontier", "dua"],
        [("sai_target", [CUT, THUG])],
    ),
    _case(
        "screech_melee_defender_subtracts_x_saves_l1798_1804",
        ["Goblins/Harpies", "Dwarves/Footman"],
        {A0: ["4 Screech"], A1: ["2 Melee"], 0: ["2 Save"]},
        ["dua"],
        defenders=["Goblins/Cutthroat"],
    ),
    _case(
        "seize_missile_id_to_reserves_others_killed_l1805_1810",
        ["Dwarves/Roc"],
        {A0: ["4 Seize"], THUG: [id_face(D[0])]},
        ["reserve", "dua", "dua"],
        kind="missile",
    ),
    _case(
        "stomp_melee_maneuver_or_die_then_save_or_buried_l1927_1937",
        ["Dwarves/Behemoth"],
        {A0: ["4 Stomp"], CUT: ["3 Maneuver"], THUG: ["1 Melee", "1 Save"]},
        ["dua", "bua", "frontier"],
    ),
    *(
        _case(
            f"stone_x_damage_no_save_l1938_1946-{kind}",
            ["Lava Elves/Beholder"],
            {A0: ["4 Stone"]},
            ["dua"] * 3,
            kind=kind,
        )
        for kind in ("melee", "missile")
    ),
    _case(
        "swallow_melee_one_unit_killed_and_buried_unless_id_l1978_1981",
        ["Coral Elves/Leviathan"],
        {A0: ["4 Swallow"]},
        ["frontier", "bua", "frontier"],
        [("sai_target", MUGGER)],
    ),
    _case(
        "wave_melee_defender_subtracts_x_saves_l2039_2044",
        ["Coral Elves/Leviathan", "Dwarves/Footman"],
        {A0: ["4 Wave"], A1: ["2 Melee"], 0: ["2 Save"]},
        ["dua"],
        defenders=["Goblins/Cutthroat"],
    ),
]


@pytest.mark.parametrize(
    ("attackers", "defenders", "kind", "faces", "answers", "expect"), WHERE_DEFENDERS_END
)
def test_sai_in_an_attack_leaves_the_defenders_where_its_rule_puts_them(
    attackers, defenders, kind, faces, answers, expect
):
    """One SAI per case (its V4.01c lines in the case's id): Alice attacks with the faces given, Bob's
    dice end where the SAI's rule puts them (killed to the DUA, buried to the BUA, fled to Reserves)."""
    game, a, b = game_with(attackers, defenders)
    attack(
        game,
        kind,
        faces={_uids(k, a, b): v for k, v in faces.items()},
        answers=[(topic, _uids(target, a, b)) for topic, target in answers],
    )
    assert where(game, b) == expect


def test_bullseye_missile_save_or_die_then_roll_again_l1280_1295():
    game, a, b = game_with(["Dwarves/Crack Shot"])
    d = attack(game, "missile", faces={a[0]: ["4 Bullseye", "4 Melee"], b[THUG]: ["1 Save"]})
    assert "reroll" in d.topics()
    assert where(game, b) == ["frontier", "dua", "dua"]


def test_charge_melee_combination_roll_hits_back_only_spell_saves_l1309_1318():
    game, a, b = game_with(["Dwarves/Behemoth", "Dwarves/Behemoth"])
    attack(
        game,
        faces={
            a[0]: ["4 Charge"],
            a[1]: ["4 Maneuver"],
            b[THUG]: ["2 Melee"],
            b[MUGGER]: ["2 Melee"],
            b[CUT]: ["3 Melee"],
        },
    )
    # 4 maneuver count as melee: 4 damage kills Bob's army; his 7 melee kill one Behemoth (no save)
    assert where(game, b) == ["dua"] * 3
    assert sorted(where(game, a)) == ["dua", "frontier"]
    assert not sai_attack.may_counter_attack(game)


def test_charge_does_nothing_in_a_counter_attack_l1317_1318():
    game, a, b = game_with(["Dwarves/Behemoth", "Dwarves/Behemoth"])
    attack(game, faces={a[0]: ["4 Charge"], a[1]: ["4 Maneuver"]}, counter=True)
    assert where(game, b) == ["frontier"] * 3 and where(game, a) == ["frontier"] * 2


def test_charm_melee_targets_roll_for_the_attacker_and_do_not_save_l1319_1325():
    game, a, b = game_with(["Lava Elves/Beholder"])
    attack(game, faces={a[0]: ["4 Charm"], b[THUG]: ["2 Melee"], b[MUGGER]: ["2 Melee"], b[CUT]: ["3 Melee"]})
    assert any("Charm: 7 melee" in line for line in game.log)
    assert where(game, b) == ["dua"] * 3


def test_coil_melee_one_unit_takes_x_and_fights_back_l1346_1356():
    game, a, b = game_with(["Swamp Stalkers/Wave Rider"])
    attack(game, faces={a[0]: ["4 Coil"], b[CUT]: ["2 Melee"]}, answers=[("sai_target", b[CUT])])
    assert where(game, b) == ["frontier", "frontier", "dua"]
    assert where(game, a) == ["frontier"]  # 2 melee back on the 3-health Wave Rider


def test_coil_hit_back_kills_the_coiling_unit_with_no_save_l1352_1354():
    game, a, b = game_with(["Swamp Stalkers/Wave Rider"], ["Goblins/Cutthroat", "Goblins/Cutthroat"])
    attack(game, faces={a[0]: ["4 Coil"], b[0]: ["3 Melee"]})
    assert where(game, a) == ["dua"]


def test_v4_52_coil_target_counts_counter_as_melee_or_saves_not_both_l1093_1096():
    """V4-52: a unit targeted by Coil makes a combination melee + save roll; its Counter counts for one
    result type only (here X=4: 4 saves or 4 melee, never both)."""
    from companion.rules.game.rolling import ArmyRoll, resolve_army_roll

    game, a, b = game_with(["Swamp Stalkers/Wave Rider"], ["Dwarves/Skirmisher"])
    unit = game.state.units[b[0]]
    out = resolve_army_roll(
        ArmyRoll("save", ((unit, ("4 Counter",)),), individual=True, counted=("save", "melee"))
    )
    assert (out.totals.get("save", 0), out.totals.get("melee", 0)) in ((4, 0), (0, 4))
    attack(game, faces={a[0]: ["4 Coil"], b[0]: ["4 Counter"]})
    assert where(game, b) == ["frontier"]  # counted as saves, the better choice: 4 damage - 4 saves


@pytest.mark.parametrize("kind", ["melee", "missile"])
def test_confuse_rerolls_targets_of_the_save_roll_l1357_1364(kind):
    shooter = "Dwarves/Footman" if kind == "melee" else "Dwarves/Crossbowman"
    game, a, b = game_with(["Dwarves/Umber Hulk", shooter])
    face = "2 Melee" if kind == "melee" else "2 Missile"
    attack(
        game,
        kind,
        faces={
            a[0]: ["4 Confuse"],
            a[1]: [face],
            b[THUG]: ["1 Save", "1 Melee"],
            b[MUGGER]: ["1 Save", "1 Melee"],
            b[CUT]: ["2 Save", "2 Melee"],
        },
    )
    assert sum(1 for s in where(game, b) if s == "dua") >= 1  # 4 saves re-rolled to none: 2 damage


def test_convert_melee_save_or_die_and_return_from_dua_l1365_1371():
    game, a, b = game_with(["Undead/Vampire"], p1_dua=["Undead/Zombie", "Undead/Wight"])
    dead = [u.uid for u in game.state.area("p1", "dua")]
    attack(
        game,
        faces={a[0]: ["3 Convert"]},
        answers=[("sai_target", [b[CUT], b[THUG]]), ("Convert: return", dead)],
    )
    assert where(game, b) == ["dua", "frontier", "dua"]
    assert where(game, dead) == ["frontier", "frontier"]


def test_counter_save_vs_melee_saves_and_damage_back_l1372_1398():
    game, a, b = game_with(["Dwarves/Footman"] * 4, ["Dwarves/Skirmisher"])
    attack(game, faces={u: ["2 Melee"] for u in a} | {b[0]: ["4 Counter"]})
    assert where(game, a) == ["dua"] * 4  # 4 damage back, no save
    assert where(game, b) == ["dua"]  # 8 melee - 4 saves = 4 damage


def test_counter_damage_is_reduced_only_by_spell_saves_l1375_1377():
    game, a, b = game_with(["Dwarves/Footman"] * 4, ["Dwarves/Skirmisher"])
    game.add_effect("Stone Skin", "p1", "p1@frontier", castings=2)
    assert sai_attack.spell_saves(game, game.state.army("p1", "frontier")) == 2
    attack(game, faces={u: ["2 Melee"] for u in a} | {b[0]: ["4 Counter"]})
    assert where(game, a).count("dua") == 2


def test_counter_other_saves_only_save_l1378_1379():
    game, a, b = game_with(["Dwarves/Crossbowman"] * 2, ["Dwarves/Skirmisher"])
    attack(game, "missile", faces={a[0]: ["2 Missile"], a[1]: ["2 Missile"], b[0]: ["4 Counter"]})
    assert where(game, a) == ["frontier", "frontier"] and where(game, b) == ["frontier"]


def test_decapitate_melee_delayed_kills_one_unit_that_rolled_id_l1420_1431():
    game, a, b = game_with(["Dwarves/Footman", "Items/Death Vorpal Sword"])
    attack(
        game,
        faces={a[0]: ["2 Melee"], a[1]: ["3 Decapitate"], b[THUG]: [id_face(D[0])], b[CUT]: [id_face(D[2])]},
        answers=[("Decapitate", b[CUT])],
    )
    assert where(game, b)[CUT] == "dua"
    assert where(game, b).count("dua") == 2  # 2 melee - 1 save (Thug's ID) = 1 more death


def test_double_strike_melee_four_health_worth_save_or_die_and_roll_again_l1449_1466():
    game, a, b = game_with(["Feral/Tiger-folk"])
    d = attack(game, faces={a[0]: ["4 Double Strike", "4 Save"], b[MUGGER]: ["1 Save"]})
    assert "reroll" in d.topics()
    assert where(game, b) == ["dua", "frontier", "dua"]


@pytest.mark.parametrize("kind", ["melee", "missile"])
def test_howl_defender_subtracts_x_saves_l1637_1642(kind):
    game, a, b = game_with(["Frostwings/Wolf Pack", "Dwarves/Crossbowman"])
    face = "1 Melee" if kind == "melee" else "2 Missile"
    attack(
        game,
        kind,
        faces={
            a[0]: ["4 Howl"],
            a[1]: [face],
            b[CUT]: ["2 Save"],
            b[THUG]: ["1 Save"],
            b[MUGGER]: ["1 Save"],
        },
    )
    assert where(game, b).count("dua") >= 1  # 4 saves - 4 = 0


def test_hug_melee_x_damage_no_save_and_melee_back_l1643_1654():
    game, a, b = game_with(["Feral/Bear-folk"])
    attack(game, faces={a[0]: ["4 Hug"], b[CUT]: ["3 Melee"]}, answers=[("sai_target", b[CUT])])
    assert where(game, b) == ["frontier", "frontier", "dua"]
    assert where(game, a) == ["frontier"]  # 3 melee back on 4 health


def test_hypnotic_glare_melee_ids_hypnotized_and_not_counted_l1655_1666():
    game, a, b = game_with(["Coral Elves/Leviathan", "Dwarves/Footman"])
    attack(
        game,
        faces={
            a[0]: ["4 Hypnotic Glare"],
            a[1]: ["1 Melee"],
            b[THUG]: [id_face(D[0])],
            b[MUGGER]: [id_face(D[1])],
            b[CUT]: ["2 Melee"],
        },
        answers=[("allocate", [b[THUG]])],
    )
    alive = [u for u in b if game.state.location[u] == "frontier"]
    hyp = [u for u in alive if "hypnotized" in sai_status.statuses(game, u)]
    assert hyp and not sai_status.can_roll(game, game.state.units[hyp[0]])


@pytest.mark.parametrize("kind", ["melee", "missile"])
def test_net_maneuver_or_netted_l1714_1728(kind):
    game, a, b = game_with(["Goblins/Cannibal"], ["Dwarves/Footman", "Dwarves/Pony Rider"])
    attack(
        game,
        kind,
        faces={a[0]: ["4 Net"], b[1]: [next(f for f in game_face(game, b[1]) if f.endswith("Maneuver"))]},
    )
    assert sai_status.statuses(game, b[0]) == ["netted"] and sai_status.statuses(game, b[1]) == []
    with pytest.raises(IllegalAction):
        sai_status.check_move(game, "p2", b[0], "reserve")


def game_face(game, uid):
    return game.state.units[uid].spec.faces


def test_net_does_nothing_on_a_reserve_army_shot_from_a_tower_l1726_1728():
    game, a, b = arena(["Goblins/Cannibal"], [], p2_reserve=["Dwarves/Footman"])
    st = game.state
    target = st.army("p2", "reserve")
    drive(
        game, game.attack(st.army("p1", "frontier"), target, "missile", False, False), faces={a[0]: ["4 Net"]}
    )
    assert all(not sai_status.statuses(game, u.uid) for u in target.units)


def test_net_individual_save_generates_x_saves_l1727_1728():
    game, a, b = game_with([], ["Goblins/Cannibal"])
    st = game.state
    unit = st.units[b[0]]
    d = drive(
        game,
        game.roll(Army("p2", "frontier", (unit,)), "save", "alone", "t", individual=True),
        faces={b[0]: ["4 Net"]},
    )
    assert d.result.total == 4


@pytest.mark.parametrize("face,expect", [("2 Melee", "dua"), ("2 ID", "frontier")])
def test_slay_melee_one_unit_dies_unless_it_rolls_its_id_l1848_1852(face, expect):
    game, a, b = game_with(["Undead/Minor Death"])
    attack(game, faces={a[0]: ["4 Slay"], b[CUT]: [face]}, answers=[("sai_target", b[CUT])])
    assert where(game, b)[CUT] == expect


def test_smite_melee_x_damage_no_save_l1859_1879():
    game, a, b = game_with(
        ["Dwarves/Warlord"], ["Goblins/Cutthroat", "Goblins/Cutthroat", "Goblins/Cutthroat"]
    )
    d = attack(game, faces={a[0]: ["4 Smite"]})
    assert where(game, b).count("dua") == 2 and "allocate" in d.topics() or where(game, b).count("dua") == 2


def test_smother_melee_maneuver_or_die_l1880_1887():
    game, a, b = game_with(["Goblins/Shambler"], ["Dwarves/Footman", "Dwarves/Pony Rider"])
    man = next(f for f in game_face(game, b[1]) if f.endswith("Maneuver"))
    attack(game, faces={a[0]: ["4 Smother"], b[1]: [man]})
    assert where(game, b) == ["dua", "frontier"]


def test_stun_melee_maneuver_or_stunned_and_roll_again_l1947_1956():
    game, a, b = game_with(["Dracolem/Bronze Draco-Rogue"])
    d = attack(game, faces={a[0]: ["4 Stun", "3 Maneuver"], b[CUT]: ["3 Maneuver"]})
    assert "reroll" in d.topics()
    assert [sai_status.statuses(game, u) for u in b] == [["stunned"], ["stunned"], []]
    game.state.location[b[THUG]] = "reserve"  # leaving the terrain ends the stun (L1953-1955)
    assert sai_status.statuses(game, b[THUG]) == []


def test_surprise_melee_no_counter_attack_l1969_1977():
    game, a, b = game_with(["Goblins/Cannibal"])
    attack(game, faces={a[0]: ["4 Surprise"]})
    assert not sai_attack.may_counter_attack(game)


def test_surprise_does_nothing_in_a_counter_attack_l1976_1977():
    game, a, b = game_with(["Goblins/Cannibal"])
    attack(game, faces={a[0]: ["4 Melee"]})
    attack(game, faces={a[0]: ["4 Surprise"]}, counter=True)
    assert sai_attack.may_counter_attack(game)


@pytest.mark.parametrize("kind", ["melee", "missile"])
def test_web_melee_or_webbed_l2060_2071(kind):
    game, a, b = game_with(["Lava Elves/Drider"])
    attack(game, kind, faces={a[0]: ["4 Web"], b[CUT]: ["2 Melee"]})
    assert [sai_status.statuses(game, u) for u in b] == [["webbed"], ["webbed"], []]


def test_bash_save_vs_melee_copies_a_units_melee_and_hits_it_l1250_1266():
    game, a, b = game_with(["Dwarves/Footman", "Dwarves/Footman"], ["Eldarim/Death Dragon Zealot"])
    attack(game, faces={a[0]: ["2 Melee"], a[1]: ["2 Melee"], b[0]: ["4 Bash"]}, answers=[("Bash", a[0])])
    assert where(game, a) == ["dua", "frontier"]  # the bashed Footman took its own 2 melee and did not save
    assert where(game, b) == ["frontier"]  # 4 melee - 2 saves = 2 damage on a 4-health unit


def test_bash_other_save_generates_x_saves_l1266_1267():
    game, a, b = game_with(["Dwarves/Crossbowman"] * 2, ["Eldarim/Death Dragon Zealot"])
    attack(game, "missile", faces={a[0]: ["2 Missile"], a[1]: ["2 Missile"], b[0]: ["4 Bash"]})
    assert where(game, b) == ["frontier"] and where(game, a) == ["frontier", "frontier"]


def test_hypnotic_glare_ends_when_the_glaring_unit_is_rolled_l1663_1664():
    game, a, b = game_with(["Coral Elves/Leviathan", "Dwarves/Footman"])
    attack(
        game,
        faces={
            a[0]: ["4 Hypnotic Glare"],
            a[1]: ["1 Melee"],
            b[THUG]: [id_face(D[0])],
            b[MUGGER]: [id_face(D[1])],
            b[CUT]: ["2 Save"],
        },
    )
    assert sai_status.statuses(game, b[THUG]) == ["hypnotized"]
    from sai_arena import roll

    roll(game, "p1", "maneuver", answers=[("Hypnotic Glare", "roll")])  # its owner rolls it (L1665-1666)
    assert sai_status.statuses(game, b[THUG]) == []


def test_same_sai_faces_may_be_combined_or_resolved_one_by_one_l1228_1232():
    defenders = ["Goblins/Cutthroat"] * 4
    game, a, b = game_with(["Coral Elves/Tako", "Coral Elves/Tako"], defenders)
    d = attack(game, faces={a[0]: ["4 Entangle"], a[1]: ["4 Entangle"]}, answers=[("sai_option", "combine")])
    ask = next(x for x in d.decisions if x.topic == "sai_option")
    assert [c["value"] for c in ask.choices] == ["combine", "one_by_one"]
    assert where(game, b) == ["dua"] * 4  # one effect of 8 health-worth
    game, a, b = game_with(["Coral Elves/Tako", "Coral Elves/Tako"], defenders)
    attack(game, faces={a[0]: ["4 Entangle"], a[1]: ["4 Entangle"]}, answers=[("sai_option", "one_by_one")])
    assert where(game, b) == ["dua"] * 4  # two effects of 4 health-worth each
