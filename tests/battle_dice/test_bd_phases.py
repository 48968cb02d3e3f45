"""The eight phases (BD L74-286), simultaneous play (L68-72), casualty choice (L66), and each ruling's
variants (companion/rules/battle_dice/rulings.py).  Die ids follow unit order: d4, d6, d8, d10, d12, d20."""

from __future__ import annotations

import pytest


def this_turn(d, p):
    return d.game.data["this_turn"][p]


def alive_ids(d, p):
    return [x["id"] for x in d.game.data["armies"][p]["dice"]]


# ------------------------------------------------------------------ Monster phase (BD L98-114)


def test_monster_duel_is_simultaneous_and_the_owner_picks_which_monster_dies(make_game, army):
    d = make_game(army("A", "dragon", infantry=1, monster=1), army("B", "giant", monster=2))
    d.roll("A", [1, 14])
    d.roll("B", [15, 18])
    p = d.expect("choose_dice", "B", "casualties")  # B, the owner, picks (BD L66)
    assert {c["id"] for c in p["choices"]["candidates"]} == {"B01", "B02"}
    d.choose_dice("B", ["B02"])  # B gives up the monster showing 18 ...
    assert "A02" not in alive_ids(d, "A")  # ... B's 15 kills A's only monster
    d.roll("B", [7], purpose="giant table")  # ... and B02 still scores its Monster point (L72)
    d.roll("B", [4])  # Long Legs: 1D3 from a d6 showing 4 -> 2
    assert this_turn(d, "B")["gains"]["maneuver"] == 2
    assert alive_ids(d, "B") == ["B01"]


@pytest.mark.parametrize(("variant", "casualties"), [("counts", 1), ("not_counted", 0)])
def test_monster_rolling_1_or_2_leaves_the_battle(make_game, army, variant, casualties):
    d = make_game(army("A", "dragon", infantry=1, monster=2), army("B", infantry=3), options={"R18": variant})
    d.roll("A", [1, 2, 20])
    d.roll("B", [1, 1, 1])
    assert alive_ids(d, "A") == ["A01", "A03"]
    assert this_turn(d, "A")["casualties"] == casualties
    d.expect("roll", "A", "dragon table")  # the 20 still gives a Monster point


@pytest.mark.parametrize(("variant", "first"), [("a_first", "A"), ("b_first", "B")])
def test_r16_which_side_rolls_its_monster_table_first(make_game, army, variant, first):
    d = make_game(army("A", "dragon", monster=1), army("B", "giant", monster=1), options={"R16": variant})
    d.roll("A", [17])
    d.roll("B", [17])
    assert d.pending["player"] == first and d.pending["purpose"].endswith("table")


@pytest.mark.parametrize(("variant", "dragon_survives"), [("printed_order", False), ("tables_first", True)])
def test_r15_monster_duel_before_or_after_table_rolls(make_game, army, variant, dragon_survives):
    d = make_game(
        army("A", "dragon", infantry=1, monster=1),
        army("B", "giant", infantry=1, monster=1),
        options={"R15": variant},
    )
    d.roll("A", [1, 18])
    d.roll("B", [1, 14])
    d.roll("A", [6], purpose="dragon table")  # Scales
    d.roll("A", [6])  # negate 3
    assert ("A02" in alive_ids(d, "A")) is dragon_survives


@pytest.mark.parametrize(("variant", "b_left"), [("no_departure", ["B01"]), ("departs_at_once", [])])
def test_r08_a_monster_set_to_1_stays_unless_the_option_says(make_game, army, variant, b_left):
    d = make_game(army("A", "dragon", monster=1), army("B", "giant", monster=1), options={"R08": variant})
    d.roll("A", [18])
    d.roll("B", [5])
    d.roll("A", [4], purpose="dragon table")  # Tail
    d.roll("A", [2])  # 1D3 = 1
    assert alive_ids(d, "B") == b_left
    if b_left:
        assert d.die("B01")["face"] == 1
    else:
        assert d.game.result == {"winner": "A", "reason": "destroyed", "loser": "B"}


