"""Terrain dice in the flow: type, elements, the action icon of each face, the eighth-face icon.

The faces come from the dice catalogue (``Terrains/<Type> <Icon>``): faces 1-7 carry an action icon
(magic, missile or melee), face 8 the eighth-face icon (V4.01c L166-180, L499-540).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ..catalogue import DieKind, load_catalogue
from .errors import IllegalSetup

MAGIC, MISSILE, MELEE = "magic", "missile", "melee"
ACTIONS = (MELEE, MISSILE, MAGIC)
STANDARD_ICONS = ("City", "Standing Stones", "Temple", "Tower")
ADVANCED_ICONS = ("Castle", "Dragons Lair", "Grove", "Vortex")  # V4.01c L2565-2590


@dataclass(frozen=True)
class TerrainKind:
    """A terrain die design: its type (Highland ...), eighth-face icon, elements and face icons."""

    name: str  # catalogue name without "Terrains/", e.g. "Highland City"
    type: str
    icon: str
    elements: tuple[str, ...]
    face_actions: tuple[str, ...]  # faces 1..7

    @property
    def advanced(self) -> bool:
        """Advanced terrains may only be used as the Frontier (V4.01c L2566)."""
        return self.icon in ADVANCED_ICONS

    def action_at(self, face: int) -> str:
        """The action icon on `face` (1-7); face 8 shows the eighth-face icon instead."""
        if not 1 <= face <= 7:
            raise ValueError(f"face {face} has no action icon (faces 1-7 do)")
        return self.face_actions[face - 1]


@cache
def parse_terrain(name: str) -> TerrainKind:
    """The terrain called `name` ("Highland City", "Terrains/Coastland Standing Stone")."""
    if not isinstance(name, str) or not name.strip():
        raise IllegalSetup(f"terrain {name!r} is not a terrain name such as 'Highland City'")
    full = name if name.lower().startswith("terrains/") else f"Terrains/{name}"
    cat = load_catalogue()
    # The face data spells the icon "Standing Stone" on some types and "Standing Stones" on others.
    tries = [
        full,
        full.replace("Standing Stones", "Standing Stone"),
        full.replace("Standing Stone", "Standing Stones"),
        full.replace("Dragon's Lair", "Dragons Lair"),
    ]
    die = next((cat.find(t) for t in tries if cat.find(t) is not None), None)
    if die is None:
        raise IllegalSetup(
            f"unknown terrain {name!r}: expected '<Type> <eighth-face icon>', e.g. 'Highland City'",
            "V4.01c L166-180",
        )
    if die.kind is not DieKind.TERRAIN:
        raise IllegalSetup(f"{name!r} is a {die.kind.value}, not a (major) terrain", "V4.01c L282-289")
    by_number = {f.count: f.icon for f in die.faces}
    actions = tuple(by_number[i].lower() for i in range(1, 8))
    return TerrainKind(
        name=die.short_name,
        type=die.terrain_type or die.short_name.split(" ")[0],
        icon=die.eighth_face or by_number[8],
        elements=tuple(sorted(str(e) for e in die.elements)),
        face_actions=actions,
    )


def terrain_action(name: str, face: int) -> str:
    """The action terrain `name` allows at `face` ("melee", "missile", "magic"; ``TerrainKind.action_at``)."""
    return parse_terrain(name).action_at(face)
