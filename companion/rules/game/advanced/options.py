"""Game options: which optional components of the Advanced Rules a game uses (V4.01c L2506-2508).

The Advanced Rules are optional and every player must agree to each before bringing its dice
(L2506-2508).  A set-up says so with ``"advanced"``: a list of component names, or an object
``{name: true/false}``.  Without that key the game uses the components whose dice the players
bring (older set-ups keep working); with it, a die of a component left out is refused.

Components: ``minor_terrains``, ``items``, ``dragonkin``, ``eldarim`` (the Eldarim champions: Eldarim
units are a standard species, L182-226, L806-850), ``dracolem`` (V4.01c prints no Dracolem species
page, only rules scattered through the book; the project keeps them optional like the Advanced dice).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ...core.errors import IllegalSetup
from ...core.state import DieSpec

if TYPE_CHECKING:
    from ..context import RuleContext

MINOR_TERRAINS, ITEMS, DRAGONKIN, ELDARIM, DRACOLEM = (
    "minor_terrains",
    "items",
    "dragonkin",
    "eldarim",
    "dracolem",
)
COMPONENTS = (MINOR_TERRAINS, ITEMS, DRAGONKIN, ELDARIM, DRACOLEM)
RULE = "V4.01c L2506-2508"


def component_of(spec: DieSpec) -> str | None:
    """The optional component a die belongs to, or None for a standard die."""
    if spec.kind == "minor_terrain":
        return MINOR_TERRAINS
    if spec.kind == "item":
        return ITEMS
    if spec.species == "Dragonkin":
        return DRAGONKIN
    if spec.species == "Eldarim" and spec.size == "Champion":
        return ELDARIM  # the champions are advanced dice (L2866-3057); Eldarim units are a standard species
    if "Dracolem" in spec.species:
        return DRACOLEM
    return None


def parse_options(value: Any) -> frozenset[str] | None:
    """The components chosen by a set-up's ``advanced`` value; None when the key is absent."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        names = [k for k, on in value.items() if on]
        unknown = [k for k in value if k not in COMPONENTS]
    elif isinstance(value, list | tuple):
        names = list(value)
        unknown = [k for k in value if k not in COMPONENTS]
    else:
        raise IllegalSetup(
            f"'advanced' must list optional components {list(COMPONENTS)}, not {value!r}", RULE
        )
    if unknown:
        raise IllegalSetup(f"unknown optional component(s) {unknown}; known: {list(COMPONENTS)}", RULE)
    return frozenset(names)


def dice_components(specs: Iterable[DieSpec]) -> frozenset[str]:
    return frozenset(c for c in (component_of(s) for s in specs) if c is not None)


def enabled(game: RuleContext) -> frozenset[str]:
    """The components in use in this game (worked out once, at set-up)."""
    found = game.notes.get("advanced_components", None)
    if found is None:
        found = _decide(game)
        game.notes["advanced_components"] = found
    return found


def is_on(game: RuleContext, component: str) -> bool:
    return component in enabled(game)


def _decide(game: RuleContext) -> frozenset[str]:
    chosen = parse_options(game.setup.get("advanced") if isinstance(game.setup, Mapping) else None)
    brought = dice_components(u.spec for u in game.state.units.values())
    if chosen is None:
        return brought
    refused = sorted(brought - chosen)
    if refused:
        owners = sorted(
            {
                game.state.player(u.owner).name
                for u in game.state.units.values()
                if component_of(u.spec) in refused
            }
        )
        raise IllegalSetup(
            f"{', '.join(owners)} brought dice of {', '.join(refused)}, which this game does not use "
            f"(advanced: {sorted(chosen)})",
            RULE,
        )
    return chosen


def check_options(game: RuleContext) -> None:
    """Set-up hook: decide the components (raises ``IllegalSetup`` for dice of a refused one)."""
    game.notes["advanced_components"] = None
    enabled(game)