@pytest.mark.parametrize(("variant", "chooser"), [("caster", "A"), ("owner", "B")])
def test_r13_who_picks_the_dice_set_to_1(make_game, army, variant, chooser):
    d = make_game(
        army("A", "dragon", infantry=1, monster=1), army("B", infantry=1, archer=1), options={"R13": variant}
    )
    d.roll("A", [1, 18])
    d.roll("B", [5, 8])
    d.roll("A", [4], purpose="dragon table")  # Tail
    d.roll("A", [1])  # 1D3 = 1
    d.choose_dice(chooser, ["B02"], purpose="set_to_one")
    assert d.die("B02")["face"] == 1 and d.die("B01")["face"] == 5


# ------------------------------------------------------------------ contests (General, Magic, Maneuver)


def test_general_phase_winner_rolls_once_per_point_left(make_game, army):
    d = make_game(army("A", general=3), army("B", general=1, infantry=2))
    d.roll("A", [4, 4, 4])
    d.roll("B", [4, 1, 1])
    contest = d.events_of("contest", "general")[0]
    assert contest["totals"] == {"A": 3, "B": 1} and contest["left"] == {"A": 2, "B": 0}
    d.roll("A", [3], purpose="tactics table")  # Lead the Charge
    assert this_turn(d, "A")["hit_on"] == {"infantry": 4, "archer": None}
    d.roll("A", [4], purpose="tactics table")  # Direct the Fire, then nothing else happens this turn
    assert [e["player"] for e in d.events_of("hit_on")] == ["A", "A"]
    assert this_turn(d, "A")["hit_on"] == {"infantry": None, "archer": None}  # "this turn" only
    assert d.game.data["turn"] == 2 and d.pending["purpose"] == "roll_phase"


@pytest.mark.parametrize(("variant", "rollers"), [("both_zero", []), ("both_keep", ["A", "B"])])
def test_r06_tied_contest(make_game, army, variant, rollers):
    d = make_game(army("A", mage=1), army("B", mage=1), options={"R06": variant})
    d.roll("A", [11])
    d.roll("B", [10])
    seen = []
    while d.game.data["phase"] == "magic":
        seen.append(d.pending["player"])
        d.roll(d.pending["player"], [8], purpose="spell table")  # Fear
        d.roll(d.pending["player"], [1])
    assert seen == rollers


def test_magic_points_from_a_monster_join_the_spell_count(make_game, army):
    d = make_game(army("A", "medusa", mage=1, monster=1), army("B", mage=2))
    d.roll("A", [10, 20])
    d.roll("B", [12, 11])
    d.roll("A", [6], purpose="medusa table")  # Magic: +1D3 Magic points
    d.roll("A", [3])  # 2
    assert d.events_of("contest", "magic")[0]["totals"] == {"A": 3, "B": 2}


def test_r03_magic_points_can_be_made_useless(make_game, army):
    d = make_game(army("A", "medusa", mage=1, monster=1), army("B", mage=2), options={"R03": "no_effect"})
    d.roll("A", [10, 20])
    d.roll("B", [12, 11])
    d.roll("A", [6], purpose="medusa table")
    d.roll("A", [3])
    assert d.events_of("contest", "magic")[0]["totals"] == {"A": 1, "B": 2}


def test_sabotage_cannot_push_tactics_below_zero(make_game, army):
    d = make_game(army("A", "rogue", monster=1, general=1), army("B", general=2))
    d.roll("A", [1, 17])
    d.roll("B", [4, 1])
    d.roll("A", [4], purpose="rogue table")  # Sabotage: opponent loses 1D3 Tactics points
    d.roll("A", [6])  # 3
    assert d.events_of("contest", "general")[0]["totals"] == {"A": 0, "B": 0}


