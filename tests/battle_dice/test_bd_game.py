"""A full scripted game to a rout, illegal actions that change nothing, undo, and storing a game."""

from __future__ import annotations

import json

import pytest

from companion.rules.battle_dice import (
    BadChoice,
    BadFaces,
    BattleGame,
    BattleOver,
    IllegalBattleAction,
    ReplayMismatch,
    WrongPlayer,
    apply,
    new_game,
    pending,
    state_from_dict,
    state_to_dict,
    undo,
)

SETUP = {
    "armies": {
        "A": {"name": "Alba", "units": {"general": 1, "infantry": 2, "archer": 1, "cavalry": 1, "mage": 1}},
        "B": {"name": "Bryn", "units": {"general": 1, "infantry": 3, "archer": 1, "mage": 1}},
    }
}


def test_full_scripted_game_ends_in_a_rout(make_game, army):
    # ids: A01 d4, A02 d6, A03 d6, A04 d8, A05 d10, A06 d12 | B01 d4, B02-B04 d6, B05 d8, B06 d12
    d = make_game(SETUP["armies"]["A"], SETUP["armies"]["B"])
    # ---- turn 1
    d.roll("A", {"d4": [4], "d6": [5, 2], "d8": [7], "d10": [3], "d12": [1]})  # grouped by die size
    d.roll("B", [1, 6, 3, 2, 1, 2])
    assert d.events_of("contest", "general")[0]["totals"] == {"A": 1, "B": 0}
    d.roll("A", [4], purpose="tactics table")  # Direct the Fire: archers also hit on 6
    assert d.events_of("contest", "magic")[0]["totals"] == {"A": 0, "B": 0}
    assert d.events_of("contest", "maneuver")[0]["totals"] == {"A": 0, "B": 0}
    assert d.events_of("hits", "missile")[0]["hits"] == {"A": 1, "B": 0}
    d.choose_dice("B", ["B05"], purpose="casualties")
    assert d.events_of("hits", "melee")[0]["hits"] == {"A": 1, "B": 1}
    d.choose_dice("B", ["B01"], purpose="casualties")
    d.choose_dice("A", ["A05"], purpose="casualties")
    morale = d.events_of("morale")[0]  # B lost 2, A lost 1: B checks with 3 dice showing 2 or 3
    assert (morale["player"], morale["total"], morale["casualties"], morale["routs"]) == ("B", 3, 2, False)
    # ---- turn 2
    assert d.game.data["turn"] == 2
    d.roll("A", [4, 6, 6, 8, 11])
    d.roll("B", [1, 1, 5, 12])
    d.roll("A", [2], purpose="tactics table")  # Leadership: morale +1D6
    d.roll("A", [3])
    assert d.events_of("contest", "magic")[-1]["totals"] == {"A": 1, "B": 1}  # tie: nobody rolls (R06)
    d.choose_dice("B", ["B02"], purpose="casualties")  # one missile hit
    assert d.events_of("hits", "melee")[-1]["hits"] == {"A": 2, "B": 1}
    d.choose_dice("B", ["B03", "B06"], purpose="casualties")
    d.choose_dice("A", ["A06"], purpose="casualties")
    morale = d.events_of("morale")[-1]
    assert (morale["player"], morale["total"], morale["casualties"], morale["routs"]) == ("B", 0, 3, True)
    assert d.game.result == {"winner": "A", "reason": "rout", "loser": "B"}
    assert d.game.pending() is None
    with pytest.raises(BattleOver):
        d.game.apply({"kind": "roll", "faces": [1]})
    assert d.events_of("result")[0]["text"] == "Alba wins: Bryn rout"


