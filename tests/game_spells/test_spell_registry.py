"""The spell registry against the catalogue and the rulebook's spell lists (V4.01c L2085-2446)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from companion.rules.catalogue import load_catalogue
from companion.rules.core.state import INSTANT, UNTIL_YOUR_NEXT_TURN
from companion.rules.game.rulebook import build_extensions
from companion.rules.game.spells import SPELLS
from companion.rules.game.spells.registry import effect_for

V4_SPELLS = {c.name for c in load_catalogue().spells if c.species != "Dracolem"}


def test_all_47_spells_registered():
    """V4.01c L2157-2446: 47 spells (the Dracolem alloy cards are not printed there)."""
    assert len(V4_SPELLS) == 47
    assert set(SPELLS) == V4_SPELLS


def test_every_spell_has_an_effect_and_a_citation_in_the_spell_lists():
    """Each spell's lines sit in the spell lists (L2157-2446) and an effect is registered for it
    (Summon Dragon / Summon White Dragon: the dragons module; the component spells: advanced)."""
    game = SimpleNamespace(extensions=build_extensions({}))
    for name, rule in SPELLS.items():
        first, last = (int(x) for x in rule.lines.split("-"))
        assert 2157 <= first <= last <= 2446, name
        assert effect_for(game, name) is not None, name


def test_durations_and_cumulative_numbers():
    """V4.01c L2131-2156: lasting spells last until the caster's next turn; the highlighted numbers."""
    assert SPELLS["Wind Walk"].per_casting == 4 and SPELLS["Wind Walk"].duration == UNTIL_YOUR_NEXT_TURN
    assert SPELLS["Hailstorm"].per_casting == 1 and SPELLS["Hailstorm"].duration == INSTANT
    assert not SPELLS["Necromantic Wave"].cumulative and not SPELLS["Lightning Strike"].cumulative
    assert SPELLS["Transmute Rock to Mud"].per_casting == 6


def test_effect_functions_cite_their_lines():
    """Each spell module's effect docstring names its rulebook lines (code rules: citations next to code)."""
    for name, rule in SPELLS.items():
        if rule.effect is None:
            continue
        doc = rule.effect.__doc__ or ""
        first = rule.lines.split("-")[0]
        assert f"L{first}" in doc, name


def test_every_spell_has_a_test():
    """Each of the 47 spells is named in a test of this folder."""
    text = "".join(p.read_text() for p in Path(__file__).parent.glob("test_spells_*.py"))
    missing = [n for n in V4_SPELLS if f'"{n}"' not in text]
    assert not missing, missing