@pytest.mark.parametrize(
    ("variant", "turn2_left"),
    [("before_comparison", {"A": 0, "B": 0}), ("after_comparison", {"A": 1, "B": 1})],
)
def test_r11_encircle_point_next_turn(make_game, army, variant, turn2_left):
    d = make_game(
        army("A", infantry=1, cavalry=1), army("B", infantry=1, cavalry=1), options={"R11": variant}
    )
    d.roll("A", [1, 8])
    d.roll("B", [1, 1])
    d.roll("A", [5], purpose="maneuver table")  # Encircle
    d.roll("A", [2])  # enemy morale -2
    assert [(e["player"], e["value"]) for e in d.events_of("morale_mod")] == [("B", -2)]
    assert d.game.data["carry"]["A"]["maneuver"] == 1
    d.roll("A", [1, 1])  # turn 2
    d.roll("B", [1, 8])
    contest = d.events_of("contest", "maneuver")[-1]
    assert contest["turn"] == 2 and contest["left"] == turn2_left


def test_maneuver_pick_result_offers_the_other_four_rows(make_game, army):
    d = make_game(army("A", infantry=1, cavalry=1), army("B", infantry=2))
    d.roll("A", [1, 10])
    d.roll("B", [1, 1])
    d.roll("A", [9], purpose="maneuver table")
    p = d.expect("choose_option", "A", "pick_result")
    assert p["choices"]["options"] == ["Charge", "Outflank", "Encircle", "Withdraw"]
    d.choose_option("A", "Withdraw")
    d.roll("A", [5])
    assert [(e["player"], e["count"]) for e in d.events_of("negate")] == [("A", 3)]


# ------------------------------------------------------------------ Missile and Melee (BD L267-276)


def test_missile_is_simultaneous_destroyed_archers_still_shoot(make_game, army):
    d = make_game(army("A", infantry=1, archer=1), army("B", infantry=1, archer=1))
    d.roll("A", [1, 8])
    d.roll("B", [1, 7])
    assert d.events_of("hits", "missile")[0]["hits"] == {"A": 1, "B": 1}
    d.choose_dice("B", ["B02"], purpose="casualties")  # the owner picks: B gives up its archer
    d.choose_dice("A", ["A02"], purpose="casualties")
    assert alive_ids(d, "A") == ["A01"] and alive_ids(d, "B") == ["B01"]
    morale = d.events_of("casualties")[0]
    assert morale["casualties"] == {"A": 1, "B": 1} and morale["checking"] == []  # R07: tie, no check
    assert d.game.data["turn"] == 2


def test_r07_both_check_on_tied_casualties(make_game, army):
    d = make_game(
        army("A", infantry=1, archer=1), army("B", infantry=1, archer=1), options={"R07": "both_check"}
    )
    d.roll("A", [1, 8])
    d.roll("B", [1, 7])
    d.choose_dice("B", ["B02"])
    d.choose_dice("A", ["A02"])
    assert d.game.result == {"winner": None, "reason": "both armies rout", "loser": None}


@pytest.mark.parametrize("variant", ["kills_first", "order_only"])
def test_r05_gain_initiative(make_game, army, variant):
    d = make_game(
        army("A", general=1, infantry=1, archer=1),
        army("B", general=1, infantry=1, archer=1),
        options={"R05": variant},
    )
    d.roll("A", [4, 1, 8])
    d.roll("B", [1, 1, 7])
    d.roll("A", [6], purpose="tactics table")  # Gain Initiative
    d.choose_option("A", "missile", purpose="initiative_phase")
    d.choose_dice("B", ["B03"], purpose="casualties")  # B loses its archer to A's first strike
    if variant == "kills_first":  # B's archer is gone before it shoots; B routs (0 faces of 2-3 < 1)
        assert alive_ids(d, "A") == ["A01", "A02", "A03"]
        assert d.game.result == {"winner": "A", "reason": "rout", "loser": "B"}
    else:  # B's archer still shoots
        d.choose_dice("A", ["A01"], purpose="casualties")
        assert alive_ids(d, "A") == ["A02", "A03"] and d.game.result is None


def test_lead_the_charge_infantry_hits_on_4_and_equal_morale_holds(make_game, army):
    d = make_game(army("A", general=1, infantry=1), army("B", general=1, infantry=1))
    d.roll("A", [4, 4])
    d.roll("B", [1, 2])
    d.roll("A", [3], purpose="tactics table")  # Lead the Charge
    assert d.events_of("hits", "melee")[0]["hits"] == {"A": 1, "B": 0}
    d.choose_dice("B", ["B01"])  # keeps the d6 showing 2
    ev = d.events_of("morale")[0]
    assert (ev["player"], ev["total"], ev["casualties"], ev["routs"]) == ("B", 1, 1, False)  # equal holds


