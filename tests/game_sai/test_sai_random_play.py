"""Random legal play with SAI-heavy armies: every decision the SAI and species modules ask is
answerable, the game never breaks, and replaying the accepted answers rebuilds the same game."""

from __future__ import annotations

import random

import pytest
from sai_arena import arena

from companion.rules.game import random_answer

MONSTERS_1 = [
    "Lava Elves/Beholder",
    "Goblins/Cannibal",
    "Coral Elves/Leviathan",
    "Undead/Minor Death",
    "Dwarves/Behemoth",
    "Firewalkers/Phoenix",
]
MONSTERS_2 = [
    "Treefolk/Satyr",
    "Feral/Bear-folk",
    "Swamp Stalkers/Wave Rider",
    "Dwarves/Umber Hulk",
    "Frostwings/Cryohydra",
    "Undead/Vampire",
    "Amazons/Nightmare",
]


def _monster_arena():
    game, _, _ = arena(
        MONSTERS_1,
        MONSTERS_2,
        terrain="Flatland City",
        face=5,
        p1_dua=["Goblins/Thug", "Undead/Zombie"],
        p2_dua=["Frostwings/Advocate", "Treefolk/Oak"],
    )
    return game


def _play(seed: int, steps: int = 500):
    game = _monster_arena()
    rng = random.Random(seed)
    actions = []
    for _ in range(steps):
        if game.pending is None:
            break
        done = game.apply(random_answer(game, rng), rng=rng)
        actions.append({k: v for k, v in done.items() if k != "log"})
    return game, actions


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_random_play_with_sai_armies_keeps_the_state_whole_and_replays(seed):
    game, actions = _play(seed)
    st = game.state
    assert set(st.location) == set(st.units)
    for loc in st.location.values():
        assert loc in st.terrains or loc in ("reserve", "dua", "bua", "pool") or loc.startswith("unplaced")
    replay = _monster_arena()
    for action in actions:
        replay.apply(action)
    assert replay.log == game.log
    assert replay.state.location == game.state.location
