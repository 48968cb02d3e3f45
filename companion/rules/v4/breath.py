"""Lasting elemental dragon-breath effects on an army (V4.01c L695-728), named like spells in
``RollRequest.effects`` ("Lightning Bolt", "Dragon Plague", "Petrify", "Poisonous Cloud").
They last until the beginning of the army's next turn; halving breath effects are not cumulative,
though different ones apply together (L703-706)."""

from __future__ import annotations

from collections.abc import Iterable

from companion.rules.resolution.model import DIVIDE, MANEUVER, MELEE, MISSILE, EffectInForce, Modifier
from companion.rules.resolution.registry import Contribution, IdMultiplier, RollContext, SpellHook

from .registry import REGISTRY

CITE = "V4.01c L708-728"
HALVING = {"Lightning Bolt": MELEE, "Petrify": MANEUVER, "Poisonous Cloud": MISSILE}
NAMES = frozenset(HALVING) | {"Dragon Plague"}


def _halving(name: str, result: str) -> SpellHook:
    def hook(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
        if effect.target == "army" and not ctx.individual:
            # one halving however many castings: breath halving is not cumulative (L703-706)
            yield Modifier(
                DIVIDE, result, 2, name, CITE, origin="rule", note=f"{name}: {result} results halved"
            )

    hook.__name__ = name.lower().replace(" ", "_")
    hook.__doc__ = f"{name} breath: the army's {result} results are halved, rounded down ({CITE})."
    return hook


for _name, _result in HALVING.items():
    REGISTRY.spell(_name)(_halving(_name, _result))


@REGISTRY.rule("Dragon Plague")
def dragon_plague(ctx: RollContext) -> Iterable[Contribution]:
    """Death breath: the army ignores all its ID results until the beginning of its next turn
    (V4.01c L712-713)."""
    if ctx.individual:
        return ()
    if any(e.name == "Dragon Plague" and e.target == "army" for e in ctx.request.effects):
        return (IdMultiplier(0, "Dragon Plague: ID results ignored", "V4.01c L712-713"),)
    return ()
