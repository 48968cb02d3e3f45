"""Value types of die roll resolution: what goes in (:class:`RollRequest`) and what comes out
(:class:`Resolution`), plus the pieces plug-ins return (:class:`Modifier`, :class:`SaiOutcome`,
:class:`Report`, :class:`ElementOption`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from companion.rules.catalogue import TERRAIN_TYPE_ELEMENTS, Die, Face
from companion.rules.catalogue.tables import Element

MANEUVER = "maneuver"
MELEE = "melee"
MISSILE = "missile"
MAGIC = "magic"
SAVE = "save"
#: The five result types, in the order totals are listed.
RESULT_TYPES: tuple[str, ...] = (MANEUVER, MELEE, MISSILE, MAGIC, SAVE)
#: Catalogue icon name -> result type.
ICON_RESULT: dict[str, str] = {
    "Maneuver": MANEUVER,
    "Melee": MELEE,
    "Missile": MISSILE,
    "Magic": MAGIC,
    "Save": SAVE,
}

#: What a roll may be for.  ``dragon`` = the combination roll in response to a dragon attack
#: (melee, missile and saves; V4.01c L646-693).
PURPOSES: tuple[str, ...] = RESULT_TYPES + ("dragon",)
#: Default counted result types per purpose.
COUNTED_BY_PURPOSE: dict[str, frozenset[str]] = {p: frozenset({p}) for p in RESULT_TYPES} | {
    "dragon": frozenset({MELEE, MISSILE, SAVE})
}
AGAINST: tuple[str, ...] = (MELEE, MISSILE, MAGIC, "dragon")

#: Results outside the counted types: Cantrip magic outside a magic action, spendable only on
#: spells flagged C (V4.01c L1296-1306, L2103-2108); reported in ``Resolution.other``.
CANTRIP = "cantrip"


class Op(StrEnum):
    """Kinds of roll modifier, the stages of die roll resolution that apply them, in V4.01c order
    (L1011-1031).  The one modifier vocabulary: the engine's :class:`Modifier` (``stage``) and the
    V4 plug-in tables (``companion.rules.v4.contributions``) both speak it; a member equals its
    plain string (``Op.ADD == "add"``)."""

    SUBTRACT = "subtract"  # step 6
    DIVIDE = "divide"  # step 7
    MULTIPLY = "multiply"  # step 9
    ADD = "add"  # step 10

    @property
    def step(self) -> int:
        """The step of V4.01c die roll resolution (L1011-1031) that applies this modifier."""
        return _V4_STEP[self]


_V4_STEP = {Op.SUBTRACT: 6, Op.DIVIDE: 7, Op.MULTIPLY: 9, Op.ADD: 10}
SUBTRACT, DIVIDE, MULTIPLY, ADD = Op.SUBTRACT, Op.DIVIDE, Op.MULTIPLY, Op.ADD
STAGES: tuple[str, ...] = tuple(Op)

#: ``Modifier.result`` value meaning "every result type the roll counts" ("results" of any type:
#: Ash Storm, Palsy, Wither; in a combination roll the owner splits it, V4.01c L1076-1096).
ALL = "all"


class Scope(StrEnum):
    """Whose rolls a modifier reaches, as the rules state it (``Modifier.reach``).  The engine applies
    only modifiers that reach the roll it resolves (``THIS_ROLL``); the V4 plug-ins bind a one-unit or
    species modifier to that roll's units, and carry the others to the game flow as reports."""

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

#: Magic of no element (Amazons in Reserves, V4.01c Terrain Harmony).
IVORY = "Ivory"


class ResolutionError(ValueError):
    """A roll that cannot be resolved as given (a face the die lacks, a re-roll list that goes on
    after a face that does not re-roll, an unknown spell...).  ``key`` names the offending input
    (``"roll.faces[2]"``)."""

    def __init__(self, message: str, *, key: str | None = None):
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key


@dataclass(frozen=True, slots=True)
class RolledUnit:
    """One die of the rolling army and the face(s) it shows.

    ``faces[0]`` is the roll; each later face is a re-roll made because the face before it
    re-rolls (Rend, Bullseye, ...), and its results are applied as well.
    ``counts=False``: the unit's results do not count (killed by Choke, hypnotized...; step 2).
    """

    die: Die
    faces: tuple[Face, ...]
    label: str = ""
    counts: bool = True

    @property
    def name(self) -> str:
        return self.label or self.die.name


