"""``companion battle``: play with 'roll for me', list rulings and tables."""

from __future__ import annotations

import io
import json

from companion.cli import main
from companion.rules.battle_dice import state_from_dict


def test_play_with_a_seed_prints_the_log_to_a_result(capsys):
    assert main(["battle", "play", "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Turn 1: roll phase"
    assert out[-1].startswith(("Army A wins", "Army B wins", "Draw"))
    assert main(["battle", "play", "--seed", "3"]) == 0
    assert capsys.readouterr().out.splitlines() == out  # same seed, same game


def test_play_json_is_a_stored_game_that_replays(capsys):
    assert main(["battle", "play", "--seed", "4", "--option", "R04=until_used", "--json"]) == 0
    stored = json.loads(capsys.readouterr().out)
    assert stored["setup"]["options"]["R04"] == "until_used"
    game = state_from_dict(stored)
    assert game.result is not None and game.data == stored["state"]


def test_play_interactive_reads_faces_and_enter_rolls_for_me(capsys, monkeypatch):
    # A types its 4 faces; everything after is Enter (roll for me / first choice)
    monkeypatch.setattr("sys.stdin", io.StringIO("4 6 8 20\n" + "\n" * 2000))
    assert (
        main(
            [
                "battle",
                "play",
                "--interactive",
                "--army-a",
                "dragon:general=1,infantry=1,archer=1,monster=1",
                "--army-b",
                "infantry=4",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "Army A rolls d4:4 d6:6 d8:8 d20:20" in out


def test_bad_army_or_option_exits_2_naming_the_fault(capsys):
    assert main(["battle", "play", "--army-b", "infantry=3"]) == 2
    assert "equal number of dice" in capsys.readouterr().err
    assert main(["battle", "play", "--option", "R04=forever"]) == 2
    assert "unknown variant" in capsys.readouterr().err


def test_bad_counts_and_repeated_units_exit_2_naming_the_fault(capsys):
    assert main(["battle", "play", "--option", "max_turns=abc"]) == 2
    assert "option max_turns must be a whole number, not 'abc'" in capsys.readouterr().err
    assert main(["battle", "play", "--army-a", "infantry=\u00b2"]) == 2  # "²".isdigit(), int() refuses
    assert "army part 'infantry=\u00b2' must look like unit=count" in capsys.readouterr().err
    # a unit named twice was the last count only (A had 10 dice, not 20): refused by name
    assert main(["battle", "play", "--army-a", "infantry=10,infantry=10"]) == 2
    assert "unit 'infantry' is given twice" in capsys.readouterr().err


def test_interactive_faces_in_other_digits_are_refused_and_asked_again(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("\u00b2 6 8 20\n" + "\n" * 2000))
    args = ["battle", "play", "--interactive", "--army-b", "infantry=4"]
    assert main([*args, "--army-a", "dragon:general=1,infantry=1,archer=1,monster=1"]) == 0
    assert "refused: a face must be a whole number, not '\u00b2'" in capsys.readouterr().err


def test_rulings_and_tables_listings(capsys):
    assert main(["battle", "rulings", "--json"]) == 0
    rulings = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rulings][:12] == [f"R{i:02d}" for i in range(1, 13)]
    assert main(["battle", "tables", "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)
    assert len(tables) == 17 and tables["giant"]["rows"][-1]["range"] == [9, 10]