ILLEGAL = [
    ({"kind": "roll", "faces": [1, 2, 3]}, BadFaces, "expected 6 face"),
    ({"kind": "roll", "faces": [4, 7, 1, 1, 1, 1]}, BadFaces, "impossible on a d6"),
    ({"kind": "roll", "faces": [4, 1.5, 1, 1, 1, 1]}, BadFaces, "whole number"),
    # digits int() refuses or reads otherwise ("²".isdigit() is true): refused, not a ValueError
    ({"kind": "roll", "faces": ["\u00b2", 1, 1, 1, 1, 1]}, BadFaces, "whole number"),
    ({"kind": "roll", "faces": {"d4": [1], "d6": [1, 1], "d\u00b2": [1]}}, BadFaces, "must name exactly"),
    ({"kind": "roll", "faces": {"d6": [1]}}, BadFaces, "expected 2 d6"),
    ({"kind": "roll", "faces": {"d6": [1, 1]}}, BadFaces, "missing faces for 1 d4"),
    ({"kind": "roll", "faces": {"A01": 1}}, BadFaces, "must name exactly"),
    ({"kind": "roll", "player": "B", "faces": [1, 1, 1, 1, 1, 1]}, WrongPlayer, "player A must decide"),
    ({"kind": "choose", "option": "melee"}, IllegalBattleAction, "expected a 'roll' action"),
    ("roll", IllegalBattleAction, "JSON object"),
    ({"kind": "roll", "seed": 1.5}, IllegalBattleAction, "seed must be"),
]


@pytest.mark.parametrize(("action", "error", "message"), ILLEGAL)
def test_illegal_rolls_raise_and_change_nothing(action, error, message):
    game = new_game(SETUP)
    before = state_to_dict(game)
    with pytest.raises(error, match=message):
        apply(game, action)
    assert state_to_dict(game) == before


def test_illegal_choices_raise_and_change_nothing(make_game):
    d = make_game(SETUP["armies"]["A"], SETUP["armies"]["B"])
    d.roll("A", [4, 5, 2, 7, 3, 1])
    d.roll("B", [1, 6, 3, 2, 1, 2])
    d.roll("A", [6], purpose="tactics table")  # Gain Initiative: choose the phase
    before = state_to_dict(d.game)
    for action, error in [
        ({"kind": "choose", "option": "magic"}, BadChoice),
        ({"kind": "choose", "option": "missile", "player": "B"}, WrongPlayer),
        ({"kind": "roll", "faces": [1]}, IllegalBattleAction),
    ]:
        with pytest.raises(error):
            d.game.apply(action)
        assert state_to_dict(d.game) == before
    d.choose_option("A", "melee")
    d.expect("choose_dice", "B", "casualties")  # A's missile hit
    before = state_to_dict(d.game)
    for dice in (["A01"], ["B05", "B05"], [], ["B05", "B06"], "B05"):
        with pytest.raises(BadChoice):
            d.game.apply({"kind": "choose", "dice": dice})
        assert state_to_dict(d.game) == before


def test_undo_takes_back_one_action_and_replays_the_rest():
    game = new_game(SETUP)
    apply(game, {"kind": "roll", "faces": [4, 5, 2, 7, 3, 1]})
    after_a = state_to_dict(game)
    apply(game, {"kind": "roll", "faces": [1, 6, 3, 2, 1, 2]})
    assert pending(game)["purpose"] == "tactics table"
    undo(game)
    assert state_to_dict(game) == after_a
    undo(game)
    assert game.actions == [] and pending(game)["player"] == "A"
    with pytest.raises(IllegalBattleAction, match="nothing to undo"):
        undo(game)


def test_state_round_trips_through_json_and_detects_tampering():
    game = new_game(SETUP)
    apply(game, {"kind": "roll", "seed": 11})
    apply(game, {"kind": "roll", "seed": 12})
    stored = json.loads(json.dumps(state_to_dict(game)))
    assert stored["actions"][0]["source"] == "rng" and len(stored["actions"][0]["faces"]) == 6
    again = state_from_dict(stored)
    assert state_to_dict(again) == state_to_dict(game)
    stored["state"]["armies"]["A"]["dice"][0]["face"] = 99
    with pytest.raises(ReplayMismatch):
        state_from_dict(stored)
    stored = state_to_dict(game)
    stored["actions"][1]["faces"] = [9, 9, 9, 9, 9, 9]
    with pytest.raises(ReplayMismatch, match="action 1"):
        state_from_dict(stored)


def test_seeded_roll_for_me_is_reproducible():
    g1, g2 = BattleGame(SETUP), BattleGame(SETUP)
    g1.apply({"kind": "roll", "seed": "table-7"})
    g2.apply({"kind": "roll", "seed": "table-7"})
    assert g1.actions == g2.actions
    g3 = BattleGame(SETUP)
    g3.apply({"kind": "roll", "seed": "table-8"})
    assert g3.actions[0]["faces"] != g1.actions[0]["faces"]
