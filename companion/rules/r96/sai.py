"""The seven R96 SAIs (R96 L685-790).  Each icon is worth one point (R96 L710-711): X is the
face's count.  Spells never modify SAI results (R96 L705-708); racial abilities and the eighth
face do."""

from __future__ import annotations

from companion.rules.resolution.model import MAGIC, MANEUVER, MELEE, MISSILE, SAVE, Report, SaiOutcome
from companion.rules.resolution.registry import SaiContext

from .registry import REGISTRY

DRAGON = "dragon"


def _is_dragon(ctx: SaiContext) -> bool:
    return ctx.purpose == DRAGON or ctx.against == DRAGON


@REGISTRY.sai("Bullseye")
def bullseye(ctx: SaiContext) -> SaiOutcome | None:
    """Missile action: X damage on one target unit, which alone saves; dragon attack: X missile
    (R96 L731-739)."""
    if _is_dragon(ctx):
        return SaiOutcome(results={MISSILE: ctx.x})
    if ctx.purpose == MISSILE:
        return SaiOutcome(
            reports=(
                Report(
                    "Bullseye",
                    f"{ctx.x} damage to one target unit of your choice; only it "
                    "saves; removed before the army's missile saves",
                    ctx.x,
                    ctx.index,
                    "damage_one_unit",
                ),
            )
        )
    return None


@REGISTRY.sai("Cantrip")
def cantrip(ctx: SaiContext) -> SaiOutcome | None:
    """Magic action: X magic; maneuver: nothing; any other roll: X points for immediate spells
    (R96 L741-748)."""
    if ctx.purpose == MAGIC:
        return SaiOutcome(results={MAGIC: ctx.x})
    if ctx.purpose == MANEUVER:
        return None
    return SaiOutcome(results={"cantrip": ctx.x})


@REGISTRY.sai("Counter")
def counter(ctx: SaiContext) -> SaiOutcome | None:
    """Melee attack or counter-attack (charge included): X melee.  Saves against melee (the charge
    defender included): X saves and X hits on the attacker, who cannot save.  Dragon attack: X saves
    and X hits on the dragon (R96 L750-760).  Saves against anything else: nothing (FAQ96 SAI 3.E)."""
    x = ctx.x
    if _is_dragon(ctx):
        return SaiOutcome(results={SAVE: x, MELEE: x})
    if ctx.purpose == MELEE:
        return SaiOutcome(results={MELEE: x})
    if ctx.purpose == SAVE and ctx.against == MELEE:
        return SaiOutcome(
            results={SAVE: x},
            reports=(
                Report("Counter", f"{x} hits on the attacking army, no save", x, ctx.index, "damage_no_save"),
            ),
        )
    return None


@REGISTRY.sai("Fly")
def fly(ctx: SaiContext) -> SaiOutcome | None:
    """X maneuver or X saves, as needed, never both (R96 L762-763); saves against a dragon
    (FAQ96 SAI 4.A)."""
    default = SAVE if SAVE in ctx.counted or _is_dragon(ctx) else MANEUVER
    pick = ctx.choose("Fly", default)
    return SaiOutcome(results={pick if pick in (SAVE, MANEUVER) else default: ctx.x})


@REGISTRY.sai("Rend")
def rend(ctx: SaiContext) -> SaiOutcome | None:
    """Melee or dragon attack: X melee and the unit rolls again, again while Rend comes up;
    maneuver: X maneuver, no re-roll (R96 L765-773)."""
    if ctx.purpose == MELEE or _is_dragon(ctx):
        return SaiOutcome(results={MELEE: ctx.x}, reroll=True)
    if ctx.purpose == MANEUVER:
        return SaiOutcome(results={MANEUVER: ctx.x})
    return None


@REGISTRY.sai("Smite")
def smite(ctx: SaiContext) -> SaiOutcome | None:
    """Skirmish melee: X hits no save can stop; charge or dragon attack: X ordinary melee
    (R96 L775-782)."""
    if _is_dragon(ctx) or (ctx.purpose == MELEE and ctx.roll.charge):
        return SaiOutcome(results={MELEE: ctx.x})
    if ctx.purpose == MELEE:
        return SaiOutcome(
            reports=(
                Report(
                    "Smite",
                    f"{ctx.x} hits that no save can stop; the owner picks the dead, "
                    "removed before the other saves",
                    ctx.x,
                    ctx.index,
                    "damage_no_save",
                ),
            )
        )
    return None


@REGISTRY.sai("Trample")
def trample(ctx: SaiContext) -> SaiOutcome | None:
    """Maneuver or melee as needed; in a charge both at once; against a dragon either, as the owner
    sees fit (R96 L784-790)."""
    x = ctx.x
    if ctx.purpose == MELEE and ctx.roll.charge and not ctx.roll.counter_attack:
        return SaiOutcome(results={MELEE: x, MANEUVER: x})
    if _is_dragon(ctx):
        pick = ctx.choose("Trample", MELEE)
        return SaiOutcome(results={pick if pick in (MELEE, MANEUVER) else MELEE: x})
    if ctx.purpose == MANEUVER:
        return SaiOutcome(results={MANEUVER: x})
    if ctx.purpose == MELEE:
        return SaiOutcome(results={MELEE: x})
    return None
