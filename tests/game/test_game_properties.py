"""Property tests: random legal play keeps the invariants; the event log replays to the same state."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.core.decisions import TOPICS
from companion.rules.core.state import AREAS
from companion.rules.game import Game, quick_setup, random_answer

SPECIES = ("Dwarves", "Goblins", "Coral Elves", "Lava Elves", "Undead", "Amazons")


def check_invariants(game: Game) -> None:
    s = game.state
    setup = s.phase == "setup"
    places = set(s.terrains) | set(AREAS)
    seen: set[str] = set()
    for army in s.armies():
        for u in army.dice:
            assert u.owner == army.owner
            assert u.uid not in seen, f"{u.uid} in two armies"
            seen.add(u.uid)
    for uid, loc in s.location.items():
        assert uid in s.units
        if not setup:
            assert loc in places, f"{uid} at unknown place {loc}"
        if loc in AREAS and loc != "reserve":
            assert uid not in seen
            seen.add(uid)
        elif loc in s.terrains and not s.units[uid].is_unit:
            seen.add(uid)  # an item carried by an army
    if not setup:
        assert seen == set(s.units), "every die is in exactly one place"
    for t in s.terrains.values():
        assert 1 <= t.face <= 8
        assert (t.controller is not None) == (t.face == 8) or setup
        if t.controller is not None:
            assert s.army(t.controller, t.id).units, "a controller always has an army there"
    for p in s.players:
        assert p.eliminated == (not s.units_in_play(p.id)) or setup
    if s.winner is not None:
        assert game.pending is None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 4),
    force=st.sampled_from([15, 24, 30]),
    steps=st.integers(50, 400),
)
def test_random_legal_play_keeps_invariants_and_replays(seed, players, force, steps):
    rng = random.Random(seed)
    names = ["Ann", "Ben", "Cid", "Dee"][:players]
    species = rng.sample(SPECIES, players)
    setup = quick_setup(
        {
            "force_size": force,
            "players": [{"name": n, "species": s} for n, s in zip(names, species, strict=True)],
        }
    )
    game = Game(setup)
    accepted = []
    for _ in range(steps):
        if game.pending is None:
            break
        action = random_answer(game, rng)
        canonical = game.apply(action)
        canonical.pop("log")
        accepted.append(canonical)
        check_invariants(game)
        assert game.pending is None or game.pending.topic in TOPICS
    # Replaying the accepted actions rebuilds the same state and the same pending decision.
    again = Game(setup)
    for action in accepted:
        again.apply(action)
    assert again.state.to_dict() == game.state.to_dict()
    assert again.pending_dict() == game.pending_dict()
    assert again.log == game.log


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_end_with_a_winner(seed):
    rng = random.Random(seed)
    game = Game(quick_setup({"force_size": 15}))
    for _ in range(20000):
        if game.pending is None:
            break
        game.apply(random_answer(game, rng))
    assert game.state.winner in game.state.player_ids
    assert game.state.phase == "game_over"


JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.text(max_size=12) | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    steps=st.integers(0, 400),
    kind=st.sampled_from(
        [
            "match",
            "match",
            "roll",
            "roll_for_me",
            "choose",
            "allocate",
            "cast",
            "reinforce",
            "retreat",
            "bogus",
        ]
    ),
    payload=st.dictionaries(
        st.sampled_from(["faces", "choice", "units", "spells", "moves", "seed", "player"]), JUNK, max_size=3
    ),
)
def test_junk_answers_are_refused_without_change(seed, steps, kind, payload):
    from companion.rules.game import GameRuleError

    rng = random.Random(seed)
    game = Game(quick_setup({"force_size": 15}))
    for _ in range(steps):
        if game.pending is None:
            return
        game.apply(random_answer(game, rng))
    if game.pending is None:
        return
    before = game.state.to_dict()
    pending = game.pending_dict()
    log_len = len(game.log)
    if kind == "match":
        kind = pending["answer"]
    try:
        game.apply({"type": kind, **payload})
    except GameRuleError:
        assert game.state.to_dict() == before and game.pending_dict() == pending and len(game.log) == log_len
    else:
        check_invariants(game)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 120), undo=st.integers(0, 5))
def test_sqlite_log_replays_to_the_same_state(seed, steps, undo):
    import tempfile
    from pathlib import Path

    from companion.session import GameSession, quick_start

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        s = quick_start(Path(tmp) / "g.db")
        done = 0
        for _ in range(steps):
            if s.pending() is None:
                break
            s.submit(random_answer(s.game, rng))
            done += 1
        if undo and done >= undo:
            s.undo(undo)
        reopened = GameSession.open(Path(tmp) / "g.db")
        assert reopened.state_dict() == s.state_dict()
        assert reopened.pending() == s.pending()
        check_invariants(reopened.game)
        s.close()
        reopened.close()
