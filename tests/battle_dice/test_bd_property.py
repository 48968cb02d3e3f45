"""Property: random legal play (any armies, any ruling variants) never crashes, always replays to the
same state from its JSON form, and refuses illegal actions without changing anything."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.battle_dice import (
    BattleDiceError,
    BattleGame,
    IllegalBattleAction,
    random_action,
    state_from_dict,
    state_to_dict,
)
from companion.rules.battle_dice.rulings import RULINGS
from companion.rules.battle_dice.tables import MONSTER_TABLES, UNIT_TYPES

UNITS = [u.name for u in UNIT_TYPES]


@st.composite
def armies(draw):
    total = draw(st.integers(1, 14))
    out = {}
    for p in ("A", "B"):
        weights = draw(st.lists(st.integers(0, 5), min_size=6, max_size=6).filter(any))
        counts = dict.fromkeys(UNITS, 0)
        picks = random.Random(draw(st.integers(0, 2**16))).choices(UNITS, weights=weights, k=total)
        for u in picks:
            counts[u] += 1
        army = {"name": p, "units": counts}
        if counts["monster"]:
            army["monster"] = draw(st.sampled_from(sorted(MONSTER_TABLES)))
        out[p] = army
    return out


options = st.fixed_dictionaries({}, optional={r.id: st.sampled_from(sorted(r.variants)) for r in RULINGS})


def _illegal_for(pending: dict) -> dict:
    if pending["kind"] == "roll":
        return {"kind": "roll", "faces": [d["sides"] + 1 for d in pending["choices"]["dice"]]}
    if pending["kind"] == "choose_dice":
        return {"kind": "choose", "dice": ["nope"] * pending["choices"]["count"]}
    return {"kind": "choose", "option": "no such option"}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(armies(), options, st.integers(0, 2**32 - 1))
def test_random_legal_play_never_crashes_and_replays_identically(army_lists, opts, seed):
    game = BattleGame({"armies": army_lists, "options": {**opts, "max_turns": 12}})
    rng = random.Random(seed)
    steps = 0
    while game.pending() is not None and steps < 400:
        if steps % 7 == 3:  # an illegal answer changes nothing
            before = state_to_dict(game)
            try:
                game.apply(_illegal_for(game.pending()))
            except IllegalBattleAction:
                pass
            assert state_to_dict(game) == before
        game.apply(random_action(game, rng))
        steps += 1
        for side in ("A", "B"):
            ids = [d["id"] for d in game.data["armies"][side]["dice"]]
            assert len(ids) == len(set(ids))
    stored = json.loads(json.dumps(state_to_dict(game)))
    again = state_from_dict(stored)
    assert again.data == game.data and again.pending() == game.pending()
    if game.pending() is None:
        assert game.result is not None
        try:
            game.apply({"kind": "roll", "faces": [1]})
        except BattleDiceError:
            pass
        else:  # pragma: no cover
            raise AssertionError("an ended game accepted an action")
    if game.actions:
        previous = BattleGame.replay(game.setup, game.actions[:-1])
        game.undo()
        assert game.data == previous.data
