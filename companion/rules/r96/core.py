"""Core R96 roll rules: the eighth face and the charge."""

from __future__ import annotations

from collections.abc import Iterable

from companion.rules.resolution.model import (
    ADD,
    MAGIC,
    MANEUVER,
    MELEE,
    MULTIPLY,
    SAVE,
    ElementOption,
    Modifier,
    Report,
    ResolutionError,
)
from companion.rules.resolution.registry import Contribution, RollContext

from .registry import REGISTRY


@REGISTRY.rule("Eighth face")
def eighth_face(ctx: RollContext) -> Iterable[Contribution]:
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
def charge(ctx: RollContext) -> Iterable[Contribution]:
    """A charging army counts its melee, maneuver and ID results all as damage (R96 L341-351);
    written here as its maneuver results counting as melee at the adding step."""
    if not (ctx.charge and MELEE in ctx.counted and not ctx.counter_attack and MANEUVER not in ctx.counted):
        return ()
    units = frozenset(i for i, u in enumerate(ctx.units) if u.counts)
    return (
        Modifier(
            ADD,
            MELEE,
            0,
            "Charge",
            "R96 L341-351",
            scope="any",
            units=units,
            counts_as=MANEUVER,
            origin="rule",
            note="in a charge, maneuver results count as damage too",
        ),
    )


@REGISTRY.rule("Terrain advantage")
def terrain_advantage(ctx: RollContext) -> Iterable[Contribution]:
    """In magic, a unit that rolls its ID and shares a colour with the terrain doubles the ID's
    magic points of that colour; normal magic icons never double, nor does an army in Reserves
    (R96 L439-452, L472-480).  The doubled points may only be of the shared colour(s); the player
    may decline (``choices["Terrain advantage"] = False``) to cast other colours.  At a controlled
    Standing Stones every unit may also cast the terrain's colours, but a unit sharing none of
    them cannot double (R96 L663-666)."""
    terrain = ctx.terrain
    if MAGIC not in ctx.counted or terrain is None or ctx.in_reserve:
        return ()
    own = {e.value for e in terrain.elements}
    out: list[Contribution] = []
    for i, unit in enumerate(ctx.units):
        if not unit.counts or not any(f.is_id for f in unit.faces):
            continue
        shared = own & {e.value for e in unit.die.elements}
        if shared:
            out.append(
                Modifier(
                    MULTIPLY,
                    MAGIC,
                    2,
                    "Terrain advantage",
                    "R96 L439-452",
                    scope="any",
                    units=frozenset({i}),
                    origin="terrain",
                    optional=True,
                    part="ids",
                    element="/".join(sorted(shared)),
                    note=f"{unit.name}: ID magic doubled as {'/'.join(sorted(shared))}",
                )
            )
    if terrain.controlled and terrain.eighth == "Standing Stones":
        out.append(
            ElementOption(frozenset(range(len(ctx.units))), frozenset(own), "Standing Stones", "R96 L663-666")
        )
    return out


@REGISTRY.rule("Death magic")
def death_magic(ctx: RollContext) -> Iterable[Contribution]:
    """Black magic from ID icons may be doubled by making one player bury dead units of equal health
    (R96 L454-470); never in Reserves.  Burying needs the other player's dead units, so the resolver
    never assumes it: ``choices["Death magic burial"] = N`` says N health was buried, which adds N
    black points taken from ID points of units with the death element (all must be spent)."""
    n = ctx.request.choices.get("Death magic burial", 0)
    if not n or MAGIC not in ctx.counted:
        return ()
    if ctx.in_reserve:
        raise ResolutionError(
            "an army in Reserves can never double its magic (R96 L472-480)", key="choices.Death magic burial"
        )
    eligible = sum(
        f.count
        for u in ctx.units
        if u.counts and any(e.value == "Death" for e in u.die.elements)
        for f in u.faces
        if f.is_id
    )
    if not isinstance(n, int) or n < 0 or n > eligible:
        raise ResolutionError(
            f"burial must be 0 to {eligible} health: the black points rolled on ID icons",
            key="choices.Death magic burial",
        )
    return (
        Modifier(
            ADD,
            MAGIC,
            n,
            "Death magic",
            "R96 L454-470",
            scope="any",
            origin="rule",
            element="Death",
            note=f"{n} health buried: {n} ID points of black magic doubled",
        ),
        Report(
            "Death magic",
            f"{n} of the ID magic points must be black, and all {2 * n} black points must be spent",
            n,
            kind="note",
        ),
    )
