"""Army rolls: from the faces that came up to a total, through the die roll resolution engine.

The flow never counts icons itself: it builds a request (which dice, which faces, what the roll is
for, where) and hands it to ``companion.rules`` resolution (V4.01c L1002-1030).  ``RollOutcome`` keeps
the total, the magic of each die (for element accounting) and the explained steps for the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .state import Unit
from .terrains import TerrainKind

ROLL_TYPES = ("maneuver", "melee", "missile", "magic", "save")


@dataclass(frozen=True)
class ArmyRoll:
    """One army roll to resolve."""

    roll: str  # one of ROLL_TYPES
    dice: tuple[tuple[Unit, str], ...]  # (die, face text that came up)
    terrain: TerrainKind | None = None  # None: not at a terrain (reserve, order of play)
    eighth_face: bool = False  # the army controls this terrain's eighth face (IDs doubled, V4.01c L508)
    against: str | None = None  # for saves: "melee" or "missile"
    counter_attack: bool = False
    order_of_play: bool = False  # count only maneuver results; ignore special results (V4.01c L312-315)
    ids_count: bool = True  # False: Tower missile against a Reserve army (V4.01c L533-535)


@dataclass
class RollOutcome:
    total: int
    magic_by_die: dict[str, int] = field(default_factory=dict)  # uid -> magic results
    steps: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"total": self.total, "magic_by_die": dict(self.magic_by_die), "steps": list(self.steps)}


def resolve_army_roll(request: ArmyRoll) -> RollOutcome:
    """Resolve an army roll (see module doc)."""
    return _interim_count(request)


def _interim_count(request: ArmyRoll) -> RollOutcome:
    # Normal icons and IDs only, until the resolution engine is wired in.
    from ..catalogue import parse_face

    want = request.roll.capitalize()
    total = 0
    magic: dict[str, int] = {}
    steps = []
    for unit, text in request.dice:
        face = parse_face(text, default_count=unit.health)
        n = 0
        if face.is_id and request.ids_count:
            n = face.count * (2 if request.eighth_face else 1)
        elif face.icon == want:
            n = face.count
        total += n
        if request.roll == "magic":
            magic[unit.uid] = n
        steps.append(f"{unit.name}: {text} -> {n}")
    return RollOutcome(total, magic, steps)
