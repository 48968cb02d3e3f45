"""The registry of games (companion.rules.games): V4.01c, 1996 and Battle Dice behind one TableGame
interface, chosen from the set-up; the session starts every game through it."""

from __future__ import annotations

import random

import pytest

from companion.rules.core.errors import GameRuleError, IllegalSetup
from companion.rules.games import GAMES, TableGame, full_setup, game_for, game_key, start_game
from companion.session import GameSession

PLAYERS = [{"name": "Ann", "species": "Dwarves"}, {"name": "Ben", "species": "Goblins"}]
SETUPS = {
    "v4": {"force_size": 24, "players": PLAYERS},
    "r96": {"edition": "r96", "players": PLAYERS},
    "battle_dice": {
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
    },
}


@pytest.mark.parametrize("key", sorted(SETUPS))
def test_each_game_starts_from_its_set_up_and_plays_through_the_one_interface(key):
    setup = SETUPS[key]
    assert game_key(setup) == key and game_for(setup) is GAMES[key]
    game = start_game(full_setup(setup))
    assert isinstance(game, TableGame)
    pending = game.pending_dict()
    assert pending["kind"] == "roll" and pending["answer"] == "roll" and pending["dice"]
    assert game.state.player(pending["player"]).name in ("Ann", "Ben", "Reds", "Blues")
    accepted = game.apply({"type": "roll_for_me", "seed": 3}, random.Random(3))
    assert accepted["type"] == "roll" and len(accepted["faces"]) == len(pending["dice"])  # faces logged
    before = game.pending_dict()
    with pytest.raises(GameRuleError):
        game.apply({"type": "no such answer"})
    assert game.pending_dict() == before  # an illegal answer changes nothing


def test_the_games_name_their_rule_documents():
    assert {k: g.document for k, g in GAMES.items()} == {"v4": "V4.01c", "r96": "R96", "battle_dice": "BD"}


@pytest.mark.parametrize("bad", [None, "v4", ["players"], 3])
def test_a_set_up_that_is_not_an_object_is_refused(bad, tmp_path):
    with pytest.raises(IllegalSetup, match="JSON object"):
        full_setup(bad)
    with pytest.raises(IllegalSetup, match="JSON object"):
        GameSession.create(tmp_path / "g.db", bad)
    assert not (tmp_path / "g.db").exists()  # nothing written


@pytest.mark.parametrize("key", sorted(SETUPS))
def test_the_session_plays_every_game_of_the_registry(key, tmp_path):
    with GameSession.create(tmp_path / f"{key}.db", SETUPS[key]) as s:
        assert isinstance(s.game, type(start_game(full_setup(SETUPS[key]))))
        s.submit({"type": "roll_for_me", "seed": 1})
        assert s.state_dict()["seq"] == 2
        pending = s.pending()
    with GameSession.open(tmp_path / f"{key}.db") as again:  # replayed from the log
        assert again.state_dict()["seq"] == 2 and again.pending() == pending


def test_both_dragon_dice_flows_answer_with_one_apply():
    """apply (type, player, roll_for_me, validation) is written once for both editions' flows."""
    from companion.rules.core.decision_flow import DecisionFlow
    from companion.rules.game import Game
    from companion.rules.r96.game import R96Game

    assert Game.apply is R96Game.apply is DecisionFlow.apply
    for key in ("v4", "r96"):
        game = start_game(full_setup(SETUPS[key]))
        with pytest.raises(GameRuleError, match="with a 'roll' action \\(or 'roll_for_me'\\), not 'choose'"):
            game.apply({"type": "choose", "choice": 1})
        with pytest.raises(GameRuleError, match="it is p1's decision, not p2's"):
            game.apply({"type": "roll_for_me", "seed": 1, "player": "p2"})


@pytest.mark.parametrize("key", sorted(SETUPS))
def test_each_game_says_what_the_dice_set_so_far_add_up_to(key):
    """``roll_so_far``: no die set adds up to nothing, some face of one die alone counts, an unknown die
    is refused.  The 1996 and Battle Dice games answer without changing (the V4.01c one plays the roll
    to build it, so the page asks a copy)."""
    game = start_game(full_setup(SETUPS[key]))
    pending = game.pending_dict()
    with pytest.raises(GameRuleError):
        start_game(full_setup(SETUPS[key])).roll_so_far({"no-such-die": pending["dice"][0]["faces"][0]})
    nothing = start_game(full_setup(SETUPS[key])).roll_so_far({})
    assert nothing is not None and set(nothing.values()) == {0}
    die = pending["dice"][0]
    totals = [start_game(full_setup(SETUPS[key])).roll_so_far({die["uid"]: f}) for f in die["faces"]]
    assert all(t is not None for t in totals) and any(sum(t.values()) > 0 for t in totals)
    if key != "v4":
        log = list(game.log)
        game.roll_so_far({die["uid"]: die["faces"][-1]})
        assert game.pending_dict() == pending and game.log == log
