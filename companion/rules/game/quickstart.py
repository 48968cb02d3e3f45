"""Build a full set-up from a compact one (for the demo, tests and benchmarks).

    quick_setup({"force_size": 24, "players": [{"name": "Alice", "species": "Dwarves"},
                                                {"name": "Bob", "species": "Goblins"}]})

Each player without ``armies`` gets three armies of their species worth a third of the force each
(large, medium and small dice in turn), a Home and a proposed Frontier terrain, and the dragons
the force size requires (V4.01c L290-292).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..catalogue import load_catalogue
from ..core.errors import IllegalSetup
from .setup import ARMY_NAMES, dragons_required

DEFAULT_SPECIES = ("Dwarves", "Goblins", "Coral Elves", "Lava Elves", "Amazons", "Undead")
DEFAULT_HOMES = (
    "Highland City",
    "Swampland Temple",
    "Coastland Tower",
    "Feyland Standing Stones",
    "Flatland City",
    "Wasteland Tower",
)
DEFAULT_FRONTIERS = (
    "Coastland Standing Stone",
    "Flatland Tower",
    "Wasteland Temple",
    "Highland Temple",
    "Swampland City",
    "Feyland City",
)
SPECIES_DRAGON = {
    "Dwarves": "Dragons/Red Drake",
    "Goblins": "Dragons/Black Wyrm",
    "Coral Elves": "Dragons/Blue Drake",
    "Lava Elves": "Dragons/Black Drake",
}


def army_of(species: str, points: int, offset: int = 0) -> list[str]:
    """Dice of `species` worth exactly `points`: large, medium, small in turn, names cycling."""
    cat = load_catalogue()
    by_size: dict[int, list[str]] = {}
    for die in cat.of_species(species):
        if die.is_unit and die.kind.value == "unit" and die.health in (1, 2, 3):
            by_size.setdefault(die.health, []).append(die.name)
    if not by_size.get(1):
        raise IllegalSetup(f"no small units of species {species!r} in the catalogue")
    out: list[str] = []
    left = points
    i = offset
    while left > 0:
        for size in (3, 2, 1):
            if size <= left and by_size.get(size):
                names = by_size[size]
                out.append(names[i % len(names)])
                left -= size
                i += 1
                if left <= 0:
                    break
    return out


def quick_setup(compact: Mapping[str, Any]) -> dict[str, Any]:
    """Expand a compact set-up (see module doc) into the full set-up ``Game`` takes."""
    force = int(compact.get("force_size", 24))
    players_in = compact.get("players") or [{"name": "Alice"}, {"name": "Bob"}]
    players = []
    for i, p in enumerate(players_in):
        p = dict(p)
        species = p.pop("species", DEFAULT_SPECIES[i % len(DEFAULT_SPECIES)])
        p.setdefault("home", DEFAULT_HOMES[i % len(DEFAULT_HOMES)])
        p.setdefault("frontier", DEFAULT_FRONTIERS[i % len(DEFAULT_FRONTIERS)])
        if "armies" not in p:
            third = force // 3
            shares = [force - 2 * third, third, third]
            p["armies"] = {
                name: army_of(species, pts, k)
                for k, (name, pts) in enumerate(zip(ARMY_NAMES, shares, strict=True))
            }
        if "dragons" not in p:
            p["dragons"] = [SPECIES_DRAGON.get(species, "Dragons/Red Drake")] * dragons_required(force)
        players.append(p)
    out = {k: v for k, v in compact.items() if k != "players"}
    out["force_size"] = force
    out["players"] = players
    assert math.isfinite(force)
    return out
