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

They speak the resolution engine's vocabulary (:mod:`companion.rules.resolution.model`): its result
types (``"maneuver"``, ``"melee"``, ``"missile"``, ``"magic"``, ``"save"``; ``"cantrip"`` for Cantrip
magic), its stages (:class:`Op`) and ``ALL`` for "results" of any type, so the plug-ins hand the
engine what the tables say without translating names.  What stays the tables' own is a modifier's
:class:`Scope`: whose rolls it reaches, which the plug-ins bind to the units of one roll.
Everything here is pure data: no I/O, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from companion.rules.resolution.model import (
    ALL,
    CANTRIP,
    MAGIC,
    MANEUVER,
    MELEE,
    MISSILE,
    RESULT_TYPES,
    SAVE,
    Op,
)

__all__ = [
    "ALL", "CANTRIP", "MAGIC", "MANEUVER", "MELEE", "MISSILE", "RESULT_TYPES", "SAVE", "Contribution", "CountsAs",
    "Op", "RollEffect", "Scope", "TableModifier",
]


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

    @property
    def army_wide(self) -> bool:
        """Whether the modifier changes a whole army's roll (not one unit's or one species')."""
        return self in _ARMY_WIDE

    @property
    def report_kind(self) -> str | None:
        """For a modifier on other rolls than this one: the kind of the report that carries it to the
        game flow (``Report.kind``); ``None`` for the scopes this roll applies itself."""
        return _REPORT_KIND.get(self)


_ARMY_WIDE = frozenset({Scope.THIS_ROLL, Scope.TARGET_ARMY_ROLLS, Scope.OWN_ARMY_ROLLS, Scope.TERRAIN_ROLLS})
_REPORT_KIND = {
    Scope.DEFENDER_SAVE_ROLL: "defender_save_modifier",
    Scope.COUNTER_MANEUVER: "counter_maneuver_modifier",
    Scope.TARGET_ARMY_ROLLS: "lasting_modifier",
    Scope.TERRAIN_ROLLS: "lasting_modifier",
}


@dataclass(frozen=True, slots=True)
class TableModifier:
    """A roll modifier as a table states it, before it is bound to the units of one roll (the
    plug-ins turn it into the engine's :class:`~companion.rules.resolution.model.Modifier`).
    ``result`` is a result type, or ``ALL`` for "results" of any type (Ash Storm, Palsy, Wither:
    the roller applies it to the type(s) the roll counts)."""

    op: Op
    result: str
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
