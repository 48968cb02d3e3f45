"""Builds one V4.01c game's ``Extensions`` from its set-up: which rule modules join its flow, in order.

The one place that lists what plugs into the flow (the resolution engine's per-edition registry is the
model: ``companion.rules.resolution.registry``).  The order of each list is the order the rules run in.
The optional components of the Advanced Rules (minor terrains, items, Dragonkin, Eldarim, Dracolem) are
always plugged in: each of their hooks does nothing unless the game turns its component on
(``advanced.options.is_on``), which a game may do after set-up as well.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core.state import PHASE_DRAGON, PHASE_SPECIES
from . import dragon_summoning, dragons, sai_dragon, sai_general, sai_status, species_play
from .advanced import dracolem, dragonkin, eldarim, item_sais, items, minor_terrains, options
from .advanced import spells as advanced_spells
from .extensions import Extensions
from .spells import casting, death, water
from .spells.registry import SPELLS

if TYPE_CHECKING:
    from .context import Flow


def species_abilities_phase(game: Any, pid: str) -> Flow:
    """Phase 4 of the turn (V4.01c L369-370): the species abilities (``species_play``), then the
    Dragonkin Handlers of the Eldarim component (L842-850)."""
    yield from species_play.species_phase(game, pid)
    yield from eldarim.dragonkin_handlers(game, pid)


def build_extensions(setup: Mapping[str, Any] | None = None) -> Extensions:
    """The extensions of a game with this set-up (the same for every set-up today: see the docstring)."""
    ext = Extensions()
    # core rules: SAIs in play (sai_status, sai_general), Mire (water), Cantrip (casting), dragon IDs
    ext.add("setup", options.check_options, items.check_setup)
    ext.add("roll_dice", sai_status.roll_dice_filter, water.mire_dice, dragonkin.roll_dice, items.roll_dice)
    ext.add("before_roll", sai_status.glare_option)
    ext.add("before_resolution", dragons.id_split_hook, item_sais.before_resolution)
    ext.add(
        "after_roll",
        sai_general.after_roll,
        casting.cantrip_after_roll,
        item_sais.after_roll,
        dragonkin.after_roll,
        dracolem.after_roll,
    )
    ext.add("maneuver_step", water.mire_march, minor_terrains.maneuver_step)
    ext.add("actions", minor_terrains.actions)
    ext.add("killed", dragonkin.killed)
    ext.add("cleanup", dragonkin.cleanup, items.cleanup, minor_terrains.cleanup, eldarim.cleanup)
    ext.add("check_move", sai_status.check_move, dragonkin.check_move, minor_terrains.check_move)
    ext.add("check_moves", items.check_moves)
    ext.add("dua_counts", minor_terrains.dua_counts)
    ext.add("terrain_elements", minor_terrains.terrain_elements)
    ext.add("retreat_step", eldarim.ride)
    ext.add("before_decision", items.ask_excess)

    ext.phases[PHASE_SPECIES] = species_abilities_phase
    ext.phases[PHASE_DRAGON] = dragons.dragon_attack_phase

    # spells: each element module's effects (spells.registry), the summonings, the advanced spells
    ext.spell_effects.update({name: rule.effect for name, rule in SPELLS.items() if rule.effect is not None})
    ext.spell_effects.update(dragon_summoning.EFFECTS)
    for name, effect in advanced_spells.EFFECTS.items():
        ext.spell_effects.setdefault(name, effect)

    # every kill goes through these (dua.kill_flow), lowest order first
    death.register(ext)
    water.register(ext)
    species_play.register(ext)

    ext.dragon_response.extend((sai_dragon.response_hook, eldarim.response_hook))
    ext.dragon_spare.append(eldarim.spare_hook)
    ext.dragon_control.append(eldarim.control_hook)
    return ext
