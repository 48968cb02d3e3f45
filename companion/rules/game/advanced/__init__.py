"""The optional components of the V4.01c Advanced Rules in the game flow (L2506-3058): minor
terrains, items (equipment, artifacts, medallions, relics), Dragonkin, Eldarim champions and
Dracolem, each chosen per game (``options``).

Each game's extensions (``rulebook.build_extensions``) hold the components' hooks, spell effects,
the Species Abilities Phase's Dragonkin Handlers and the Eldarim champions' dragon attack hooks.
Every hook does nothing when its component is off.
"""

from __future__ import annotations

from . import dracolem, dragonkin, eldarim, item_sais, items, minor_terrains, options, spells
from .options import COMPONENTS, enabled, is_on

__all__ = [
    "COMPONENTS",
    "dracolem",
    "dragonkin",
    "eldarim",
    "enabled",
    "is_on",
    "item_sais",
    "items",
    "minor_terrains",
    "options",
    "spells",
]
