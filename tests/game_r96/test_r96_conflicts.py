"""The six FAQ-vs-rulebook conflicts (worked-examples.md section 5): each settled for r96 by default and
switchable per game through ``setup["options"]``.  Conflict 1 (the charger's tie) is tested with the
charges in test_r96_turn_combat.py."""

from __future__ import annotations

import pytest
from r96_helpers import DUA, choose, roll, stage, started, where

from companion.rules.core.errors import IllegalSetup
from companion.rules.core.state import Unit, spec_for
from companion.rules.r96.game import CONFLICT_OPTIONS, OPTIONS, R96Game, game_options
from companion.rules.r96.game.rolls import Rolled, resolve_roll
from companion.rules.resolution import EffectInForce
from companion.rules.resolution import RollTerrain as At

FRONT = "frontier"


def rolled(purpose, *units_faces, **ctx):
    units = [Unit(f"x{i}", "p1", spec_for(n)) for i, (n, _) in enumerate(units_faces)]
    return Rolled(units, [[f] for _, f in units_faces], purpose, "p1", "t", ctx)


def total(r, kind, terrain=None, effects=(), **options):
    return resolve_roll(r, terrain, tuple(effects), game_options(options)).total(kind)


def test_six_conflict_options_exist_with_the_r96_defaults():
    assert len(CONFLICT_OPTIONS) == 6 and all(k in OPTIONS for k in CONFLICT_OPTIONS)
    assert game_options(None) | {} == {k: o.default for k, o in OPTIONS.items()}
    assert (
        game_options(None)["modifier_order"] == "r96"
        and game_options(None)["sai_units"] == "rare_and_monster"
    )
    with pytest.raises(IllegalSetup, match="unknown r96 option"):
        game_options({"nope": True})
    with pytest.raises(IllegalSetup, match="takes one of"):
        game_options({"modifier_order": "v4"})
    with pytest.raises(IllegalSetup):
        R96Game({"edition": "r96", "force_size": 6, "options": {"routing": "yes"}, "players": []})


def test_faq_conflict_2_spells_and_sai_results():
    """FAQ-CONFLICT-2 (FAQ96-03): R96 L705-708 and FAQ96 SAI B (default): spells never change SAI results;
    FAQ95 FIRE 4.F (option): they do."""
    palsy = [EffectInForce("Palsy", 1)]
    counter = rolled("melee", ("Dwarves/Skirmisher", "4 Counter"))
    assert total(counter, "melee", effects=palsy) == 4
    assert total(counter, "melee", effects=palsy, spells_modify_sais=True) == 3


def test_faq_conflict_3_add_before_or_after_multiply():
    """FAQ-CONFLICT-3 (FAQ95-12): highland dwarves roll 7 maneuvers under Transmute and Wind Walk:
    8 by R96 L953-961 (default), 14 by FAQ95 EARTH 4.F (option); (d) 9 with Fog too: 8 or 14."""
    highland = At("Highland", face=3)
    seven = rolled(
        "maneuver",
        ("Dwarves/Lizard Rider", "3 Maneuver"),
        ("Dwarves/Lizard Rider", "3 Maneuver"),
        ("Dwarves/Pony Rider", "1 Maneuver"),
    )
    spells = [EffectInForce("Transmute Rock to Mud", 1), EffectInForce("Wind Walk", 1)]
    assert total(seven, "maneuver", highland, spells) == 8
    assert total(seven, "maneuver", highland, spells, modifier_order="faq95") == 14
    nine = rolled("maneuver", *[("Dwarves/Lizard Rider", "3 Maneuver")] * 3)
    fog = spells + [EffectInForce("Wall of Fog", 1, target="terrain")]
    assert total(nine, "maneuver", highland, fog) == 8
    assert total(nine, "maneuver", highland, fog, modifier_order="faq95") == 14


def test_faq_conflict_4_wind_walk_and_racial_saves():
    """FAQ-CONFLICT-4 (R96-24): coral elves in coastland, 3 saves + 4 maneuvers, Wind Walk: 7 saves by
    R96 L796-804 (default), 13 by FAQ95 AIR 4.B (option)."""
    r = rolled(
        "save",
        ("Coral Elves/Protector", "3 Save"),
        ("Coral Elves/Knight", "2 Maneuver"),
        ("Coral Elves/Trooper", "2 Maneuver"),
    )
    walk = [EffectInForce("Wind Walk", 1)]
    assert total(r, "save", At("Coastland"), walk) == 7
    assert total(r, "save", At("Coastland"), walk, wind_walk_feeds_racial=True) == 13


def _skirmish(options):
    game = started(options=options)
    units = stage(
        game,
        {
            ("p1", FRONT): ["Dwarves/Footman"],
            ("p2", FRONT): ["Goblins/Thug", "Goblins/Thug"],
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
        faces={FRONT: 5},
    )
    choose(game, FRONT)
    choose(game, "stay")
    choose(game, "melee")
    choose(game, "skirmish")
    roll(game, "2 Melee")
    return game, units


def test_faq_conflict_5_the_save_roll():
    """FAQ-CONFLICT-5: FAQ96 MELEE A (default): the save roll is always made; FAQ95 MELEE A (option): it
    may be declined when no rout can follow."""
    game, _ = _skirmish({})
    assert game.pending.kind == "roll" and game.pending.player == "p2"
    game, units = _skirmish({"optional_save_roll": True})
    assert game.pending.topic == "save_or_not"
    choose(game, False)
    assert sum(where(game, u) == DUA for u in units[("p2", FRONT)]) == 2
    game, _ = _skirmish({"optional_save_roll": True, "routing": True})
    assert game.pending.kind == "roll"  # a rout is possible: the roll must be made


def test_faq_conflict_6_which_units_carry_sais():
    """FAQ-CONFLICT-6: R96 L685-690 (default): rares and monsters; FAQ96 SAI A (option): rares only."""
    giant = rolled("melee", ("Coral Elves/Coral Giant", "4 Trample"))
    assert total(giant, "melee") == 4
    assert total(giant, "melee", sai_units="rare_only") == 0
    rare = rolled("melee", ("Dwarves/Mammoth Rider", "3 Trample"))
    assert total(rare, "melee", sai_units="rare_only") == 3
