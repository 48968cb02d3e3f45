"""Army set-up: worked example BD-01 (worked-examples.md section 6) and the set-up rules BD L48-62."""

from __future__ import annotations

import pytest

from companion.rules.battle_dice import BattleGame, SetupError, resolve_options
from companion.rules.battle_dice.rulings import RULINGS


def _setup(a, b, options=None):
    return {"armies": {"A": a, "B": b}, "options": options or {}}


# BD-01 [W] Army composition example (BD L50-62)
PLAYER_A = {
    "name": "A",
    "monsters": {"dragon": 4},
    "units": {"general": 2, "mage": 2, "archer": 4, "cavalry": 4, "infantry": 4},
}
PLAYER_B = {
    "name": "B",
    "monsters": {"archmage": 2},
    "units": {"general": 1, "mage": 6, "archer": 6, "infantry": 5},
}


def test_bd01_both_example_armies_are_legal_with_twenty_dice_each():
    game = BattleGame(_setup(PLAYER_A, PLAYER_B))
    armies = game.data["armies"]
    assert len(armies["A"]["dice"]) == 20 and len(armies["B"]["dice"]) == 20
    sizes_a = sorted(d["sides"] for d in armies["A"]["dice"])
    assert sizes_a == [4] * 2 + [6] * 4 + [8] * 4 + [10] * 4 + [12] * 2 + [20] * 4
    sizes_b = sorted(d["sides"] for d in armies["B"]["dice"])
    assert sizes_b == [4] + [6] * 5 + [8] * 6 + [12] * 6 + [20] * 2
    # one monster type each: A plays the Dragon table, B the Archmage table
    assert {d["monster"] for d in armies["A"]["dice"] if d["sides"] == 20} == {"dragon"}
    assert {d["monster"] for d in armies["B"]["dice"] if d["sides"] == 20} == {"archmage"}
    assert game.pending()["kind"] == "roll" and game.pending()["player"] == "A"


def test_bd01_dragons_and_giants_in_one_army_is_illegal():
    mixed = {**PLAYER_A, "monsters": {"dragon": 2, "giant": 2}}
    with pytest.raises(SetupError, match="only one type of monster"):
        BattleGame(_setup(mixed, PLAYER_B))


def test_bd01_nineteen_against_twenty_is_illegal():
    short = {**PLAYER_B, "units": {**PLAYER_B["units"], "infantry": 4}}
    with pytest.raises(SetupError, match="equal number of dice.*A has 20, B has 19"):
        BattleGame(_setup(PLAYER_A, short))


def test_die_size_keys_and_unit_names_are_the_same_army():
    by_size = {
        "name": "A",
        "monster": "dragon",
        "units": {"d4": 2, "d20": 4, "d12": 2, "d8": 4, "d10": 4, "d6": 4},
    }
    g1 = BattleGame(_setup(by_size, PLAYER_B))
    g2 = BattleGame(_setup(PLAYER_A, PLAYER_B))
    assert g1.data["armies"]["A"]["dice"] == g2.data["armies"]["A"]["dice"]


@pytest.mark.parametrize(
    ("army", "message"),
    [
        ({"units": {"d7": 1}}, "unknown unit type"),
        ({"units": {"d\u00b2": 1}}, "unknown unit type"),  # "²".isdigit(), but no die size
        ({"units": {"infantry": -1}}, "count must be"),
        ({"units": {"infantry": True}}, "count must be"),
        ({"units": {"monster": 1}}, "names no monster type"),
        ({"monster": "hydra", "units": {"monster": 1}}, "unknown monster type"),
        ({"units": {}}, "has no dice"),
    ],
)
def test_bad_army_lists_are_refused_with_the_fault_named(army, message):
    with pytest.raises(SetupError, match=message):
        BattleGame(_setup(army, {"units": {"infantry": 1}}))


def test_armies_must_be_a_and_b():
    with pytest.raises(SetupError, match="exactly the armies A and B"):
        BattleGame({"armies": {"A": PLAYER_A}})


def test_options_are_checked_against_the_rulings():
    assert resolve_options({"R04": "until_used"})["R04"] == "until_used"
    with pytest.raises(SetupError, match="unknown variant"):
        resolve_options({"R04": "forever"})
    with pytest.raises(SetupError, match="unknown option"):
        resolve_options({"R99": "x"})
    with pytest.raises(SetupError, match="max_turns"):
        resolve_options({"max_turns": 0})


def test_rulings_table_covers_the_twelve_inventory_gaps_first():
    ids = [r.id for r in RULINGS]
    assert ids[:12] == [f"R{i:02d}" for i in range(1, 13)]
    assert len(set(ids)) == len(ids)
    for r in RULINGS:
        assert r.default in r.variants and r.citation.startswith("BD L") and r.gap and r.why