@dataclass(frozen=True, slots=True)
class RollTerrain:
    """The terrain where the roll happens.  ``controlled``: the rolling army controls its eighth
    face (the terrain shows 8 and faces it).  ``extra_elements``: elements of minor terrains there
    (they count as part of the terrain for species abilities, V4.01c L2630)."""

    type: str
    face: int = 1
    eighth: str | None = None
    controlled: bool = False
    extra_elements: frozenset[Element] = frozenset()
    name: str = ""

    @property
    def elements(self) -> frozenset[Element]:
        return TERRAIN_TYPE_ELEMENTS.get(self.type, frozenset()) | self.extra_elements

    def contains(self, *elements: Element | str) -> bool:
        """True when the terrain contains every element named."""
        own = self.elements
        return all(Element(e) in own for e in elements)


@dataclass(frozen=True, slots=True)
class EffectInForce:
    """A spell or other lasting effect that may change this roll.

    ``target``: ``"army"`` (cast on the rolling army), ``"terrain"`` (cast on the terrain where it
    rolls), ``"unit"`` (cast on ``units`` of the rolling army), ``"opponent"`` (an effect on an
    opposing army that touches this roll, e.g. Wave's counter-maneuver penalty).
    ``castings``: combined castings (V4.01c L2143-2148).  ``hostile``: cast by an opponent.
    """

    name: str
    castings: int = 1
    target: str = "army"
    units: frozenset[int] = frozenset()
    hostile: bool = False
    element: str | None = None
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class RollRequest:
    """Everything :func:`resolve` needs, and nothing else.

    ``purpose``: ``maneuver``, ``melee``, ``missile``, ``magic``, ``save`` or ``dragon``.
    ``against``: for saves, what they are against (``melee``, ``missile``, ``magic``, ``dragon``).
    ``counted``: result types counted (defaults from ``purpose``; several = a combination roll).
    ``terrain``: where the army rolls; ``None`` with ``in_reserve=True`` for a Reserve army, or
    ``None`` for a roll at no terrain (order-of-play roll).
    ``individual``: a single unit's roll (army modifiers do not apply, V4.01c L1050-1066).
    ``counter_attack``, ``charge``, ``counter_maneuver``, ``marching``: the roll's circumstances.
    ``choices``: overrides of "may" choices, keyed by the rule's name (``{"Coastal Dodge": False,
    "Fly": "save", "id_as": "save"}``); without one the resolver takes the best for the roll.
    ``dua_counts``: units in the roller's DUA per species (for DUA-capped abilities), ``force_points``
    the total force size (the "s" multiplier, V4.01c L776-780).
    """

    purpose: str
    units: tuple[RolledUnit, ...]
    edition: str = "v4"
    against: str | None = None
    counted: frozenset[str] | None = None
    terrain: RollTerrain | None = None
    in_reserve: bool = False
    effects: tuple[EffectInForce, ...] = ()
    individual: bool = False
    counter_attack: bool = False
    charge: bool = False
    counter_maneuver: bool = False
    marching: bool = True
    choices: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    dua_counts: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    force_points: int = 24

    def counted_types(self) -> frozenset[str]:
        return self.counted if self.counted is not None else COUNTED_BY_PURPOSE[self.purpose]


