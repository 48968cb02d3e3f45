"""Battle Dice as a second game type of the durable GameSession (real SQLite file)."""

from __future__ import annotations

import random

import pytest

from companion.rules.core.errors import GameRuleError, IllegalSetup
from companion.session import GameSession

SETUP = {
    "game": "battle_dice",
    "armies": {
        "A": {
            "name": "Reds",
            "monster": "dragon",
            "units": {"general": 2, "monster": 4, "mage": 2, "archer": 4, "cavalry": 4, "infantry": 4},
        },
        "B": {
            "name": "Blues",
            "monster": "archmage",
            "units": {"general": 1, "monster": 2, "mage": 6, "archer": 6, "infantry": 5},
        },
    },
}


def _answer(session, rng):
    p = session.pending()
    if p["kind"] == "roll":
        return session.submit({"type": "roll_for_me", "seed": rng.randrange(10**6)})
    if p["kind"] == "choice":
        return session.submit({"type": "choose", "choice": rng.choice(p["choices"])["value"]})
    assert p["kind"] == "allocate" and p["choices"]
    return session.submit({"type": "allocate", "units": rng.choice(p["choices"])["value"]})


def test_a_battle_dice_game_is_played_logged_undone_and_reopened(tmp_path):
    db = tmp_path / "battle.db"
    session = GameSession.create(db, SETUP)
    first = session.pending()
    assert (first["player"], first["player_name"], first["kind"]) == ("A", "Reds", "roll")
    assert [d["die"] for d in first["dice"]].count("d20") == 4
    with pytest.raises(GameRuleError, match="impossible on a d4"):
        session.submit({"type": "roll", "faces": [9] * 20})
    assert session.state_dict()["seq"] == 1  # nothing written
    rng = random.Random(5)
    while session.pending() is not None:
        _answer(session, rng)
    state = session.state_dict()
    assert state["phase"] == "game_over" and state["result"]["reason"] in (
        "rout",
        "destroyed",
        "both armies rout",
    )
    assert state["log"][-1].startswith(("Reds wins", "Blues wins", "Draw"))
    session.undo()
    assert session.pending() is not None
    before = session.state_dict()
    session.close()
    reopened = GameSession.open(db)  # replayed from the SQLite log
    after = reopened.state_dict()
    assert after["armies"] == before["armies"] and after["pending"] == before["pending"]
    out = reopened.export(tmp_path / "battle.json")
    copy = GameSession.import_file(tmp_path / "copy.db", out)
    assert copy.state_dict()["armies"] == after["armies"]
    reopened.close()
    copy.close()


def test_an_illegal_battle_dice_setup_is_refused_before_anything_is_written(tmp_path):
    bad = {**SETUP, "armies": {**SETUP["armies"], "B": {"name": "Blues", "units": {"infantry": 3}}}}
    with pytest.raises(IllegalSetup, match="equal number of dice"):
        GameSession.create(tmp_path / "bad.db", bad)
    assert not (tmp_path / "bad.db").exists()


def test_listed_casualty_sets_are_distinct_legal_and_few():
    from companion.rules.battle_dice.decisions import BattleDecision
    from companion.rules.battle_dice.session_game import MAX_LISTED_SETS, _distinct_sets

    same = [{"id": f"B{i}", "owner": "B", "sides": 6, "face": 5, "label": f"d6 B{i}"} for i in range(3)]
    other = [{"id": "B9", "owner": "B", "sides": 8, "face": 7, "label": "d8 B9"}]
    sets = _distinct_sets(
        BattleDecision("B", "choose_dice", "lose 2", "casualties", count=2, candidates=same + other)
    )
    assert [s["value"] for s in sets] == [["B0", "B1"], ["B0", "B9"]]  # equal dice are interchangeable
    assert sets[0]["label"] == "Lose d6 B0 + d6 B1"
    many = [{"id": f"B{i}", "owner": "B", "sides": 6, "face": i, "label": str(i)} for i in range(20)]
    sets = _distinct_sets(
        BattleDecision("B", "choose_dice", "lose 10", "casualties", count=10, candidates=many)
    )
    assert len(sets) == MAX_LISTED_SETS
    assert all(len(set(s["value"])) == 10 for s in sets) and len({tuple(s["value"]) for s in sets}) == len(
        sets
    )
