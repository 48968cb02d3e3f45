"""The optional components of the V4.01c Advanced Rules in the game flow (L2506-3058): minor
terrains, items (equipment, artifacts, medallions, relics), Dragonkin, Eldarim champions and
Dracolem, each chosen per game (``options``).

Importing this package plugs the components into the flow's ``EXTENSIONS`` hooks, the spell-effect
registry (``SPELL_EFFECTS``), the Species Abilities Phase (Dragonkin Handlers) and the dragon
attack's response hooks (Eldarim champions).  Every hook does nothing when its component is off.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from . import dracolem, dragonkin, eldarim, item_sais, items, minor_terrains, options, spells
from .options import COMPONENTS, enabled, is_on

__all__ = ["COMPONENTS", "dracolem", "dragonkin", "eldarim", "enabled", "install", "is_on", "item_sais", "items",
           "minor_terrains", "options", "spells"]


def _species_phase(previous):
    def hook(game, pid: str) -> Generator[Any, Any, Any]:
        if previous is not None:
            yield from previous(game, pid)
        yield from eldarim.dragonkin_handlers(game, pid)

    hook.advanced = True
    return hook


def install() -> None:
    """Register the hooks once (importing the package calls it)."""
    from .. import flow

    ext = flow.EXTENSIONS
    wanted = {
        "setup": [options.check_options, items.check_setup],
        "roll_dice": [dragonkin.roll_dice, items.roll_dice],
        "after_roll": [item_sais.after_roll, dragonkin.after_roll, dracolem.after_roll],
        "maneuver_step": [minor_terrains.maneuver_step],
        "actions": [minor_terrains.actions],
        "killed": [dragonkin.killed],
        "cleanup": [dragonkin.cleanup, items.cleanup, minor_terrains.cleanup, eldarim.cleanup],
        "before_decision": [items.ask_excess],
        "check_move": [dragonkin.check_move, minor_terrains.check_move],
        "dua_counts": [minor_terrains.dua_counts],
        "terrain_elements": [minor_terrains.terrain_elements],
        "check_moves": [items.check_moves],
        "before_resolution": [item_sais.before_resolution],
        "retreat_step": [eldarim.ride],
    }
    for key, hooks in wanted.items():
        ext.setdefault(key, [])
        for hook in hooks:
            if hook not in ext[key]:
                ext[key].append(hook)
    for name, effect in spells.EFFECTS.items():
        flow.SPELL_EFFECTS.setdefault(name, effect)
    current = flow.PHASE_HOOKS.get(flow.PHASE_SPECIES)
    if not getattr(current, "advanced", False):
        flow.PHASE_HOOKS[flow.PHASE_SPECIES] = _species_phase(current)
    try:
        from .. import dragons
    except ImportError:  # pragma: no cover - the dragon attack phase ships with the flow
        dragons = None
    if dragons is not None and eldarim.response_hook not in dragons.RESPONSE_HOOKS:
        dragons.RESPONSE_HOOKS.append(eldarim.response_hook)
    spare = getattr(dragons, "SPARE_HOOKS", None)
    if spare is not None and eldarim.spare_hook not in spare:
        spare.append(eldarim.spare_hook)
    control = getattr(dragons, "CONTROL_HOOKS", None)
    if control is not None and eldarim.control_hook not in control:
        control.append(eldarim.control_hook)


install()
