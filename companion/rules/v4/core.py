"""Core v4 roll rules that are neither SAIs, species abilities nor spells."""

from __future__ import annotations

from collections.abc import Iterable

from companion.rules.resolution.model import ADD, SAVE, ElementOption, Modifier
from companion.rules.resolution.registry import Contribution, IdMultiplier, RollContext

from .registry import REGISTRY

_EIGHTH_FACE_IDS = IdMultiplier(2, "Eighth face: ID results doubled", "V4.01c L501")  # frozen: shared
_EIGHTH_FACE_ONLY = (_EIGHTH_FACE_IDS,)


@REGISTRY.rule("Eighth face")
def eighth_face(ctx: RollContext) -> Iterable[Contribution]:
    """The army controlling a terrain's eighth face doubles all its ID results, in any roll
    (V4.01c L501); Standing Stones lets its units turn their magic into an element of the terrain
    (V4.01c eighth-face icon table, L522-525)."""
    terrain = ctx.terrain
    if terrain is None or not terrain.controlled or ctx.individual:
        return ()
    if terrain.eighth != "Standing Stones":
        return _EIGHTH_FACE_ONLY
    return (
        _EIGHTH_FACE_IDS,
        ElementOption(
            frozenset(range(len(ctx.units))),
            frozenset(e.value for e in terrain.elements),
            "Standing Stones",
            "V4.01c L522-525",
        ),
    )


@REGISTRY.rule("Dragonkin automatic saves")
def dragonkin_autosaves(ctx: RollContext) -> Iterable[Contribution]:
    """Dragonkin add automatic saves equal to their health to save rolls they take part in, at step
    10 (V4.01c L2537-2541); a Dragonkin that rolls Belly loses them for the roll (Belly SAI, L1270)."""
    if SAVE not in ctx.counted:
        return ()
    total = 0
    for i, unit in enumerate(ctx.units):
        if unit.counts and unit.die.species == "Dragonkin" and "Belly" not in ctx.sai_faces[i]:
            total += unit.die.autosaves or (unit.die.health or 0)
    if not total:
        return ()
    return (
        Modifier(
            ADD,
            SAVE,
            total,
            "Dragonkin automatic saves",
            "V4.01c L2537-2541",
            scope="any",
            origin="rule",
            note=f"Dragonkin armoured skin adds {total} saves",
        ),
    )


@REGISTRY.rule("Tower shot at Reserves")
def tower_at_reserves(ctx: RollContext) -> Iterable[Contribution]:
    """From a Tower eighth face an army may shoot at a Reserve army, counting only non-ID missile
    results (V4.01c L532-534).  The roll does not know its target: the caller says so with
    ``choices["Tower shot at Reserves"] = True``."""
    if ctx.purpose == "missile" and ctx.request.choices.get("Tower shot at Reserves") is True:
        return (IdMultiplier(0, "Tower: ID results do not count against a Reserve army", "V4.01c L532-534"),)
    return ()
