"""One test per SAI result rule of the V4.01c SAI table (L1178-2080): what each SAI generates in
each roll type, its re-roll flag, the modifiers it creates and the effects it reports."""

from __future__ import annotations

import pytest

from companion.rules.catalogue import SAI_NAMES, load_catalogue
from companion.rules.v4.contributions import ALL, CANTRIP, Op, Scope
from companion.rules.v4.sai import SAI_RULES, rule_for_face, sai_contribution
from companion.rules.v4.situation import Situation

MAN = Situation("maneuver")
MAN_COUNTER = Situation("maneuver", counter_maneuver=True)
MEL = Situation("melee")
COUNTER_ATTACK = Situation("melee", counter_attack=True)
MIS = Situation("missile")
MIS_TOWER_RESERVE = Situation("missile", tower_shot_at_reserves=True)
MAG = Situation("magic")
MAG_RESERVE = Situation("magic", at_terrain=False)
SAV = Situation("save")
SAV_MEL = Situation("save", against="melee")
SAV_MIS = Situation("save", against="missile")
SAV_IND = Situation("save", against="individual")
DRAGON = Situation("save", against="dragon")
DRAGON_JAWS = Situation("save", against="dragon", dragon_rolled_jaws=True)

# (SAI, situation, X, results expected at step 8, re-rolls?, V4.01c citation)
RESULT_RULES = [
    ("Attune", MAG, 3, {"magic": 3}, False, "L1243-1249"),
    ("Attune", MEL, 3, {}, False, "L1243-1249"),
    ("Bash", SAV_MIS, 2, {"save": 2}, False, "L1265-1266"),
    ("Belly", SAV, 1, {}, False, "L1270-1272"),
    ("Breath", MEL, 3, {}, False, "L1273-1279"),
    ("Bullseye", MIS, 3, {}, True, "L1288-1293"),
    ("Bullseye", DRAGON, 3, {"missile": 3}, False, "L1294-1295"),
    ("Cantrip", MAG, 3, {"magic": 3}, False, "L1302-1303"),
    ("Cantrip", SAV, 3, {CANTRIP: 3}, False, "L1304-1306"),
    ("Cantrip", MAN, 3, {}, False, "L1296-1301"),
    ("Cloak", MAG, 2, {"magic": 2}, False, "L1339-1340"),
    ("Cloak", SAV_IND, 2, {"save": 2}, False, "L1341-1345"),
    ("Coil", DRAGON, 3, {"melee": 3}, False, "L1355-1356"),
    ("Counter", SAV_MEL, 3, {"save": 3}, False, "L1388-1391"),
    ("Counter", SAV_MIS, 3, {"save": 3}, False, "L1392-1393"),
    ("Counter", MEL, 3, {"melee": 3}, False, "L1394-1395"),
    ("Counter", DRAGON, 3, {"save": 3, "melee": 3}, False, "L1396-1397"),
    ("Create Fireminions", MEL, 2, {"melee": 2}, False, "L1399-1407"),
    ("Create Fireminions", MAN, 2, {"maneuver": 2}, False, "L1399-1407"),
    ("Create Fireminions", SAV_IND, 2, {}, False, "L1399-1407"),
    ("Crush", DRAGON, 4, {"missile": 4}, False, "L1418-1419"),
    ("Decapitate", DRAGON, 3, {"melee": 3}, False, "L1428-1431"),
    ("Decapitate", DRAGON_JAWS, 3, {}, False, "L1428-1431"),
    ("Dispel Magic", SAV_MEL, 2, {}, False, "L1432-1448"),
    ("Double Strike", MEL, 1, {}, True, "L1458-1463"),
    ("Double Strike", DRAGON, 1, {"melee": 4}, False, "L1464-1466"),
    ("Elevate", MAN, 3, {"maneuver": 3}, False, "L1489-1490"),
    ("Fabricate", SAV, 2, {"save": 2}, False, "L1504-1505"),
    ("Fabricate", SAV_IND, 2, {}, False, "L1504-1505"),
    ("Firewalking", MAN, 2, {"maneuver": 2}, False, "L1532-1533"),
    ("Flaming Arrow", DRAGON, 3, {"missile": 3}, False, "L1560-1561"),
    ("Flurry", MEL, 3, {"melee": 3}, True, "L1565-1567"),
    ("Flurry", SAV_MEL, 3, {"save": 3}, False, "L1568-1569"),
    ("Flurry", SAV_MIS, 3, {}, False, "L1562-1575"),
    ("Flurry", DRAGON, 3, {"save": 3}, False, "L1570-1575"),
    ("Fly", MAN, 3, {"maneuver": 3}, False, "L1586-1588"),
    ("Fly", SAV, 3, {"save": 3}, False, "L1586-1588"),
    ("Fly", DRAGON, 3, {"save": 3}, False, "L1586-1588"),
    ("Gore", DRAGON, 1, {"melee": 4}, False, "L1625-1626"),
    ("Hoof", MAN, 2, {"maneuver": 2}, False, "L1630-1631"),
    ("Hoof", SAV, 2, {"save": 2}, False, "L1632-1633"),
    ("Hoof", DRAGON, 2, {"save": 2}, False, "L1634-1636"),
    ("Hug", DRAGON, 3, {"melee": 3}, False, "L1653-1654"),
    ("Impale", DRAGON, 3, {"missile": 3}, False, "L1684-1687"),
    ("Impale", DRAGON_JAWS, 3, {}, False, "L1684-1687"),
    ("Kick", SAV, 2, {"save": 2}, False, "L1693-1694"),
    ("Kick", DRAGON, 2, {"melee": 2, "save": 2}, False, "L1695-1697"),
    ("Magic Suppression", MAG, 1, {"magic": 4}, False, "L1712-1713"),
    ("Net", SAV_IND, 2, {"save": 2}, False, "L1726-1728"),
    ("Regenerate", SAV, 2, {"save": 2}, False, "L1746-1750"),
    ("Rend", MEL, 3, {"melee": 3}, True, "L1760-1762"),
    ("Rend", DRAGON, 3, {"melee": 3}, True, "L1760-1762"),
    ("Rend", MAN, 3, {"maneuver": 3}, False, "L1763-1764"),
    ("Rend", MIS, 3, {}, False, "L1751-1759"),
    ("Rise from the Ashes", SAV, 2, {"save": 2}, False, "L1772-1773"),
    ("Smite", DRAGON, 3, {"melee": 3}, False, "L1877-1879"),
    ("Smite", MEL, 3, {}, False, "L1874-1876"),
    ("Sneak Attack", MEL, 4, {"melee": 4}, False, "L1900-1902"),
    ("Sneak Attack", DRAGON, 4, {"melee": 4}, False, "L1900-1902"),
    ("Sortie", MEL, 2, {"melee": 2}, False, "L1906-1907"),
    ("Sortie", SAV, 2, {"save": 2}, False, "L1908-1909"),
    ("Sortie", DRAGON, 2, {"save": 2, "melee": 2}, False, "L1910-1912"),
    ("Spell Disruption", MAG, 1, {"magic": 4}, False, "L1925-1926"),
    ("Stomp", DRAGON, 3, {"melee": 3}, False, "L1936-1937"),
    ("Stone", DRAGON, 3, {"missile": 3}, False, "L1945-1946"),
    ("Stun", MEL, 2, {}, True, "L1947-1956"),
    ("Summon Dragon", MAG, 4, {}, True, "L1960-1965"),
    ("Summon Dragon", MAG_RESERVE, 4, {"magic": 4}, False, "L1966-1968"),
    ("Tail", MEL, 1, {"melee": 2}, True, "L1984-1988"),
    ("Tail", DRAGON, 3, {"melee": 2}, True, "L1984-1988"),
    ("Teleport", MAN, 2, {"maneuver": 2}, False, "L1992-1993"),
    ("Trample", MAN, 3, {"maneuver": 3, "melee": 3}, False, "L2008-2010"),
    ("Trample", MEL, 3, {"maneuver": 3, "melee": 3}, False, "L2008-2010"),
    ("Vanish", SAV, 2, {"save": 2}, False, "L2019-2020"),
    ("Volley", SAV_MIS, 3, {"save": 3}, False, "L2027-2030"),
    ("Volley", SAV_MEL, 3, {"save": 3}, False, "L2031-2032"),
    ("Volley", MIS, 3, {"missile": 3}, False, "L2033-2034"),
    ("Volley", DRAGON, 3, {"save": 3, "missile": 3}, False, "L2035-2037"),
    ("Wayfare", MAN, 2, {"maneuver": 2}, False, "L2052-2055"),
    ("Wild Growth", SAV, 3, {"save": 3}, False, "L2072-2080"),
]


