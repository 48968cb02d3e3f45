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
magic), its stages (:class:`Op`), ``ALL`` for "results" of any type, and its :class:`Modifier`, with
``reach`` (:class:`Scope`: whose rolls) and ``species`` as the rules state them; the plug-ins only
bind a modifier to the units of one roll, or pass it on as a report for other rolls.
Everything here is pure data: no I/O, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from companion.rules.resolution.model import (
    ALL,
    CANTRIP,
    MAGIC,
    MANEUVER,
    MELEE,
    MISSILE,
    RESULT_TYPES,
    SAVE,
    Modifier,
    Op,
    Scope,
)

__all__ = [
    "ALL",
    "CANTRIP",
    "MAGIC",
    "MANEUVER",
    "MELEE",
    "MISSILE",
    "RESULT_TYPES",
    "SAVE",
    "Contribution",
    "Modifier",
    "Op",
    "RollEffect",
    "Scope",
    "counts_as",
]


def counts_as(source: str, target: str, by: str, citation: str, species: str | None = None) -> Modifier:
    """Units (of ``species``, or every unit when ``None``) may count rolled ``source`` results as
    ``target`` results: an adding modifier at step 10 (V4.01c L1040-1048), applied unless the owner
    declines it.  Spell-generated results are never counted as another type."""
    return Modifier(
        Op.ADD, target, 0, by, citation, scope="any", counts_as=source, optional=True, species=species
    )


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
    #: modifiers as the rules state them (``reach``: whose rolls; the plug-ins bind them to a roll)
    modifiers: tuple[Modifier, ...] = ()
    #: "may count X results as Y results": adding modifiers with ``counts_as`` (L1040-1048), of the
    #: units of ``species`` or, without one, of every unit; spell-generated results never count
    counts_as: tuple[Modifier, ...] = ()
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
