"""Random legal answers through many dragon attacks: the phase never refuses its own options, every
die stays in one place, dragons are only at terrains or in a Summoning Pool."""

from __future__ import annotations

import random

import pytest
from dragon_support import new_game, place

from companion.rules.game import play_random

# Alice's three dragons; Bob's White Dragon (counts 2) and one more: a 72-point force needs 3.
MIXES = [
    (("Red Drake", "Blue Drake", "Green / Ivory Drake"), ("White Drake", "Red / Yellow Wyrm")),
    (("Ivory Drake", "Black / Green Drake", "Yellow Wyrm"), ("White Wyrm", "Blue / Ivory Wyrm")),
]


@pytest.mark.parametrize("seed", range(6))
def test_random_play_with_dragons(seed):
    alice, bob = MIXES[seed % 2]
    mix = alice + bob
    game = new_game(
        force=72,
        dragons=(tuple(f"Dragons/{m}" for m in alice), tuple(f"Dragons/{m}" for m in bob)),
        species=("Amazons", "Goblins"),
    )
    st = game.state
    rng = random.Random(seed)
    for m in mix:
        place(game, rng.choice(sorted(st.terrains)), m)
    play_random(game, rng, max_steps=600)
    dragons = [u for u in st.units.values() if u.spec.kind == "dragon"]
    assert all(st.location[d.uid] in st.terrains or st.location[d.uid] == "pool" for d in dragons)
    assert sum(1 for line in game.log if "rolls" in line and ("Drake" in line or "Wyrm" in line)) >= 4
