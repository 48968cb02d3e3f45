"""Core R96 roll rules: the eighth face and the charge."""

from __future__ import annotations

from companion.rules.resolution.model import ADD, MANEUVER, MELEE, MULTIPLY, SAVE, Modifier
from companion.rules.resolution.registry import RollContext

from .registry import REGISTRY


@REGISTRY.rule("Eighth face")
def eighth_face(ctx: RollContext):
    """The army controlling an eighth face doubles its save results and its maneuver results
    (R96 L621-622).  The doubling reaches SAI results (R96 L707-708) and maneuvers that a racial
    ability then counts as saves (R96 L638-643, example 2: three maneuvers -> six saves)."""
    terrain = ctx.terrain
    if terrain is None or not terrain.controlled or ctx.individual:
        return ()
    return (
        Modifier(MULTIPLY, SAVE, 2, "Eighth face: saves doubled", "R96 L621", origin="terrain"),
        Modifier(MULTIPLY, MANEUVER, 2, "Eighth face: maneuvers doubled", "R96 L622", origin="terrain"),
    )


@REGISTRY.rule("Charge")
def charge(ctx: RollContext):
    """A charging army counts its melee, maneuver and ID results all as damage (R96 L341-351);
    written here as its maneuver results counting as melee at the adding step."""
    if not (ctx.charge and MELEE in ctx.counted and not ctx.counter_attack and MANEUVER not in ctx.counted):
        return ()
    units = frozenset(i for i, u in enumerate(ctx.units) if u.counts)
    return (
        Modifier(ADD, MELEE, 0, "Charge", "R96 L341-351", scope="any", units=units, counts_as=MANEUVER,
                 origin="rule", note="in a charge, maneuver results count as damage too"),
    )