@pytest.mark.parametrize(
    ("sai", "situation", "x", "expected", "again", "lines"),
    RESULT_RULES,
    ids=[f"{r[0]}-{r[1].roll_for}{'-' + r[1].against if r[1].against else ''}-{r[5]}" for r in RESULT_RULES],
)
def test_sai_result_rule(sai, situation, x, expected, again, lines):
    c = sai_contribution(sai, x, situation)
    assert {k: v for k, v in c.results.items() if v} == expected, f"V4.01c {lines}"
    assert c.rerolls is again, f"V4.01c {lines}"
    assert c.citation.startswith("V4.01c L")


def test_every_catalogue_sai_name_has_a_table_row():
    """V4.01c L1178-2080: all 80 rows, and every SAI the catalogue can show resolves."""
    assert len(SAI_RULES) == 80
    for name in SAI_NAMES:
        assert rule_for_face(name).name in SAI_RULES


def test_every_sai_face_of_every_die_resolves_in_every_roll_type():
    cat = load_catalogue()
    situations = [
        MAN,
        MAN_COUNTER,
        MEL,
        COUNTER_ATTACK,
        MIS,
        MAG,
        MAG_RESERVE,
        SAV,
        SAV_MEL,
        SAV_MIS,
        SAV_IND,
        DRAGON,
        DRAGON_JAWS,
    ]
    seen = set()
    for die in cat:
        for face in die.faces:
            if face.sai is None:
                continue
            for s in situations:
                c = sai_contribution(face.sai, face.count, s, die)
                assert all(v >= 0 for v in c.results.values())
            seen.add(rule_for_face(face.sai, die).name)
    # every row but the five whose dice the data lacks shows up on some die
    assert len(seen) >= 75