def test_without_lead_the_charge_a_4_does_not_hit(make_game, army):
    d = make_game(army("A", infantry=1), army("B", infantry=1))
    d.roll("A", [4])
    d.roll("B", [3])
    assert d.events_of("hits", "melee")[0]["hits"] == {"A": 0, "B": 0}


@pytest.mark.parametrize(("variant", "next_turn_negate"), [("end_of_turn", 0), ("until_used", 1)])
def test_negation_cancels_hits_and_r04_decides_when_it_lapses(make_game, army, variant, next_turn_negate):
    d = make_game(army("A", "dragon", infantry=1, monster=1), army("B", archer=2), options={"R04": variant})
    d.roll("A", [1, 18])
    d.roll("B", [8, 7])
    d.roll("A", [6], purpose="dragon table")  # Scales
    d.roll("A", [6])  # negate 3
    assert d.events_of("negated")[0]["count"] == 2  # both missile hits cancelled
    assert alive_ids(d, "A") == ["A01", "A02"]
    assert d.game.data["turn"] == 2 and this_turn(d, "A")["negate"] == next_turn_negate


@pytest.mark.parametrize(("variant", "reason"), [("after_each_phase", "destroyed"), ("end_of_turn", "rout")])
def test_r19_utter_destruction_checked_after_each_phase(make_game, army, variant, reason):
    d = make_game(army("A", archer=1), army("B", infantry=1), options={"R19": variant})
    d.roll("A", [8])
    d.roll("B", [6])
    assert d.game.result == {"winner": "A", "reason": reason, "loser": "B"}
    assert d.events_of("phase")[-1]["phase"] == ("missile" if reason == "destroyed" else "morale")


# ------------------------------------------------------------------ restore, control, summon


@pytest.mark.parametrize("variant", ["unrolled", "roll_at_once"])
def test_r09_restored_dice_wait_for_the_next_roll_or_roll_at_once(make_game, army, variant):
    d = make_game(
        army("A", "dragon", general=1, monster=1), army("B", general=1, infantry=1), options={"R09": variant}
    )
    d.roll("A", [4, 1])  # the dragon leaves
    d.roll("B", [1, 1])
    d.roll("A", [5], purpose="tactics table")  # Rally Troops
    d.roll("A", [3])  # 1D6 = 3, only one die can come back
    assert "A02" in alive_ids(d, "A")
    if variant == "roll_at_once":
        d.roll("A", [19], purpose="new dice")
        assert d.die("A02")["face"] == 19
    else:
        assert d.die("A02")["face"] is None


def _archmage_spell(make_game, army, spell_face, options=None):
    d = make_game(
        army("A", "archmage", infantry=1, mage=1, monster=2),
        army("B", general=1, infantry=2, archer=1),
        options=options,
    )
    d.roll("A", [2, 3, 17, 1])
    d.roll("B", [4, 5, 3, 7])
    d.roll("A", [1], purpose="archmage table")
    d.roll("A", [spell_face], purpose="spell table")
    return d


def test_death_spell_lets_the_caster_pick_the_victim(make_game, army):
    d = _archmage_spell(make_game, army, 7)
    p = d.expect("choose_dice", "A", "casualties")
    assert [c["id"] for c in p["choices"]["candidates"]] == ["B01", "B02", "B03", "B04"]
    d.choose_dice("A", ["B04"])
    assert "B04" not in alive_ids(d, "B")


@pytest.mark.parametrize(
    ("r10", "r17", "face", "casualties"),
    [("keeps_face", "counts", 7, 1), ("unrolled", "not_counted", None, 0)],
)
def test_control_r10_face_and_r17_casualty(make_game, army, r10, r17, face, casualties):
    d = _archmage_spell(make_game, army, 5, options={"R10": r10, "R17": r17})
    d.choose_dice("A", ["B04"], purpose="control")
    assert "B04" in alive_ids(d, "A") and d.die("B04")["face"] == face
    assert this_turn(d, "B")["casualties"] == casualties


