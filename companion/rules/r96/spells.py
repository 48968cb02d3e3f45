"""R96 spells and dragon breaths that change rolls (R96 L964-1081, breath L855-870).

Spell modifiers never touch SAI results (R96 L705-708); the edition says so with
``spells_touch_sai=False`` and these modifiers carry ``origin="spell"``.
"""

from __future__ import annotations

from collections.abc import Iterable

from companion.rules.resolution.model import (
    ADD,
    ALL,
    DIVIDE,
    MAGIC,
    MANEUVER,
    MELEE,
    MISSILE,
    MULTIPLY,
    SAVE,
    SUBTRACT,
    EffectInForce,
    Modifier,
)
from companion.rules.resolution.registry import Contribution, RollContext

from .registry import REGISTRY


def _on_army(effect: EffectInForce) -> bool:
    return effect.target == "army"


@REGISTRY.spell("Stoneskin")
def stoneskin(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """+1 automatic save per casting to the target army (R96 L968-971)."""
    if _on_army(effect):
        yield Modifier(
            ADD,
            SAVE,
            effect.castings,
            "Stoneskin",
            "R96 L968-971",
            note=f"+{effect.castings} automatic saves",
        )


@REGISTRY.spell("Watery Double")
def watery_double(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """+1 automatic save per casting, until the end of the caster's next turn (R96 L1037-1041)."""
    if _on_army(effect):
        yield Modifier(
            ADD,
            SAVE,
            effect.castings,
            "Watery Double",
            "R96 L1037-1041",
            note=f"+{effect.castings} automatic saves",
        )


@REGISTRY.spell("Wall of Ice")
def wall_of_ice(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """+3 automatic saves; further castings go on other armies (R96 L1043-1045)."""
    if _on_army(effect):
        yield Modifier(ADD, SAVE, 3, "Wall of Ice", "R96 L1043-1045", note="+3 automatic saves")


@REGISTRY.spell("Wind Walk")
def wind_walk(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """+6 automatic maneuvers per casting (R96 L1002-1005); never counted by racial abilities."""
    if _on_army(effect):
        yield Modifier(
            ADD,
            MANEUVER,
            6 * effect.castings,
            "Wind Walk",
            "R96 L1002-1005",
            note=f"+{6 * effect.castings} automatic maneuvers",
        )


@REGISTRY.spell("Transmute Rock to Mud")
def transmute(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """-6 maneuver per casting on the target army; it reaches maneuvers used by racial abilities and
    a charge's extra damage (R96 L982-986)."""
    if _on_army(effect):
        yield Modifier(
            SUBTRACT,
            MANEUVER,
            6 * effect.castings,
            "Transmute Rock to Mud",
            "R96 L982-986",
            note=f"-{6 * effect.castings} maneuver",
        )


@REGISTRY.spell("Ash Storm")
def ash_storm(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """-1 per casting to the results of every army at the target terrain; in a roll used for several
    effects the owner places it (R96 L1015-1019, L934-943)."""
    if effect.target in ("terrain", "army"):
        yield Modifier(
            SUBTRACT, ALL, effect.castings, "Ash Storm", "R96 L1015-1019", note=f"-{effect.castings}"
        )


@REGISTRY.spell("Palsy")
def palsy(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """-1 per casting to all the target army's results (R96 L1065-1069: 12 hits -> 11)."""
    if _on_army(effect):
        yield Modifier(SUBTRACT, ALL, effect.castings, "Palsy", "R96 L1065-1069", note=f"-{effect.castings}")


@REGISTRY.spell("Burning Hands")
def burning_hands(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """The target unit's melee hits are doubled; more castings go on more units (R96 L1025-1026).
    ``effect.units`` names the unit(s)."""
    if effect.units:
        yield Modifier(
            MULTIPLY,
            MELEE,
            2,
            "Burning Hands",
            "R96 L1025-1026",
            scope="any",
            units=effect.units,
            note="the unit's melee hits doubled",
        )


@REGISTRY.spell("Dancing Lights")
def dancing_lights(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """The target army's missile and magic results are halved, rounded down; more castings go on
    other armies (R96 L1028-1030)."""
    if _on_army(effect):
        yield Modifier(DIVIDE, MISSILE, 2, "Dancing Lights", "R96 L1028-1030", note="missile halved")
        yield Modifier(DIVIDE, MAGIC, 2, "Dancing Lights", "R96 L1028-1030", note="magic halved")


@REGISTRY.spell("Wall of Fog")
def wall_of_fog(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """Halve every maneuver at the target terrain, and missile fire in, into or out of it
    (R96 L1047-1051).  ``target="terrain"``: the rolling army's terrain is fogged; ``"opponent"``: the
    terrain of the army it shoots at is fogged (missile only)."""
    if effect.target == "terrain":
        yield Modifier(
            DIVIDE, MANEUVER, 2, "Wall of Fog", "R96 L1047-1051", note="maneuvers at a fogged terrain halved"
        )
    if effect.target in ("terrain", "opponent") and ctx.purpose == MISSILE:
        yield Modifier(
            DIVIDE, MISSILE, 2, "Wall of Fog", "R96 L1047-1051", note="missile fire through fog halved"
        )


@REGISTRY.spell("Frost")
def frost(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
    """Green dragon breath: every roll of the army, or of its units alone, is halved, rounded down,
    until its owner's next turn (R96 L865-867)."""
    # FAQ96 SAI B counts Frost among the "spells" that never touch SAI results
    yield Modifier(
        DIVIDE,
        ALL,
        2,
        "Frost (green dragon breath)",
        "R96 L865-867; FAQ96 SAI B",
        scope="any",
        origin="spell",
        note="all results halved",
    )


#: The 25 spells of R96 (L964-1081) plus dragon breaths that linger on an army.
SPELL_NAMES = frozenset(
    {
        "Stoneskin",
        "Dust to Dust",
        "Path",
        "Transmute Rock to Mud",
        "Summon Gold Dragon",
        "Hailstorm",
        "Breath of Life",
        "Wind Walk",
        "Lightning Strike",
        "Summon Blue Dragon",
        "Ash Storm",
        "Spark of Life",
        "Burning Hands",
        "Dancing Lights",
        "Summon Red Dragon",
        "Watery Double",
        "Wall of Ice",
        "Wall of Fog",
        "Flash Flood",
        "Summon Green Dragon",
        "Reanimate Dead",
        "Palsy",
        "Finger of Death",
        "Open Grave",
        "Summon Black Dragon",
        "Frost",
    }
)