# ------------------------------------------------------------------ choices (L1076-1096, L1098-1103)


def test_fly_counts_only_one_of_its_two_results_l1586():
    c = sai_contribution("Fly", 3, MAN)
    assert c.chosen == "maneuver" and set(c.options) == {"maneuver", "save"}
    assert sum(c.results.values()) == 3


def test_caller_overrides_a_choice_l1570_1575():
    s = Situation("save", against="dragon", choices={"Flurry": "melee"})
    c = sai_contribution("Flurry", 4, s)
    assert c.results == {"melee": 4} and c.rerolls


def test_unknown_choice_is_refused():
    with pytest.raises(ValueError, match="no option"):
        sai_contribution("Fly", 3, Situation("save", choices={"Fly": "magic"}))


def test_regenerate_may_return_units_instead_of_saves_l1746_1750():
    c = sai_contribution("Regenerate", 2, Situation("save", choices={"Regenerate": "return units"}))
    assert not c.results.get("save") and c.effects[0].kind == "return_from_dua" and c.effects[0].amount == 2


def test_wild_growth_may_promote_l2072_2080():
    c = sai_contribution("Wild Growth", 2, Situation("save", choices={"Wild Growth": "promote"}))
    assert c.effects[0].kind == "promote" and c.effects[0].amount == 2


def test_wayfare_may_move_instead_of_maneuver_l2052_2055():
    c = sai_contribution("Wayfare", 2, Situation("maneuver", choices={"Wayfare": "move"}))
    assert not c.results and c.effects[0].kind == "move"


def test_create_fireminions_type_chosen_by_caller_l1399_1407():
    c = sai_contribution(
        "Create Fireminions",
        3,
        Situation("save", against="dragon", choices={"Create Fireminions": "missile"}),
    )
    assert c.results == {"missile": 3}


def test_cloak_in_individual_roll_gives_any_type_l1341_1345():
    c = sai_contribution("Cloak", 2, Situation("save", against="individual", choices={"Cloak": "maneuver"}))
    assert c.results == {"maneuver": 2}


# ------------------------------------------------------------------ modifiers created


