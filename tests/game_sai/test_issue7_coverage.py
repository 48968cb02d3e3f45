"""Issue 7's coverage guard: every SAI of the V4.01c table (80), every V4.01c spell (47) and every
species ability (27) is named in a test that plays it through the game flow (tests/game_*), and
every spell has an effect in the flow.  A new entry without an in-play test fails here."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from companion.rules.catalogue import load_catalogue
from companion.rules.game.rulebook import build_extensions
from companion.rules.game.spells.registry import SPELLS, effect_for
from companion.rules.v4.sai import SAI_RULES
from companion.rules.v4.species import SPECIES_ABILITIES

TESTS = Path(__file__).resolve().parent.parent
PLAY_DIRS = ("game", "game_sai", "game_dragons", "game_spells", "game_species", "game_advanced")


def _play_tests() -> str:
    return "\n".join(
        p.read_text().lower()
        for d in PLAY_DIRS
        for p in (TESTS / d).glob("test_*.py")
        if p.name != Path(__file__).name
    )


def test_every_sai_of_the_table_is_played_in_a_test():
    """V4.01c L1178-2084 (80 rows): each SAI's name appears in an in-play test (the logos of
    medallions and relics as "Logo")."""
    src = _play_tests()
    assert len(SAI_RULES) == 80
    missing = [n for n in SAI_RULES if n.split(" (")[0].lower() not in src]
    assert missing == []


def test_every_v4_spell_has_an_effect_and_an_in_play_test():
    """V4.01c L2085-2446: 47 spells."""
    src = _play_tests()
    v4 = {c.name for c in load_catalogue().spells if c.species != "Dracolem"}
    assert len(v4) == 47 and set(SPELLS) == v4
    game = SimpleNamespace(extensions=build_extensions({}))
    assert [n for n in sorted(v4) if effect_for(game, n) is None] == []
    assert [n for n in sorted(v4) if n.lower() not in src] == []


def test_every_species_ability_is_played_in_a_test():
    """V4.01c L771-998: 27 species abilities."""
    src = _play_tests()
    names = [k if isinstance(k, str) else k[-1] for k in SPECIES_ABILITIES]
    assert len(names) == 27
    assert [n for n in names if n.lower() not in src] == []