@dataclass(slots=True, unsafe_hash=True)  # immutable by convention; not frozen: hot path
class Modifier:
    """A change to the roll's results, applied at its stage of die roll resolution.

    ``stage``: ``subtract`` (step 6), ``divide`` (7, rounded down), ``multiply`` (9), ``add`` (10).
    ``result``: a result type, or ``"all"`` for every counted type.
    ``amount``: the number subtracted/added, or the divisor/factor.
    ``scope``: ``"army"`` modifiers do not touch an individual unit's roll and ``"unit"`` modifiers do
    not touch an army roll (V4.01c L1050-1066); ``"any"`` applies to both.
    ``units``: restrict the modifier to these units' results (indexes into ``RollRequest.units``);
    ``None`` = the army's total.
    ``counts_as``: makes this an ADD of the ``units``' own rolled results of type ``counts_as``
    counted as ``result`` (V4.01c L1040-1048; ``amount`` ignored).  Spell-generated results are never
    counted as another type.
    ``origin``: ``"spell"``, ``"species"``, ``"sai"``, ``"terrain"`` or ``"rule"``: editions differ in what
    may touch what (R96: spells never modify SAI results).
    ``element``: for an ADD of magic, the element(s) of the added magic (``"Fire/Water"``).
    ``optional``: a "may" effect: applied unless ``choices[source] is False``.
    ``part``: ``"ids"`` for a multiplier that touches only ID results; with ``element`` set, the
    multiplied ID magic may then only be of that element (R96 terrain advantage, L439-452).
    ``reach`` and ``species``: whose rolls the modifier reaches and, for ``UNITS_OF_SPECIES``, which
    species, as a rules table states it (``companion.rules.v4``); a plug-in binds it to this roll
    (``units``) before handing it to the engine, which applies only ``reach=THIS_ROLL``.
    """

    stage: str
    result: str
    amount: int
    source: str
    citation: str
    scope: str = "army"
    units: frozenset[int] | None = None
    counts_as: str | None = None
    origin: str = "spell"
    element: str | None = None
    optional: bool = False
    note: str = ""
    part: str = "all"  # "ids": a multiplier that touches only ID results (R96 terrain advantage)
    reach: Scope = Scope.THIS_ROLL
    species: str | None = None


@dataclass(slots=True, unsafe_hash=True)  # immutable by convention; not frozen: hot path
class Report:
    """A non-result effect for the game flow (``"Trample"``/``"Smite: 3 damage, no save"``)."""

    source: str
    text: str
    amount: int | None = None
    unit: int | None = None
    kind: str = "effect"  # e.g. "damage_no_save", "kill", "reroll_pending", "note"


@dataclass(frozen=True, slots=True)
class ElementOption:
    """Changes the elements a unit's magic may take: ``replace`` them (Amazon Terrain Harmony) or
    add to them (Standing Stones)."""

    units: frozenset[int]
    elements: frozenset[str]
    source: str
    citation: str
    replace: bool = False


@dataclass(slots=True, unsafe_hash=True)  # immutable by convention; not frozen: hot path
class SaiOutcome:
    """What one SAI face does in this roll.

    ``results``: SAI-generated results by result type (added at V4 step 8); other keys (such as
    ``"cantrip"``: magic usable only for cantrip spells) are reported in ``Resolution.other``.
    ``modifiers``: modifiers it creates (Trumpet doubles Feral melee/saves...).
    ``reroll``: the die is rolled again and the new face applied as well.
    ``reports``: non-result effects (damage with no save, kills, moves) for the game flow.
    ``magic_elements``: elements of the magic it generates when not the unit's own (Attune).
    ``citation``: the SAI's rule ("V4.01c L1576-1580"), shown in the explained steps.
    """

    results: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    modifiers: tuple[Modifier, ...] = ()
    reroll: bool = False
    reports: tuple[Report, ...] = ()
    magic_elements: frozenset[str] | None = None
    citation: str = ""  # where the SAI's rule is written; the edition's SAI table when empty


NOTHING = SaiOutcome()


@dataclass(slots=True, unsafe_hash=True)  # immutable by convention; not frozen: hot path
class Step:
    """One explained step: which step of die roll resolution, the rule, its citation (document and
    line), the result type and the numbers before and after, and the unit/effect it came from."""

    step: int
    rule: str
    citation: str
    text: str
    result: str | None = None
    before: int | None = None
    after: int | None = None
    source: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__ if getattr(self, k) is not None}


@dataclass(frozen=True, slots=True)
class Resolution:
    """The outcome: ``totals`` per counted result type, ``magic`` by element group (``"Fire/Water"``
    -> 4: those results may be any of those elements, split freely), ``other`` results outside the
    counted types (``cantrip``), the explained ``steps`` in order, and ``reports`` of non-result
    effects for the game flow."""

    edition: str
    purpose: str
    totals: Mapping[str, int]
    magic: Mapping[str, int]
    other: Mapping[str, int]
    steps: tuple[Step, ...]
    reports: tuple[Report, ...]
    per_unit: tuple[Mapping[str, int], ...]

    def total(self, result: str) -> int:
        return self.totals.get(result, 0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "edition": self.edition,
            "for": self.purpose,
            "totals": dict(self.totals),
            "magic": dict(self.magic),
            "other": dict(self.other),
            "steps": [s.as_dict() for s in self.steps],
            "reports": [
                {k: getattr(r, k) for k in r.__slots__ if getattr(r, k) is not None} for r in self.reports
            ],
        }