def test_cloak_adds_lasting_saves_to_its_army_l1336_1338():
    c = sai_contribution("Cloak", 3, SAV_MEL)
    (m,) = c.modifiers
    assert (m.stage, m.result, m.amount, m.reach) == (Op.ADD, "save", 3, Scope.OWN_ARMY_ROLLS)


@pytest.mark.parametrize("sai", ["Howl", "Screech", "Wave"])
def test_defender_subtracts_x_saves_l1637_1642_l1798_1804_l2041_2043(sai):
    (m,) = sai_contribution(sai, 2, MEL).modifiers
    assert (m.stage, m.result, m.amount, m.reach) == (Op.SUBTRACT, "save", 2, Scope.DEFENDER_SAVE_ROLL)


def test_howl_also_in_missile_but_screech_not_l1637_l1798():
    assert sai_contribution("Howl", 2, MIS).modifiers
    assert not sai_contribution("Screech", 2, MIS).modifiers


def test_wave_while_marching_hits_counter_maneuvers_but_not_when_countering_l2044_2048():
    (m,) = sai_contribution("Wave", 3, MAN).modifiers
    assert (m.stage, m.result, m.amount, m.reach) == (Op.SUBTRACT, "maneuver", 3, Scope.COUNTER_MANEUVER)
    assert sai_contribution("Wave", 3, MAN_COUNTER).is_empty
    assert sai_contribution("Wave", 3, Situation("maneuver", marching=False)).is_empty


def test_frost_breath_halves_target_army_l1589_1598():
    (m,) = sai_contribution("Frost Breath", 1, MIS).modifiers
    assert (m.stage, m.result, m.amount, m.reach) == (Op.DIVIDE, ALL, 2, Scope.TARGET_ARMY_ROLLS)


def test_galeforce_minus_four_saves_and_maneuver_l1599_1608():
    mods = sai_contribution("Galeforce", 1, MEL).modifiers
    assert {(m.result, m.amount) for m in mods} == {("save", 4), ("maneuver", 4)}
    assert all(m.stage is Op.SUBTRACT for m in mods)
    assert sai_contribution("Galeforce", 1, MAG).modifiers
    assert sai_contribution("Galeforce", 1, MAG_RESERVE).is_empty  # "a magic action at a terrain"


def test_magic_suppression_minus_four_magic_l1703_1711():
    (m,) = sai_contribution("Magic Suppression", 2, MIS).modifiers
    assert (m.stage, m.result, m.amount) == (Op.SUBTRACT, "magic", 4)


def test_wither_minus_x_all_rolls_l2081_2084():
    (m,) = sai_contribution("Wither", 3, MEL).modifiers
    assert (m.stage, m.result, m.amount, m.reach) == (Op.SUBTRACT, ALL, 3, Scope.TARGET_ARMY_ROLLS)


def test_elevate_doubles_one_unit_l1491_1498():
    (m,) = sai_contribution("Elevate", 3, MIS).modifiers
    assert (m.stage, m.result, m.amount, m.reach) == (Op.MULTIPLY, "missile", 2, Scope.ONE_UNIT)
    (m,) = sai_contribution("Elevate", 3, SAV_MEL).modifiers
    assert m.result == "save"
    assert sai_contribution("Elevate", 3, SAV_MIS).is_empty


def test_trumpet_doubles_feral_melee_and_saves_l2011_2018():
    mods = sai_contribution("Trumpet", 1, SAV).modifiers
    assert {(m.stage, m.result, m.amount, m.species) for m in mods} == {
        (Op.MULTIPLY, "melee", 2, "Feral"),
        (Op.MULTIPLY, "save", 2, "Feral"),
    }
    assert sai_contribution("Trumpet", 1, MAN).is_empty


def test_charge_counts_maneuver_as_melee_except_in_counter_attacks_l1309_1318():
    (ca,) = sai_contribution("Charge", 1, MEL).counts_as
    assert (ca.counts_as, ca.result) == ("maneuver", "melee")
    assert sai_contribution("Charge", 1, COUNTER_ATTACK).is_empty


def test_belly_removes_automatic_saves_l1270_1272():
    assert sai_contribution("Belly", 4, DRAGON).loses_automatic_saves


