"""Registers the SAI and species-ability modules in the game flow's extension points.

* ``EXTENSIONS["roll_dice"]``: netted, webbed, asleep, stunned, hypnotized, charmed and
  counter-barred units sit out rolls (``sai_status``);
* ``EXTENSIONS["after_roll"]``: general SAI effects after any roll (``sai_general``);
* ``EXTENSIONS["check_move"]``: held units may not leave their terrain (``sai_status``);
* ``EXTENSIONS["before_roll"]``: a glaring unit may sit a roll out to keep its glare (``sai_status``);
* ``PHASE_HOOKS[PHASE_SPECIES]``: the species abilities phase (``species_play``, V4.01c L369-370),
  chained after any hook another module registered first;
* death hooks (``dua``): Stepped Damage, Replanting, Rise from the Ashes;
* ``dragons.RESPONSE_HOOKS``: Decapitate / Impale slay a Jaws dragon, Cloak lasts (``sai_dragon``).
"""

from __future__ import annotations

from . import flow, sai_general, sai_status, species_play
from .state import PHASE_SPECIES


def _chain(previous):
    """Another module's species-phase hook came first: run it, then this one."""

    def hook(game, pid):
        yield from previous(game, pid)
        yield from species_play.species_phase(game, pid)

    hook.species_play = True
    hook.advanced = getattr(previous, "advanced", False)
    return hook


def install() -> None:
    for key, fn in (("roll_dice", sai_status.roll_dice_filter), ("after_roll", sai_general.after_roll),
                    ("check_move", sai_status.check_move), ("before_roll", sai_status.glare_option)):
        if fn not in flow.EXTENSIONS[key]:
            flow.EXTENSIONS[key].append(fn)
    current = flow.PHASE_HOOKS.get(PHASE_SPECIES)
    if current is None:
        flow.PHASE_HOOKS[PHASE_SPECIES] = species_play.species_phase
    elif current is not species_play.species_phase and not getattr(current, "species_play", False):
        flow.PHASE_HOOKS[PHASE_SPECIES] = _chain(current)
    species_play.register_death_hooks()
    try:
        from . import sai_dragon
    except ImportError:  # pragma: no cover - the dragon attack phase ships with the flow
        return
    sai_dragon.install()


install()
