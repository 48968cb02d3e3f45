"""Each game builds its own extensions from its set-up (rulebook.build_extensions): no hook is global."""

from __future__ import annotations

import pytest
from game_support import plain_setup

from companion.rules.core.state import INSTANT, PHASE_DRAGON, PHASE_SPECIES
from companion.rules.game import Game
from companion.rules.game.extensions import HOOK_POINTS
from companion.rules.game.rulebook import build_extensions
from companion.rules.game.spells import SPELLS


def test_two_games_never_share_a_hook():
    first, second = Game(plain_setup()), Game(plain_setup())
    assert first.extensions is not second.extensions

    def spare(game, dragon, marching, terrain):
        return True

    first.extensions.dragon_spare.append(spare)
    first.extensions.spell_effects["Stone Skin"] = spare
    assert spare not in second.extensions.dragon_spare
    assert second.extensions.spell_effects["Stone Skin"] is not spare
    assert spare not in Game(plain_setup()).extensions.dragon_spare  # nor a game made later


def test_every_game_has_its_phases_hooks_and_death_hooks():
    ext = build_extensions(plain_setup())
    assert set(ext.hooks) == set(HOOK_POINTS) and set(ext.phases) == {PHASE_SPECIES, PHASE_DRAGON}
    assert [name for _, name, _ in ext.death] == [
        "Open Grave",
        "Accelerated Growth",
        "Stepped Damage",
        "Replanting",
        "Rise from the Ashes",
        "Soiled Ground",
    ]
    assert set(SPELLS) <= set(ext.spell_effects)  # every V4.01c spell has an effect in every game


def test_an_unknown_hook_point_is_refused_by_name():
    ext = build_extensions({})
    with pytest.raises(KeyError, match="no hook point 'after_rol'"):
        ext.add("after_rol", print)
    assert all(hooks == build_extensions({}).hooks[p] for p, hooks in ext.hooks.items())  # nothing added


def test_which_spells_act_as_they_resolve_is_declared():
    """V4.01c L470-473: the caster orders the announced spells that act as they resolve; a lasting
    effect alone commutes.  Each spell says which it is (no look at how its effect is written)."""
    for rule in SPELLS.values():
        assert rule.acts_now == (rule.duration == INSTANT), rule.name
    assert SPELLS["Firebolt"].acts_now and not SPELLS["Stone Skin"].acts_now
