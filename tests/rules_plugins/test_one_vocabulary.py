"""The V4 plug-in tables and the resolution engine speak one modifier vocabulary: every result type,
stage and "results of any type" a table gives is the engine's own (``resolution.model``), and a
table's modifier is the engine's ``Modifier`` with the rules' ``reach`` (whose rolls), so what a table
says reaches the engine without a translation table; a modifier that reaches other rolls carries a
report kind from its scope, and the engine refuses one that was not bound to this roll."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.rules.catalogue import load_catalogue
from companion.rules.resolution import EffectInForce, Registry, RolledUnit, RollRequest, get_edition, resolve
from companion.rules.resolution.model import ALL, CANTRIP, RESULT_TYPES, Modifier, Op
from companion.rules.v4.contributions import Contribution, Scope
from companion.rules.v4.sai import sai_contribution
from companion.rules.v4.situation import ROLL_FOR, Situation
from companion.rules.v4.species import SPECIES_ABILITIES, species_contributions
from companion.rules.v4.spells import ROLL_SPELLS, spell_contribution

#: Scopes the plug-ins bind to units of this roll; every other scope becomes a report.
BOUND = {Scope.THIS_ROLL, Scope.ONE_UNIT, Scope.UNITS_OF_SPECIES, Scope.OWN_ARMY_ROLLS}


def situations() -> list[Situation]:
    out = [Situation(roll_for=p) for p in ROLL_FOR]
    out += [
        Situation(roll_for="save", against=a) for a in ("melee", "missile", "magic", "dragon", "individual")
    ]
    out += [
        Situation(roll_for="melee", counter_attack=True),
        Situation(roll_for="maneuver", counter_maneuver=True),
        Situation(roll_for="magic", at_terrain=False),
        Situation(
            roll_for="save", at_terrain=True, terrain_elements=frozenset({"Water", "Fire", "Earth", "Air"})
        ),
    ]
    return out


def contributions() -> list[Contribution]:
    cat = load_catalogue()
    out: list[Contribution] = []
    for s in situations():
        for die in cat:
            for face in die.faces:
                if face.sai is not None:
                    out.append(sai_contribution(face.sai, face.count, s, die))
        for species in {a.species for a in SPECIES_ABILITIES.values()}:
            out.extend(species_contributions(species, s, active=("Javelin Charge", "Kukri Charge")))
        for spell in ROLL_SPELLS.values():
            c = spell_contribution(spell.name, s, castings=2)
            if c is not None:
                out.append(c)
    return out


CONTRIBUTIONS = contributions()


def test_tables_give_the_engines_result_types():
    keys = {k for c in CONTRIBUTIONS for k in c.results}
    assert keys <= set(RESULT_TYPES) | {CANTRIP}
    assert keys >= set(RESULT_TYPES)  # the tables do give every type (the check above is not empty)


def test_table_modifiers_use_the_engines_stages_and_all():
    mods = [m for c in CONTRIBUTIONS for m in c.modifiers]
    assert {m.stage for m in mods} == set(Op)
    assert all(isinstance(m.stage, Op) for m in mods)
    results = {m.result for m in mods}
    assert results <= set(RESULT_TYPES) | {ALL}
    assert ALL in results  # Ash Storm, Wither, Frost Breath... on "results" of any type
    counts_as = [ca for c in CONTRIBUTIONS for ca in c.counts_as]
    assert counts_as and all(ca.counts_as in RESULT_TYPES and ca.result in RESULT_TYPES for ca in counts_as)
    assert all(isinstance(m, Modifier) for m in mods + counts_as)


def test_every_scope_is_bound_to_this_roll_or_reported():
    for scope in Scope:
        assert (scope in BOUND) == (scope.report_kind is None), scope
    seen = {m.reach for c in CONTRIBUTIONS for m in c.modifiers}
    assert seen - BOUND, "some table modifier reaches other rolls (a report), or this test checks nothing"


def test_army_wide_scopes_are_those_that_change_a_whole_army_roll():
    assert {s for s in Scope if s.army_wide} == {
        Scope.THIS_ROLL,
        Scope.TARGET_ARMY_ROLLS,
        Scope.OWN_ARMY_ROLLS,
        Scope.TERRAIN_ROLLS,
    }


REG = Registry("reach")


@REG.spell("Howl aimed here")
def _howl(ctx, effect):
    # a table's modifier for the defender's save roll, handed to the engine without binding it
    return (Modifier(Op.SUBTRACT, "save", 2, "Howl", "V4.01c L1637-1642", reach=Scope.DEFENDER_SAVE_ROLL),)


def test_the_engine_refuses_a_modifier_that_reaches_other_rolls():
    edition = replace(
        get_edition("v4"), key="reach", registry=REG, spell_names=frozenset({"Howl aimed here"})
    )
    die = load_catalogue()["Dwarves/Footman"]
    request = RollRequest(
        "save", (RolledUnit(die, (die.faces[0],)),), effects=(EffectInForce("Howl aimed here"),)
    )
    with pytest.raises(TypeError, match="Howl: a modifier of \"the defending army's save roll"):
        resolve(request, edition, memo=False)
