"""Plug-in registry: where SAIs, species abilities, spells and core rules of an edition say
what they do to a roll.  See the package docstring for the contract."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.rules.catalogue import Face

from .model import (
    EffectInForce,
    ElementOption,
    Modifier,
    Report,
    RolledUnit,
    RollRequest,
    RollTerrain,
    SaiOutcome,
)


@dataclass(frozen=True, slots=True)
class IdMultiplier:
    """Returned by a core ``rule`` hook: ID results of the roll are multiplied at counting
    (step 5) by ``factor`` (V4 eighth face, V4.01c L501)."""

    factor: int
    source: str
    citation: str


Contribution = Modifier | ElementOption | Report | IdMultiplier


_UNIT_KINDS = frozenset({"unit", "monster"})
_NO_UNITS: frozenset[int] = frozenset()

#: Shared empty mapping for units with no results of a kind (never mutated).
_EMPTY: dict[str, int] = {}


class RollContext:
    """What a hook may look at.  Read-only by convention.

    ``memo(key, factory)`` caches one value per roll for hooks that share derived data.
    Always available: ``request``, ``purpose``, ``against``, ``counted`` (frozenset of result types),
    ``terrain`` (RollTerrain or None), ``in_reserve``, ``units`` (tuple of RolledUnit),
    ``counter_attack``, ``charge``, ``individual``, ``edition`` (the edition key).
    ``sai_faces[i]``: the SAI names unit ``i`` rolled (all faces, re-rolls included).
    ``sai_results[i]``: the results its SAIs generated, by result type.
    After counting (species and spell hooks only): ``normal[i]`` (non-ID, non-SAI results by type),
    ``ids[i]`` (ID results by type), ``rolled[i]`` (normal + ID).
    """

    __slots__ = (
        "request",
        "edition",
        "purpose",
        "against",
        "counted",
        "terrain",
        "in_reserve",
        "units",
        "counter_attack",
        "charge",
        "individual",
        "sai_faces",
        "sai_results",
        "_normal",
        "_ids",
        "_rolled",
        "_rows",
        "_species_index",
        "_memo",
    )

    def __init__(self, request: RollRequest, counted: frozenset[str]):
        self.request = request
        self.edition = request.edition
        self.purpose = request.purpose
        self.against = request.against
        self.counted = counted
        self.terrain: RollTerrain | None = request.terrain
        self.in_reserve = request.in_reserve
        self.units: tuple[RolledUnit, ...] = request.units
        self.counter_attack = request.counter_attack
        self.charge = request.charge
        self.individual = request.individual
        n = len(request.units)
        self.sai_faces: list[tuple[str, ...]] = [()] * n
        # one dict per unit: the engine adds SAI results into it (a shared empty dict would collect
        # every roll's SAI results; found by tests/rules_plugins/test_plugin_properties.py)
        self.sai_results: list[dict[str, int]] = [{} for _ in range(n)]
        self._normal: list[dict[str, int]] | None = None
        self._ids: list[dict[str, int]] | None = None
        self._rolled: list[dict[str, int]] | None = None
        self._rows: tuple[list[list[int]], list[list[int]], tuple[str, ...]] | None = None
        self._species_index: dict[str, frozenset[int]] | None = None
        self._memo: dict[Any, Any] | None = None

    def _by_unit(self, part: int) -> list[dict[str, int]]:
        """Per-unit results by type from the counted rows: 0 normal, 1 ID, 2 both."""
        rows = self._rows
        n = len(self.units)
        if rows is None:
            return [_EMPTY] * n
        normal_rows, id_rows, types = rows
        out = []
        for i in range(n):
            a, b = normal_rows[i], id_rows[i]
            if part == 0:
                out.append({t: v for t, v in zip(types, a, strict=True) if v} if any(a) else _EMPTY)
            elif part == 1:
                out.append({t: v for t, v in zip(types, b, strict=True) if v} if any(b) else _EMPTY)
            else:
                out.append(
                    {t: x + y for t, x, y in zip(types, a, b, strict=True) if x + y}
                    if any(a) or any(b)
                    else _EMPTY
                )
        return out

    @property
    def normal(self) -> list[dict[str, int]]:
        """Each unit's non-ID, non-SAI results by type, as counted at step 5."""
        if self._normal is None:
            self._normal = self._by_unit(0)
        return self._normal

    @property
    def ids(self) -> list[dict[str, int]]:
        """Each unit's ID results by type, as counted at step 5."""
        if self._ids is None:
            self._ids = self._by_unit(1)
        return self._ids

    @property
    def rolled(self) -> list[dict[str, int]]:
        """Each unit's normal + ID results by type, as counted at step 5."""
        if self._rolled is None:
            self._rolled = self._by_unit(2)
        return self._rolled

    def memo(self, key: Any, factory: Callable[[], Any]) -> Any:
        """A value derived from this roll, computed once: ``ctx.memo("situation", lambda: ...)``."""
        if self._memo is None:
            self._memo = {}
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = factory()
            return value

    def choose(self, name: str, default: Any) -> Any:
        """The caller's choice for the "may" rule ``name`` (``request.choices``), else ``default``
        (which should be the best for the roll)."""
        return self.request.choices.get(name, default)

    def species_units(self, species: str) -> frozenset[int]:
        """Indexes of counting *units* (not items) of ``species`` in the roll."""
        index = self._species_index
        if index is None:
            groups: dict[str, list[int]] = {}
            for i, unit in enumerate(self.units):
                die = unit.die
                if unit.counts and die.species and die.kind in _UNIT_KINDS:
                    g = groups.get(die.species)
                    if g is None:
                        groups[die.species] = [i]
                    else:
                        g.append(i)
            index = self._species_index = {k: frozenset(v) for k, v in groups.items()}
        return index.get(species, _NO_UNITS)

    def terrain_has(self, *elements: str) -> bool:
        """The roll happens at a terrain containing every one of ``elements``."""
        return self.terrain is not None and self.terrain.contains(*elements)

    def s_multiplier(self) -> int:
        """The "s" of DUA-capped abilities: 1 per 24 points of force or part thereof (V4.01c L776-780)."""
        return max(1, -(-self.request.force_points // 24))


class SaiContext:
    """What an SAI hook is given: the roll context, the unit index, the face and X."""

    __slots__ = ("roll", "index", "unit", "face", "x", "reroll_number")

    def __init__(self, roll: RollContext, index: int, face: Face, reroll_number: int):
        self.roll = roll
        self.index = index
        self.unit = roll.units[index]
        self.face = face
        self.x = face.count
        self.reroll_number = reroll_number  # 0 for the original roll, 1 for the first re-roll...

    # shortcuts
    @property
    def purpose(self) -> str:
        return self.roll.purpose

    @property
    def against(self) -> str | None:
        return self.roll.against

    @property
    def counted(self) -> frozenset[str]:
        return self.roll.counted

    def choose(self, name: str, default: Any) -> Any:
        return self.roll.choose(name, default)


SaiHook = Callable[[SaiContext], "SaiOutcome | None"]
AbilityHook = Callable[[RollContext, frozenset[int]], Iterable[Contribution]]
SpellHook = Callable[[RollContext, EffectInForce], Iterable[Contribution]]
RuleHook = Callable[[RollContext], Iterable[Contribution]]


@dataclass(frozen=True, slots=True)
class AbilityEntry:
    species: str
    name: str
    hook: AbilityHook
    citation: str


@dataclass
class Registry:
    """The contributions of one edition.  Plug-in modules add entries with the decorators:

    ``@REG.sai("Fly")``, ``@REG.species_ability("Coral Elves", "Coastal Dodge", citation=...)``,
    ``@REG.spell("Stone Skin")``, ``@REG.rule("Eighth face")``.
    """

    edition: str
    sais: dict[str, SaiHook] = field(default_factory=dict)
    abilities: dict[str, list[AbilityEntry]] = field(default_factory=dict)  # by species
    spells: dict[str, SpellHook] = field(default_factory=dict)
    rules: dict[str, RuleHook] = field(default_factory=dict)

    def sai(self, name: str) -> Callable[[SaiHook], SaiHook]:
        def deco(fn: SaiHook) -> SaiHook:
            if name in self.sais:
                raise ValueError(f"{self.edition}: SAI {name!r} registered twice")
            self.sais[name] = fn
            return fn

        return deco

    def species_ability(
        self, species: str, name: str, *, citation: str
    ) -> Callable[[AbilityHook], AbilityHook]:
        def deco(fn: AbilityHook) -> AbilityHook:
            entries = self.abilities.setdefault(species, [])
            if any(e.name == name for e in entries):
                raise ValueError(f"{self.edition}: ability {species}/{name} registered twice")
            entries.append(AbilityEntry(species, name, fn, citation))
            return fn

        return deco

    def spell(self, name: str) -> Callable[[SpellHook], SpellHook]:
        def deco(fn: SpellHook) -> SpellHook:
            if name in self.spells:
                raise ValueError(f"{self.edition}: spell {name!r} registered twice")
            self.spells[name] = fn
            return fn

        return deco

    def rule(self, name: str) -> Callable[[RuleHook], RuleHook]:
        def deco(fn: RuleHook) -> RuleHook:
            if name in self.rules:
                raise ValueError(f"{self.edition}: rule {name!r} registered twice")
            self.rules[name] = fn
            return fn

        return deco

    def ability_names(self) -> Mapping[str, list[str]]:
        return {s: [e.name for e in entries] for s, entries in self.abilities.items()}