def test_bash_saves_equal_targeted_attacker_melee_l1256_1264():
    c = sai_contribution("Bash", 2, Situation("save", against="melee", bash_target_melee=5))
    assert c.results == {"save": 5}
    assert c.effects[0].kind == "damage" and c.effects[0].amount == 5
    c = sai_contribution("Bash", 2, Situation("save", against="dragon", bash_dragon_damage=7))
    assert c.results == {"save": 7}


# ------------------------------------------------------------------ effects reported to the game flow

# (SAI, situation, X, effect kind, effect amount, citation)
EFFECT_RULES = [
    ("Attune", MAG, 2, "attune_element", 2, "L1243-1249"),
    ("Breath", MEL, 3, "kill", 3, "L1277-1279"),
    ("Bullseye", MIS, 3, "save_or_kill", 3, "L1288-1293"),
    ("Charge", MEL, 1, "charge", None, "L1310-1318"),
    ("Charm", MEL, 2, "charm", 2, "L1319-1325"),
    ("Choke", MEL, 2, "delayed_kill_id", 2, "L1326-1331"),
    ("Coil", MEL, 3, "coil", 3, "L1348-1354"),
    ("Confuse", MEL, 2, "delayed_reroll", 2, "L1359-1364"),
    ("Confuse", MIS, 2, "delayed_reroll", 2, "L1359-1364"),
    ("Convert", MEL, 2, "save_or_kill", 2, "L1365-1371"),
    ("Counter", SAV_MEL, 3, "damage_spell_saves_only", 3, "L1388-1391"),
    ("Crush", MIS, 3, "maneuver_or_kill_then_save_or_bury", 3, "L1410-1417"),
    ("Decapitate", MEL, 3, "delayed_kill_id", 1, "L1422-1427"),
    ("Decapitate", DRAGON_JAWS, 3, "kill_dragon", 1, "L1428-1429"),
    ("Double Strike", MEL, 2, "save_or_kill", 4, "L1458-1463"),
    ("Elemental Relic", SAV, 4, "relic_reroll_recruit_promote", 4, "L1475-1484"),
    ("Entangle", MEL, 2, "kill", 2, "L1499-1501"),
    ("Fabricate", MAG, 3, "summon_equipment", 3, "L1506-1509"),
    ("Ferry", MEL, 1, "move", 4, "L1510-1513"),
    ("Firebreath", MEL, 3, "damage_no_save", 3, "L1514-1518"),
    ("Firecloud", MIS, 2, "maneuver_or_kill", 2, "L1521-1526"),
    ("Firewalking", SAV, 2, "move", 3, "L1534-1538"),
    ("Flame", MEL, 4, "kill_and_bury", 2, "L1543-1546"),
    ("Flaming Arrow", MIS, 3, "save_or_kill_then_save_or_bury", 3, "L1552-1559"),
    ("Gate", MEL, 4, "move", 4, "L1613-1617"),
    ("Gore", MEL, 4, "damage_unit", 2, "L1621-1624"),
    ("Hug", MEL, 3, "hug", 3, "L1645-1652"),
    ("Hypnotic Glare", MEL, 1, "delayed_hypnotize", None, "L1658-1666"),
    ("Illusion", MAG, 1, "illusion", None, "L1670-1675"),
    ("Impale", MIS, 3, "delayed_kill_id", 1, "L1678-1683"),
    ("Kick", MEL, 2, "damage_unit", 2, "L1691-1692"),
    ("Net", MEL, 2, "maneuver_or_net", 2, "L1717-1725"),
    ("Plague", MEL, 1, "plague", 1, "L1729-1735"),
    ("Poison", MEL, 2, "save_or_kill_then_save_or_bury", 2, "L1740-1745"),
    ("Roar", MEL, 3, "to_reserves", 3, "L1786-1790"),
    ("Scare", MEL, 2, "save_or_reserves", 2, "L1791-1797"),
    ("Seize", MIS, 2, "id_to_reserves_else_kill", 2, "L1805-1810"),
    ("Slay", MEL, 1, "roll_id_or_kill", 1, "L1848-1852"),
    ("Sleep", MEL, 1, "sleep", 1, "L1853-1858"),
    ("Smite", MEL, 3, "damage_no_save", 3, "L1874-1876"),
    ("Smother", MEL, 2, "maneuver_or_kill", 2, "L1883-1887"),
    ("Sneak Attack", MIS, 4, "damage_no_save", 4, "L1895-1899"),
    ("Sneak Attack", MAG, 4, "damage_no_save", 4, "L1895-1899"),
    ("Spell Disruption", MEL, 1, "expire_spells", 4, "L1919-1924"),
    ("Stomp", MEL, 3, "maneuver_or_kill_then_save_or_bury", 3, "L1930-1935"),
    ("Stone", MEL, 3, "damage_no_save", 3, "L1941-1942"),
    ("Stone", MIS, 3, "damage_no_save", 3, "L1941-1942"),
    ("Stun", MEL, 2, "maneuver_or_stun", 2, "L1947-1956"),
    ("Summon Dragon", MAG, 4, "summon_dragon", 1, "L1960-1965"),
    ("Surprise", MEL, 1, "no_counter_attack", None, "L1973-1977"),
    ("Swallow", MEL, 1, "roll_id_or_kill_and_bury", 1, "L1978-1981"),
    ("Teleport", MEL, 2, "move", 3, "L1994-1997"),
    ("Vanish", SAV, 2, "move", 1, "L2019-2023"),
    ("Volley", SAV_MIS, 3, "damage_spell_saves_only", 3, "L2027-2030"),
    ("Wayfare", DRAGON, 2, "move", 1, "L2056-2058"),
    ("Web", MIS, 2, "melee_or_web", 2, "L2060-2071"),
]


