"""1996 dragons (R96 L826-920): what each dragon face does, and who attacks whom.

Values follow R96, never the numbers printed in the shared face data (those are the V4 values):
claws 5 damage, jaws 10, tail 3 and roll again, belly: no automatic saves this attack, breath by
colour, treasure (wyrms) and wing (drakes).  A dragon has 5 health and 5 automatic saves, so 10
damage slays it, 5 on a belly (R96 L898-900).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.state import Unit
from .setup import dragon_colour

DAMAGE = {"Claw": 5, "Jaw": 10, "Tail": 3}  # R96 L872-880
HEALTH = 5
AUTO_SAVES = 5  # R96 L898-900
BREATHS = {  # R96 L853-870
    "gold": "Turn to Stone: five units roll alone; each that rolls no save dies",
    "blue": "Paralysis: the army rolls only saves until its owner's next turn",
    "red": "Flame: five health-worth of units are killed and buried",
    "green": "Frost: every roll of the army is halved until its owner's next turn",
    "black": "Disease: every unit rolls; those showing their ID are killed and buried",
}


@dataclass
class DragonRoll:
    """The faces a dragon rolled (a tail rolls again, R96 L876-880) and what they add up to."""

    dragon: Unit
    faces: list[str]

    @property
    def icons(self) -> list[str]:
        return [self.dragon.spec.find_face(f).icon for f in self.faces]

    @property
    def damage(self) -> int:
        return sum(DAMAGE.get(i, 0) for i in self.icons)

    @property
    def belly(self) -> bool:
        return "Belly" in self.icons

    @property
    def breath(self) -> bool:
        return "Breath" in self.icons

    @property
    def treasure(self) -> bool:
        return "Treasure" in self.icons

    @property
    def wing(self) -> bool:
        return "Wing" in self.icons

    @property
    def rolls_again(self) -> bool:
        return bool(self.icons) and self.icons[-1] == "Tail"

    @property
    def colour(self) -> str:
        return dragon_colour(self.dragon.spec)


def kill_threshold(belly: bool, saves_negated: bool) -> int:
    """Damage that slays a dragon: its health plus its automatic saves unless a belly or a breath
    negates them (R96 L843-849, L893-899)."""
    return HEALTH + (0 if belly or saves_negated else AUTO_SAVES)


def fight_at(dragons: list[Unit]) -> bool:
    """Dragons of different colours at one terrain fight each other, not the army (R96 L907-915)."""
    return len({dragon_colour(d.spec) for d in dragons}) > 1


def legal_dragon_targets(dragon: Unit, dragons: list[Unit]) -> list[Unit]:
    """A dragon attacks a dragon of another colour; same colours team up (R96 L911-915)."""
    mine = dragon_colour(dragon.spec)
    return [d for d in dragons if dragon_colour(d.spec) != mine]