@pytest.mark.parametrize(("variant", "has_monster"), [("any_type", True), ("no_monsters", False)])
def test_r22_summon_types(make_game, army, variant, has_monster):
    d = _archmage_spell(make_game, army, 6, options={"R22": variant})
    options = d.expect("choose_option", "A", "summon_type")["choices"]["options"]
    assert ("monster" in options) is has_monster and "archer" in options
    d.choose_option("A", "archer")
    d.roll("A", [3])  # 1D3 = 2
    assert sorted(alive_ids(d, "A"))[-2:] == ["A05", "A06"] and d.die("A05")["sides"] == 8


@pytest.mark.parametrize(("variant", "gained"), [("new_unit", 1), ("no_new_unit", 0)])
def test_r12_vampire_drain(make_game, army, variant, gained):
    d = make_game(army("A", "vampire", monster=1), army("B", infantry=1), options={"R12": variant})
    d.roll("A", [17])
    d.roll("B", [1])
    d.roll("A", [2], purpose="vampire table")  # Drain
    assert this_turn(d, "A")["kills"]["melee"] == 1
    assert len(d.events_of("gained")) == gained


@pytest.mark.parametrize(
    ("variant", "sides", "face", "value"), [("d6_halved", 6, 5, 3), ("d3_value", 3, 2, 2)]
)
def test_r14_how_1d3_is_entered(make_game, army, variant, sides, face, value):
    d = make_game(army("A", "dragon", monster=1), army("B", infantry=1), options={"R14": variant})
    d.roll("A", [17])
    d.roll("B", [1])
    d.roll("A", [5], purpose="dragon table")  # Wings: +1D3 maneuver
    assert d.expect("roll", "A")["choices"]["dice"][0]["sides"] == sides
    d.roll("A", [face])
    assert this_turn(d, "A")["gains"]["maneuver"] == value


@pytest.mark.parametrize(("variant", "routs"), [("less_than", False), ("at_most", True)])
def test_r24_equal_morale_total_holds_unless_house_rule(make_game, army, variant, routs):
    d = make_game(army("A", infantry=1, archer=1), army("B", infantry=1, archer=1), options={"R24": variant})
    d.roll("A", [1, 8])
    d.roll("B", [2, 1])
    d.choose_dice("B", ["B02"])  # B keeps its d6 showing 2: morale total 1 against 1 casualty
    ev = d.events_of("morale")[0]
    assert (ev["total"], ev["casualties"], ev["routs"]) == (1, 1, routs)


@pytest.mark.parametrize(("variant", "departed"), [("opponent_destruction", True), ("all_casualties", False)])
def test_r21_negations_and_monsters_leaving(make_game, army, variant, departed):
    # turn 1: A gains Scales (negate 3) and keeps it (R04 until_used); turn 2 its dragon rolls a 1
    d = make_game(
        army("A", "dragon", infantry=1, monster=1),
        army("B", infantry=2),
        options={"R21": variant, "R04": "until_used"},
    )
    d.roll("A", [1, 18])
    d.roll("B", [1, 1])
    d.roll("A", [6], purpose="dragon table")
    d.roll("A", [6])
    d.roll("A", [1, 1])  # turn 2
    d.roll("B", [1, 1])
    assert ("A02" not in alive_ids(d, "A")) is departed


@pytest.mark.parametrize(
    ("variant", "result"),
    [("still_counted", {"winner": "B", "reason": "rout", "loser": "A"}), ("reduce", None)],
)
def test_r27_restoring_a_die_lost_this_turn(make_game, army, variant, result):
    d = make_game(
        army("A", "dragon", general=1, monster=1), army("B", general=1, infantry=1), options={"R27": variant}
    )
    d.roll("A", [4, 1])  # the dragon leaves: one casualty
    d.roll("B", [1, 1])
    d.roll("A", [5], purpose="tactics table")  # Rally Troops brings it back (unrolled)
    d.roll("A", [3])
    # A alone lost a unit; its morale total is 0 (a 4 and an unrolled die)
    assert d.game.result == result
