"""What a roll needs comes in the decision itself (``need``, ``need_note``), from the flow that asks the
roll: the page's odds read it instead of a number parsed out of the English prompt (issue 22)."""

from __future__ import annotations

import random

import pytest

from companion.rules import start_game
from companion.rules.game import quick_setup
from companion.rules.game.flow import random_answer
from companion.rules.r96.game import quick_setup as r96_quick_setup


def _rolls_seen(setup: dict, seeds: range, steps: int = 900):
    """(decision data, the state's last roll before it) of every roll decision of some random games."""
    for seed in seeds:
        game, rng = start_game(setup), random.Random(seed)
        for _ in range(steps):
            if game.pending is None:
                break
            p = game.pending_dict()
            if p["kind"] == "roll":
                yield p, game.state.to_dict().get("last_roll") or {}
            answer = random_answer(game, rng)
            if p.get("topic") == "death_magic":  # no burial: its black points would all have to be spent
                answer = {"type": "choose", "choice": "none"}
            game.apply(answer, rng)


def _check(setup: dict, maneuvers) -> None:
    saves = counters = 0
    for p, last in _rolls_seen(setup, range(6)):
        if p.get("roll") == "save" and (
            "for saves against" in p["prompt"] or "roll saves against" in p["prompt"]
        ):
            saves += 1
            assert isinstance(p.get("need"), int) and p["need"] > 0 and "saves" in p["need_note"], p
        if (
            "counter-maneuver" in p["prompt"]
            and last.get("roll") == "maneuver"
            and last.get("army") != p["army"]
            and not last.get("counter")
        ):
            counters += 1
            assert p["need"] == maneuvers(last) + 1, (p, last)
    assert saves > 0 and counters > 0, (saves, counters)  # the games did reach both kinds of roll


def test_v4_save_rolls_and_counter_maneuvers_say_what_they_need():
    setup = quick_setup({"players": [{"name": "Ann"}, {"name": "Bob"}]})
    _check(setup, lambda last: int(last["total"]))


def test_1996_save_rolls_and_counter_maneuvers_say_what_they_need():
    setup = r96_quick_setup({"players": [{"name": "Ann"}, {"name": "Bob"}]})
    _check(setup, lambda last: int((last.get("totals") or {}).get("maneuver", 0)))


def test_a_choice_of_true_is_not_the_choice_1_nor_1_the_choice_true():
    from companion.rules.core.decisions import IllegalChoice, choice, choose_validator

    numbers = choose_validator([choice(1, "one"), choice(2, "two")])
    assert numbers({"choice": 1}) == 1 and numbers({"choice": 2.0}) == 2
    for bad in (True, False, "1"):
        with pytest.raises(IllegalChoice):
            numbers({"choice": bad})
    yes_no = choose_validator([choice(True, "yes"), choice(False, "no")])
    assert yes_no({"choice": True}) is True
    for bad in (1, 0):
        with pytest.raises(IllegalChoice):
            yes_no({"choice": bad})