@pytest.mark.parametrize(
    ("sai", "situation", "x", "kind", "amount", "lines"),
    EFFECT_RULES,
    ids=[f"{r[0]}-{r[1].roll_for}-{r[5]}" for r in EFFECT_RULES],
)
def test_sai_reports_its_effect(sai, situation, x, kind, amount, lines):
    c = sai_contribution(sai, x, situation)
    kinds = {(e.kind, e.amount) for e in c.effects}
    assert (kind, amount) in kinds, f"V4.01c {lines}: {kinds}"
    assert all(e.citation.startswith("V4.01c L") for e in c.effects)


@pytest.mark.parametrize("sai", ["Choke", "Confuse", "Decapitate", "Hypnotic Glare", "Impale"])
def test_delayed_sais_wait_for_the_defenders_save_roll_l1015_1016(sai):
    situation = MIS if sai in ("Impale",) else MEL
    c = sai_contribution(sai, 2, situation)
    assert SAI_RULES[sai].delayed
    assert all("step 2" in e.timing for e in c.effects)


def test_counter_damage_back_only_against_melee_l1388_1393():
    assert not sai_contribution("Counter", 3, SAV_MIS).effects


def test_surprise_no_effect_in_counter_attack_l1976_1977():
    assert sai_contribution("Surprise", 1, COUNTER_ATTACK).is_empty


def test_net_and_web_do_nothing_against_reserves_from_a_tower_l1723_1725_l2067_2070():
    assert sai_contribution("Net", 2, MIS_TOWER_RESERVE).is_empty
    assert sai_contribution("Web", 2, MIS_TOWER_RESERVE).is_empty


# ------------------------------------------------------------------ logo rows (L1811-1846)


def test_elemental_champion_logo_is_an_id_worth_two_l1821_1824(cat):
    hunter = cat["Eldarim/Fire Dragon Hunter"]
    c = sai_contribution("Logo", 1, MEL, hunter)
    assert c.id_results == 2 and not c.results


def test_white_champion_logo_no_id_results_l2866_3058(cat):
    slayer = cat["Eldarim/Dragonslayer"]
    assert sai_contribution("Logo", 1, MEL, slayer).is_empty


def test_champion_logo_four_saves_vs_individual_l2882_2886(cat):
    for name in ("Eldarim/Dragonslayer", "Eldarim/Air Dragon Zealot"):
        assert sai_contribution("Logo", 1, SAV_IND, cat[name]).results == {"save": 4}


