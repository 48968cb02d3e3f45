"""What a roll plug-in hands to die roll resolution: results, modifiers, re-rolls and effects.

The resolution engine (V4.01c L1011-1030) asks three families of plug-ins what they add to a roll:
special action icons (SAIs, V4.01c L1178-2080), species abilities (L771-998) and spells
(L2085-2446).  They answer with the value types below; the engine places each piece at its step:

* ``results``   - action results an SAI generates: added at step 8 (after subtract and divide).
* ``modifiers`` - subtract (step 6), divide (step 7), multiply (step 9), add (step 10).
* ``counts_as`` - "may count X results as Y results": an adding modifier at step 10 (L1040-1048).
* ``rerolls``   - the die is rolled again and the new face applied as well (Rend, Bullseye ...).
* ``effects``   - everything else the game flow must do (kills, burials, moves, lasting effects),
  as structured data with its citation; this module never changes the game state itself.

Result type names are the catalogue's (``"Maneuver"``, ``"Melee"``, ``"Missile"``, ``"Magic"``,
``"Save"``).  Everything here is pure data: no I/O, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

MANEUVER, MELEE, MISSILE, MAGIC, SAVE = "Maneuver", "Melee", "Missile", "Magic", "Save"
RESULT_TYPES: tuple[str, ...] = (MANEUVER, MELEE, MISSILE, MAGIC, SAVE)

#: A result that is not counted by any ordinary total: Cantrip magic outside a magic action,
#: spendable only on spells flagged C (V4.01c L1296-1306, L2103-2108).
CANTRIP_MAGIC = "Cantrip magic"


class Op(StrEnum):
    """Kinds of roll modifier, in the order die roll resolution applies them (L1011-1030)."""

    SUBTRACT = "subtract"  # step 6
    DIVIDE = "divide"  # step 7
    MULTIPLY = "multiply"  # step 9
    ADD = "add"  # step 10

    @property
    def step(self) -> int:
        return {"subtract": 6, "divide": 7, "multiply": 9, "add": 10}[self.value]


class Scope(StrEnum):
    """Whose roll a modifier changes."""

    THIS_ROLL = "this roll"  # the roll being resolved (army or individual)
    ONE_UNIT = "one unit of this roll"  # a unit modifier inside an army roll (Elevate, Wilding)
    UNITS_OF_SPECIES = "units of a species in this roll"  # Trumpet (Feral)
    DEFENDER_SAVE_ROLL = "the defending army's save roll against this attack"  # Howl, Screech, Wave
    COUNTER_MANEUVER = "each counter-maneuvering army's roll"  # Wave while marching
    TARGET_ARMY_ROLLS = "every roll of the target army until the beginning of your next turn"
    OWN_ARMY_ROLLS = "this army's rolls until the beginning of your next turn"  # Cloak
    TERRAIN_ROLLS = "every army roll at this terrain"  # Chill Wind (Earthfang)


@dataclass(frozen=True, slots=True)
class TableModifier:
    """A roll modifier.  ``result`` is a result type, or ``None`` for "results" of any type
    (Ash Storm, Palsy, Wither: the roller applies it to the type(s) the roll counts)."""

    op: Op
    result: str | None
    amount: int
    source: str
    citation: str
    scope: Scope = Scope.THIS_ROLL
    note: str = ""
    #: restrict to units of this species (Trumpet: Feral units only)
    species: str | None = None

    def __post_init__(self) -> None:
        if self.amount < 0:
            raise ValueError(f"{self.source}: modifier amount {self.amount} is negative")


@dataclass(frozen=True, slots=True)
class CountsAs:
    """Units (of ``species``, or all units when ``None``) may count rolled ``source`` results as
    ``target`` results: an adding modifier at step 10 (V4.01c L1040-1048).  Spell-generated
    results are never counted as another type."""

    source: str
    target: str
    by: str
    citation: str
    species: str | None = None


@dataclass(frozen=True, slots=True)
class RollEffect:
    """A consequence for the game flow, reported with the roll (applied elsewhere).

    ``kind`` is a short machine name (``"kill"``, ``"save_or_kill"``, ``"damage_no_save"``...);
    ``amount`` the damage, health-worth or unit count it concerns, if any; ``target`` who it
    touches; ``timing`` when it happens.
    """

    kind: str
    source: str
    citation: str
    amount: int | None = None
    target: str = ""
    timing: str = "now"
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Contribution:
    """Everything one plug-in (one SAI face, one ability, one spell) adds to one roll."""

    source: str
    citation: str
    results: Mapping[str, int] = field(default_factory=dict)
    modifiers: tuple[TableModifier, ...] = ()
    counts_as: tuple[CountsAs, ...] = ()
    effects: tuple[RollEffect, ...] = ()
    rerolls: bool = False
    #: this unit's Dragonkin automatic saves do not count (Belly, V4.01c L1270-1272)
    loses_automatic_saves: bool = False
    #: the face counts as an ID icon worth ``id_results`` (Eldarim champion logo, L1811-1828)
    id_results: int = 0
    #: the option taken where the rules offer a choice, and the others the caller may pick
    chosen: str | None = None
    options: tuple[str, ...] = ()
    note: str = ""

    @property
    def is_empty(self) -> bool:
        return not (
            any(self.results.values())
            or self.modifiers
            or self.counts_as
            or self.effects
            or self.rerolls
            or self.loses_automatic_saves
            or self.id_results
        )

    def total(self, result_type: str) -> int:
        return int(self.results.get(result_type, 0))
