"""Army rolls: from the faces that came up to a total, through the die roll resolution engine.

The flow never counts icons itself: it builds a request (which dice, which faces, what the roll is
for, where) and hands it to ``companion.rules`` resolution (V4.01c L1002-1030).  ``RollOutcome`` keeps
the total, the magic of each die (for element accounting) and the explained steps for the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..core.state import Unit
from ..core.terrains import TerrainKind

if TYPE_CHECKING:
    from ..resolution import EffectInForce, RollRequest

ROLL_TYPES = ("maneuver", "melee", "missile", "magic", "save")


@dataclass(frozen=True)
class ArmyRoll:
    """One army roll to resolve."""

    roll: str  # one of ROLL_TYPES
    dice: tuple[tuple[Unit, tuple[str, ...]], ...]  # (die, faces: the roll, then any re-rolls)
    terrain: TerrainKind | None = None  # None: not at a terrain (reserve, order of play)
    face: int = 1
    eighth_face: bool = False  # the army controls this terrain's eighth face (IDs doubled, V4.01c L508)
    in_reserve: bool = False
    against: str | None = None  # for saves: "melee" or "missile"
    counter_attack: bool = False
    counter_maneuver: bool = False
    marching: bool = True
    order_of_play: bool = False  # count only maneuver results; ignore special results (V4.01c L312-315)
    ids_count: bool = True  # False: Tower missile against a Reserve army (V4.01c L533-535)
    effects: tuple[EffectInForce, ...] = ()  # resolution EffectInForce values
    dua_counts: tuple[tuple[str, int], ...] = ()
    force_points: int = 24
    individual: bool = False  # one unit rolling alone against an effect that targets it (V4.01c L1225-1226)
    counted: tuple[
        str, ...
    ] = ()  # a combination roll's result types (V4.01c L1076-1096); () = the roll's own
    not_counting: frozenset[str] = (
        frozenset()
    )  # uids whose results no longer count (Choke, Hypnotic Glare: step 2)
    choices: tuple[tuple[str, object], ...] = ()  # resolution "may" choices (id_as splits, V4.01c L677-681)
    extra_elements: tuple[
        str, ...
    ] = ()  # a minor terrain's elements count as the terrain's (V4.01c L2630-2632)


@dataclass
class RollOutcome:
    total: int
    magic_by_die: dict[str, int] = field(default_factory=dict)  # uid -> magic results
    steps: list[dict[str, Any]] = field(default_factory=list)
    reports: list[dict[str, Any]] = field(default_factory=list)
    rerolls: list[int] = field(default_factory=list)  # indexes of dice whose last face re-rolls
    magic_kinds: dict[str, tuple[str, ...]] = field(default_factory=dict)  # uid -> elements its magic may be
    totals: dict[str, int] = field(
        default_factory=dict
    )  # per counted type (combination rolls: dragon response)
    uids: list[str] = field(default_factory=list)  # the rolled dice, in the order of report unit indexes
    per_unit: list[dict[str, Any]] = field(default_factory=list)  # counted results of each die (same order)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "magic_by_die": dict(self.magic_by_die),
            "steps": list(self.steps),
            "reports": list(self.reports),
        }


def army_request(request: ArmyRoll) -> RollRequest:
    """The resolution engine's request for an army roll: its dice and faces, where and for what."""
    from ..resolution import RolledUnit, RollRequest, RollTerrain

    units = []
    for unit, faces in request.dice:
        die = unit.spec.catalogue_die
        parsed = tuple(die.find_face(f) for f in faces)
        counts = not (not request.ids_count and parsed[0].is_id) and unit.uid not in request.not_counting
        units.append(RolledUnit(die, parsed, label=f"{unit.name} ({unit.uid})", counts=counts))
    terrain = None
    if request.terrain is not None and not request.order_of_play:
        from ..catalogue.tables import Element

        terrain = RollTerrain(
            request.terrain.type,
            face=request.face,
            eighth=request.terrain.icon,
            extra_elements=frozenset(Element(e) for e in request.extra_elements),
            controlled=request.eighth_face,
            name=request.terrain.name,
        )
    return RollRequest(
        purpose=request.roll,
        units=tuple(units),
        against=request.against,
        terrain=terrain,
        in_reserve=request.in_reserve,
        effects=tuple(request.effects),
        counter_attack=request.counter_attack,
        counter_maneuver=request.counter_maneuver,
        marching=request.marching,
        dua_counts=dict(request.dua_counts),
        force_points=request.force_points,
        choices=dict(request.choices),
        individual=request.individual,
        counted=frozenset(request.counted) if request.counted else None,
    )


def resolve_army_roll(request: ArmyRoll) -> RollOutcome:
    """Resolve an army roll with the die roll resolution engine (V4.01c L1002-1030)."""
    from ..resolution import resolve

    req = army_request(request)
    units = req.units
    res = resolve(req)
    magic = {}
    kinds: dict[str, tuple[str, ...]] = {}
    if request.roll == "magic":
        magic = {unit.uid: int(res.per_unit[i].get("magic", 0)) for i, (unit, _) in enumerate(request.dice)}
        # The elements each die's magic may take (its own, Terrain Harmony, Standing Stones ...): the
        # engine groups the army's magic by element, so ask it for each die alone.
        for i, (unit, _) in enumerate(request.dice):
            if magic[unit.uid] <= 0:
                continue
            alone = tuple(u if j == i else replace(u, counts=False) for j, u in enumerate(units))
            groups = resolve(replace(req, units=alone)).magic
            kinds[unit.uid] = tuple(sorted({k for g in groups for k in g.split("/")}))
    reports = []
    rerolls = []
    for r in res.reports:
        if r.kind == "reroll_pending" and r.unit is not None:
            rerolls.append(r.unit)
        reports.append(
            {"source": r.source, "text": r.text, "amount": r.amount, "unit": r.unit, "kind": r.kind}
        )
    return RollOutcome(
        res.total(request.roll),
        magic,
        [s.as_dict() for s in res.steps],
        reports,
        rerolls,
        kinds,
        dict(res.totals),
        uids=[unit.uid for unit, _ in request.dice],
        per_unit=[dict(p) for p in res.per_unit],
    )