def test_champion_logo_in_dragon_attack_tames_slays_controls_l2906_3058(cat):
    kinds = {
        name: sai_contribution("Logo", 1, DRAGON, cat[name]).effects[0].kind
        for name in (
            "Eldarim/Dragonlord",
            "Eldarim/Dragonslayer",
            "Eldarim/Dragoncrusader",
            "Eldarim/Water Dragon Master",
            "Eldarim/Water Dragon Hunter",
            "Eldarim/Water Dragon Zealot",
        )
    }
    assert kinds == {
        "Eldarim/Dragonlord": "tame_dragon",
        "Eldarim/Dragonslayer": "slay_dragon",
        "Eldarim/Dragoncrusader": "control_dragon",
        "Eldarim/Water Dragon Master": "tame_dragon",
        "Eldarim/Water Dragon Hunter": "slay_dragon",
        "Eldarim/Water Dragon Zealot": "control_dragon",
    }


def test_dragonkin_champion_logo_l2546_2564(cat):
    die = cat["Dragonkin/Dragonvictor (Fire)"]
    assert sai_contribution("Logo", 4, SAV_IND, die).results == {"save": 4}
    assert sai_contribution("Logo", 4, MEL, die).effects[0].kind == "move_dragon"


def test_bronze_medallion_l2782_2797(cat):
    die = cat["Items/Bronze Medallion"]
    assert rule_for_face("Logo", die).name == "Logo (Medallion)"
    assert sai_contribution("Logo", 4, MAG, die).results == {"magic": 4}
    assert sai_contribution("Logo", 4, SAV, die).results == {CANTRIP: 4}
    assert sai_contribution("Logo", 4, MAN, die).is_empty


def test_silver_and_gold_medallions_l2798_2824(cat):
    assert (
        sai_contribution("Logo", 4, SAV, cat["Items/Silver Medallion"]).effects[0].kind == "silver_medallion"
    )
    e = sai_contribution("Logo", 4, MEL, cat["Items/Gold Medallion"]).effects[0]
    assert (e.kind, e.amount) == ("return_from_dua", 4)


def test_earthfang_logo_l2849_2864(cat):
    die = cat["Items/Earthfang"]
    assert sai_contribution("Logo", 4, DRAGON, die).results == {"melee": 4}
    assert sai_contribution("Logo", 4, DRAGON_JAWS, die).effects[0].kind == "kill_dragon"
    (m,) = sai_contribution("Logo", 4, MIS, die).modifiers
    assert (m.stage, m.amount, m.reach) == (Op.SUBTRACT, 2, Scope.TERRAIN_ROLLS)
    assert sai_contribution("Logo", 4, MEL, die).effects[0].kind == "delayed_kill_id"


def test_elemental_relic_logo_matches_every_element_l2829_2832(cat):
    die = cat["Items/Elemental Relic"]
    assert rule_for_face("Logo", die).name == "Logo (Relic)"
    assert sai_contribution("Logo", 4, SAV, die).effects[0].kind == "relic_reroll_recruit_promote"
    assert sai_contribution("Logo", 4, MAN, die).is_empty


def test_negative_x_refused():
    with pytest.raises(ValueError, match="negative"):
        sai_contribution("Rend", -1, MEL)


def test_unknown_sai_refused():
    with pytest.raises(KeyError, match="unknown SAI"):
        sai_contribution("Kazoo", 1, MEL)


def test_in_the_dua_only_save_generating_sais_work_l1215_1216():
    dua = Situation("save", in_dua=True)
    assert sai_contribution("Counter", 3, dua).results == {"save": 3}
    assert sai_contribution("Fly", 3, dua).results == {"save": 3}
    assert sai_contribution("Trample", 3, dua).is_empty
    assert sai_contribution("Vanish", 2, dua).effects == ()  # its saves only, no move
    assert sai_contribution("Vanish", 2, dua).results == {"save": 2}


def test_face_data_spellings_are_accepted():
    """The face data writes "Fire Breath" and "Element Air"; the SAI table "Firebreath" and
    "Elemental Relic" (V4.01c L1514, L1467)."""
    assert rule_for_face("Fire Breath").name == "Firebreath"
    assert rule_for_face("Element Air").name == "Elemental Relic"
    assert sai_contribution("Fire Breath", 2, MEL).effects[0].kind == "damage_no_save"
