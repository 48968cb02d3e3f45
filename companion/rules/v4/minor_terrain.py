"""The active result of a minor terrain on the army that controls it (V4.01c L2636-2692), named like
a lasting effect in ``RollRequest.effects`` ("Double Maneuvers", "Double Saves", "Dust Storm",
"Flanked", "Flood", "Revolt"), target ``"army"``.

Double Maneuvers / Double Saves double the army's ID results in that kind of roll (a multiplier of
ID results, like the eighth face, L501); the four disasters halve one result type, rounded down
(step 7).  The alternate-action faces (Magic, Melee, Missile, ID) change no roll: the game flow
handles them.  Army modifiers never touch a unit rolling alone (L1050-1066).
"""

from __future__ import annotations

from collections.abc import Iterable

from companion.rules.resolution.model import DIVIDE, MANEUVER, MELEE, MISSILE, SAVE, EffectInForce, Modifier
from companion.rules.resolution.registry import Contribution, IdMultiplier, RollContext, SpellHook

from .registry import REGISTRY

CITE = "V4.01c L2669-2692"
#: disaster faces and the result type each halves (L2678-2692)
HALVING = {"Dust Storm": MISSILE, "Flanked": SAVE, "Flood": MANEUVER, "Revolt": MELEE}
#: doubling faces and the roll type whose ID results they double (L2669-2676)
DOUBLING = {"Double Maneuvers": MANEUVER, "Double Saves": SAVE}
NAMES = frozenset(HALVING) | frozenset(DOUBLING)


def _halving(name: str, result: str) -> SpellHook:
    def hook(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
        if effect.target == "army" and not ctx.individual:
            yield Modifier(
                DIVIDE,
                result,
                2,
                f"Minor terrain: {name}",
                CITE,
                origin="terrain",
                note=f"{name}: the army's {result} results are halved",
            )

    hook.__name__ = "minor_terrain_" + name.lower().replace(" ", "_")
    hook.__doc__ = f"Minor terrain {name}: the controlling army's {result} results are halved ({CITE})."
    return hook


for _name, _result in HALVING.items():
    REGISTRY.spell(_name)(_halving(_name, _result))


@REGISTRY.rule("Minor terrain doubling")
def minor_terrain_doubling(ctx: RollContext) -> Iterable[Contribution]:
    """Double Maneuvers / Double Saves: the controlling army doubles its ID results when it rolls for
    maneuvers / saves (V4.01c L2669-2675)."""
    if ctx.individual:
        return ()
    for effect in ctx.request.effects:
        kind = DOUBLING.get(effect.name)
        if kind is not None and effect.target == "army" and kind in ctx.counted and ctx.purpose == kind:
            return (IdMultiplier(2, f"Minor terrain {effect.name}: ID results doubled", CITE),)
    return ()
