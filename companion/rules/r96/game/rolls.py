"""Army and unit rolls of the r96 flow, through the die roll resolution engine (edition ``r96``).

``resolve_roll`` builds the request (dice and faces, purpose, terrain, spells in force) and applies
the per-game options that change resolution: FAQ-CONFLICT-2 (spells on SAIs: a variant edition),
FAQ-CONFLICT-3 (add before multiply: a variant edition), FAQ-CONFLICT-4 (Wind Walk into racial
saves) and FAQ-CONFLICT-6 (monsters' SAIs).  ``icon_counts`` counts icons for the rout rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from types import MappingProxyType
from typing import Any

from ...catalogue.faces import Face
from ...core.state import Unit
from ...resolution import (
    ADD,
    DIVIDE,
    MULTIPLY,
    SUBTRACT,
    Edition,
    EffectInForce,
    RolledUnit,
    RollRequest,
    RollTerrain,
    get_edition,
    resolve,
)

#: Racial abilities that count maneuvers as saves (R96 L806-807, L821-822).
MANEUVER_AS_SAVE = {"Coral Elves": "Coastland", "Lava Elves": "Highland"}
#: Racial abilities that double maneuvers (R96 L811-812, L816-817).
RACIAL_DOUBLING = {"Dwarves": "Highland", "Goblins": "Swampland"}


@cache
def edition_for(spells_modify_sais: bool, modifier_order: str) -> Edition:
    """The r96 edition, or a variant of it for the FAQ95 side of conflicts 2 and 3."""
    ed = get_edition("r96")
    if spells_modify_sais:
        ed = replace(ed, spells_touch_sai=True)
    if modifier_order == "faq95":
        ed = replace(ed, stages=(SUBTRACT, DIVIDE, ADD, MULTIPLY))  # FAQ95: adding before multiplying
    return ed


@dataclass
class Rolled:
    """A resolved roll, kept so that it can be resolved again (another choice, a cantrip's spell)."""

    units: list[Unit]
    faces: list[list[str]]
    purpose: str
    owner: str
    location: str | None
    ctx: dict[str, Any]
    res: Any = None
    totals: dict[str, int] = field(default_factory=dict)

    def total(self, kind: str) -> int:
        return int(self.totals.get(kind, 0))


def parsed_faces(units: list[Unit], faces: list[list[str]]) -> list[tuple[Face, ...]]:
    return [tuple(u.spec.find_face(f) for f in fs) for u, fs in zip(units, faces, strict=True)]


def roll_request(
    rolled: Rolled,
    terrain: RollTerrain | None,
    effects: tuple[EffectInForce, ...],
    options: dict[str, Any],
    choices: dict[str, Any] | None = None,
) -> tuple[RollRequest, Edition]:
    """The resolution engine's request for ``rolled`` and the edition it is resolved in (the game's
    options choose among R96's variants)."""
    ctx = rolled.ctx
    parsed = parsed_faces(rolled.units, rolled.faces)
    rolled_units = []
    for u, fs in zip(rolled.units, parsed, strict=True):
        counts = True
        if options.get("sai_units") == "rare_only" and u.health >= 4 and fs[0].is_sai:
            counts = False  # FAQ96 SAI A: only rares carry SAIs (FAQ-CONFLICT-6, switched on)
        rolled_units.append(RolledUnit(u.spec.catalogue_die, fs, label=f"{u.name} ({u.uid})", counts=counts))
    counted = ctx.get("counted")
    req = RollRequest(
        purpose=rolled.purpose,
        units=tuple(rolled_units),
        edition="r96",
        against=ctx.get("against"),
        counted=frozenset(counted) if counted else None,
        terrain=terrain,
        in_reserve=bool(ctx.get("in_reserve")),
        effects=effects,
        individual=bool(ctx.get("individual")),
        counter_attack=bool(ctx.get("counter_attack")),
        charge=bool(ctx.get("charge")),
        counter_maneuver=bool(ctx.get("counter_maneuver")),
        choices=MappingProxyType(dict(choices or {})),
    )
    ed = edition_for(bool(options.get("spells_modify_sais")), str(options.get("modifier_order", "r96")))
    return req, ed


def resolve_roll(
    rolled: Rolled,
    terrain: RollTerrain | None,
    effects: tuple[EffectInForce, ...],
    options: dict[str, Any],
    choices: dict[str, Any] | None = None,
) -> Rolled:
    """Resolve ``rolled`` (in place) and return it."""
    req, ed = roll_request(rolled, terrain, effects, options, choices)
    res = resolve(req, ed)
    totals = dict(res.totals)
    if options.get("wind_walk_feeds_racial") and "save" in totals and terrain is not None:
        # FAQ95 AIR 4.B (FAQ-CONFLICT-4 switched to FAQ95): Wind Walk's maneuvers count as saves too
        racial = any(MANEUVER_AS_SAVE.get(u.spec.species) == terrain.type for u in rolled.units)
        walk = sum(6 * e.castings for e in effects if e.name == "Wind Walk" and e.target == "army")
        if racial and walk and not req.individual:
            totals["save"] += walk
    if options.get("modifier_order") == "faq95" and "maneuver" in totals and terrain is not None:
        # FAQ95 EARTH 4.F, 4.I (FAQ-CONFLICT-3 switched to FAQ95): adds come before the terrain bonus.  The
        # eighth face's doubling is army-wide (the variant edition orders it after the adds); a racial
        # doubling touches its own units' results only, so an army wholly of that race doubles the adds too.
        kin = {u.spec.species for u, ru in zip(rolled.units, req.units, strict=True) if ru.counts}
        if len(kin) == 1 and RACIAL_DOUBLING.get(next(iter(kin))) == terrain.type and not req.individual:
            totals["maneuver"] += sum(
                6 * e.castings for e in effects if e.name == "Wind Walk" and e.target == "army"
            )
    rolled.res, rolled.totals = res, totals
    return rolled


def icon_counts(rolled: Rolled, terrain_type: str | None) -> tuple[int, int]:
    """(ID icons, save icons) for the rout rule (R96 L566-575): actual icons, not their values.  Save
    icons include SAI saves (Counter in a melee save roll, Fly) and maneuvers a racial ability counts
    as saves; spells' saves never count."""
    ids = saves = 0
    racial = {i for i, u in enumerate(rolled.units) if MANEUVER_AS_SAVE.get(u.spec.species) == terrain_type}
    saving = rolled.purpose == "save" or "save" in (rolled.ctx.get("counted") or ())
    for i, fs in enumerate(parsed_faces(rolled.units, rolled.faces)):
        for f in fs:
            if f.is_id:
                ids += 1
            elif f.icon == "Save":
                saves += f.count
            elif saving and f.is_sai and f.sai in ("Counter", "Fly"):
                saves += f.count
            elif saving and f.icon == "Maneuver" and i in racial:
                saves += f.count
    return ids, saves


def sai_faces(rolled: Rolled, sai: str) -> list[tuple[int, int]]:
    """(unit index, X) of each face showing ``sai``."""
    out = []
    for i, fs in enumerate(parsed_faces(rolled.units, rolled.faces)):
        for f in fs:
            if f.is_sai and f.sai == sai:
                out.append((i, f.count))
    return out
