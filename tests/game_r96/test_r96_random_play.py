"""Random legal play: whole 1996 games, with every option set at random, never crash; every refused
answer is a ``GameRuleError`` that leaves the game unchanged."""

from __future__ import annotations

import random

from r96_helpers import setup

from companion.rules.core.errors import GameRuleError
from companion.rules.r96.game import OPTIONS, R96Game
from companion.rules.r96.game.spellbook import SPELLS


def random_answer(game: R96Game, rng: random.Random) -> dict:
    d = game.pending
    if d.kind == "roll":
        return {"type": "roll_for_me", "seed": rng.randrange(10**9)}
    if d.kind == "choice":
        return {"type": "choose", "choice": rng.choice(d.choices)["value"]}
    if d.kind == "allocate":
        if d.choices:
            return {"type": "allocate", "units": rng.choice(d.choices)["value"]}
        units = [
            u.uid
            for u in game.state.units.values()
            if game.state.location[u.uid] not in ("dua", "bua") and u.owner == d.player and u.is_unit
        ]
        return {"type": "allocate", "units": units[: d.data.get("count", 0)]}
    if d.kind == "cast":
        opts = d.data["cast_options"]
        if rng.random() < 0.4:  # any spell, any plausible target: the flow refuses what is illegal
            return {"type": "cast", "spells": [any_spell(game, rng)]}
        if opts["spells"] and opts["targets"] and rng.random() < 0.7:
            s = rng.choice(opts["spells"])
            return {
                "type": "cast",
                "spells": [{"spell": s["spell"], "target": rng.choice(opts["targets"])["value"]}],
            }
        return {"type": "cast", "spells": []}
    if d.kind == "reinforce":
        return {
            "type": "reinforce",
            "moves": {u: rng.choice(d.data["terrains"]) for u in d.data["units"] if rng.random() < 0.5},
        }
    return {"type": "retreat", "units": [u for u in d.data["units"] if rng.random() < 0.05]}


def any_spell(game: R96Game, rng: random.Random) -> dict:
    st = game.state
    c = rng.choice(list(SPELLS.values()))
    units = [u for u in st.units.values() if u.is_unit]
    in_play = [u.uid for u in units if st.location[u.uid] in st.terrains or st.location[u.uid] == "reserve"]
    dead = [u.uid for u in units if st.location[u.uid] == "dua"]
    entry: dict = {"spell": c.name, "count": rng.choice((1, 1, 2))}
    if c.target == "unit" and in_play:
        entry["units"] = [rng.choice(in_play) for _ in range(entry["count"])]
    elif c.target in ("own_dead", "any_dead"):
        entry["units"] = rng.sample(dead, min(len(dead), rng.randint(0, 2)))
    elif c.target == "own_unit" and in_play:
        entry["moves"] = {rng.choice(in_play): rng.choice(list(st.terrains))}
    elif c.target == "dragon":
        dragons = [u.uid for u in st.units.values() if u.spec.kind == "dragon"]
        entry.update(dragon=rng.choice(dragons), target=rng.choice(list(st.terrains)), count=1)
    elif c.target == "terrain":
        entry["target"] = rng.choice(list(st.terrains))
    else:
        armies = st.armies()
        entry["target"] = rng.choice(armies).id if armies else "x@y"
    return entry


def play(seed: int, players: int = 2, max_steps: int = 1500) -> R96Game:
    rng = random.Random(seed)
    options = {k: rng.choice(o.values) for k, o in OPTIONS.items() if k != "single_race_home_campaign"}
    game = R96Game(setup(players, options))
    for _ in range(max_steps):
        if game.pending is None:
            break
        answer = random_answer(game, rng)
        if answer["type"] == "choose" and game.pending.topic == "death_magic":
            answer["choice"] = "none"  # burial obliges spending; the random caster would fail it
        before = (dict(game.state.location), game.pending)
        try:
            game.apply(answer)
        except GameRuleError:
            assert (dict(game.state.location), game.pending) == before
            game.apply(
                {"type": "cast", "spells": []} if game.pending.kind == "cast" else random_answer(game, rng)
            )
    return game


def test_random_two_player_games_finish_or_run_without_errors():
    finished = 0
    for seed in range(6):
        game = play(seed)
        finished += game.over
        for a in game.state.armies():
            assert a.units
    assert finished >= 3


def test_random_three_player_game():
    play(11, players=3, max_steps=600)
