"""Exact odds (companion.rules.odds): the convolution must give the same distribution as resolving
every combination of faces one by one with the resolution engine."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from companion.rules.catalogue import load_catalogue
from companion.rules.odds import ArmyModifier, OddsError, apply_modifiers, army_odds, face_value
from companion.rules.resolution import EffectInForce, RolledUnit, RollRequest, RollTerrain, resolve
from companion.rules.v4.contributions import Op

CAT = load_catalogue()


def plain_dice(species: str, purpose: str, terrain, count: int = 3):
    """Units of a species none of whose faces rolls the die again in this roll."""
    against = "melee" if purpose == "save" else None
    out = []
    for die in CAT.of_species(species):
        if die.kind.value != "unit":
            continue
        if any(face_value(die, f, purpose, against=against, terrain=terrain).rerolls for f in die.faces):
            continue
        out.append(die)
        if len(out) == count:
            break
    return out


def enumerate_totals(dice, purpose, terrain, effects=()):
    against = "melee" if purpose == "save" else None
    counts: Counter = Counter()
    for combo in itertools.product(*(d.faces for d in dice)):
        req = RollRequest(
            purpose,
            tuple(RolledUnit(d, (f,)) for d, f in zip(dice, combo, strict=True)),
            against=against,
            terrain=terrain,
            effects=tuple(effects),
        )
        counts[resolve(req).total(purpose)] += 1
    n = sum(counts.values())
    return {k: Fraction(v, n) for k, v in counts.items()}


@pytest.mark.parametrize("purpose", ["maneuver", "melee", "missile", "magic", "save"])
@pytest.mark.parametrize(
    ("species", "terrain"),
    [
        ("Goblins", RollTerrain("Swampland", face=3)),  # Swamp Mastery counts melee as maneuver here
        ("Dwarves", RollTerrain("Highland", face=8, eighth="City", controlled=True)),  # IDs doubled
        ("Coral Elves", RollTerrain("Coastland", face=2)),
    ],
)
def test_exact_odds_equal_resolving_every_combination(species, terrain, purpose):
    dice = plain_dice(species, purpose, terrain)
    assert len(dice) == 3
    want = enumerate_totals(dice, purpose, terrain)
    odds = army_odds(dice, purpose, terrain=terrain)
    for total in set(want) | set(range(len(odds.pmf))):
        assert odds.p_exactly(total) == pytest.approx(float(want.get(total, 0)), abs=1e-12), total


def test_eighth_face_doubles_ids():
    die = CAT["Dwarves/Mammoth Rider"]
    plain = army_odds([die], "melee", terrain=RollTerrain("Highland", face=3))
    held = army_odds([die], "melee", terrain=RollTerrain("Highland", face=8, eighth="City", controlled=True))
    id_face = die.id_face
    assert held.mean - plain.mean == pytest.approx(id_face.count / len(die.faces))
    assert any("eighth face" in n for n in held.notes)


def test_a_die_that_rolls_again_adds_a_geometric_series():
    die = CAT["Dwarves/Roc"]  # Rend: melee results and roll again (V4.01c SAI table)
    terrain = RollTerrain("Highland", face=3)
    values = [face_value(die, f, "melee", terrain=terrain) for f in die.faces]
    again = sum(v.rerolls for v in values)
    assert again, "the Roc has Rend faces"
    odds = army_odds([die], "melee", terrain=terrain)
    n = len(values)
    expected = (sum(v.total for v in values) / n) / (1 - again / n)
    assert odds.mean == pytest.approx(expected, rel=1e-12)
    assert odds.pmf.sum() == pytest.approx(1.0, abs=1e-12)


def test_army_modifiers_follow_resolution_order():
    joint = np.zeros((6, 4, 1))
    joint[5, 3, 0] = 1.0  # 5 normal results, 3 SAI results
    total = lambda mods: int(np.argmax(apply_modifiers(joint, mods)))  # noqa: E731
    assert total([ArmyModifier(Op.SUBTRACT, 1), ArmyModifier(Op.DIVIDE, 2)]) == 5  # (5-1)//2 + 3
    assert total([ArmyModifier(Op.DIVIDE, 2), ArmyModifier(Op.DIVIDE, 3)]) == 4  # one divider: the largest
    assert total([ArmyModifier(Op.SUBTRACT, 9)]) == 3  # never below 0; SAI results added after
    assert total([ArmyModifier(Op.MULTIPLY, 2), ArmyModifier(Op.ADD, 1)]) == 17  # (5+3)*2 + 1
    with pytest.raises(OddsError):
        apply_modifiers(joint, [ArmyModifier(Op.DIVIDE, 0)])


def test_modifiers_on_a_whole_army():
    dice = [CAT["Goblins/Marauder"], CAT["Goblins/Filcher"], CAT["Goblins/Deadeye"]]
    terrain = RollTerrain("Flatland", face=3)
    mods = [ArmyModifier(Op.SUBTRACT, 1), ArmyModifier(Op.DIVIDE, 2)]
    halved = army_odds(dice, "melee", terrain=terrain, modifiers=mods)
    # every combination by hand: only the step-5 subtotal is reduced and halved, SAI results are not
    want: Counter = Counter()
    for combo in itertools.product(*(d.faces for d in dice)):
        vals = [face_value(d, f, "melee", terrain=terrain) for d, f in zip(dice, combo, strict=True)]
        total = (
            max(sum(v.normal for v in vals) - 1, 0) // 2
            + sum(v.sai for v in vals)
            + sum(v.late for v in vals)
        )
        want[total] += 1
    n = sum(want.values())
    assert any(face_value(d, f, "melee", terrain=terrain).sai for d in dice for f in d.faces), (
        "some SAI melee"
    )
    for total in set(want) | set(range(len(halved.pmf))):
        assert halved.p_exactly(total) == pytest.approx(want.get(total, 0) / n, abs=1e-12)


@pytest.mark.parametrize(
    ("purpose", "effects"),
    [
        ("melee", [EffectInForce("Ash Storm", 2, "terrain")]),  # subtract 2 at step 6 (V4.01c L2297-2301)
        ("save", [EffectInForce("Stone Skin", 1)]),  # add 1 save at step 10 (V4.01c L2253-2256)
        ("maneuver", [EffectInForce("Ash Storm", 1, "terrain"), EffectInForce("Stone Skin", 1)]),
    ],  # Ash only
)
def test_spells_in_force_give_the_odds_resolution_gives(purpose, effects):
    """Effects in force are turned into modifiers by the same spell tables the resolution engine
    uses: the odds equal resolving every combination with those effects."""
    terrain = RollTerrain("Flatland", face=3)
    dice = plain_dice("Goblins", purpose, terrain)
    want = enumerate_totals(dice, purpose, terrain, effects)
    odds = army_odds(dice, purpose, terrain=terrain, effects=effects)
    assert want != enumerate_totals(dice, purpose, terrain), "the effects change this roll"
    for total in set(want) | set(range(len(odds.pmf))):
        assert odds.p_exactly(total) == pytest.approx(float(want.get(total, 0)), abs=1e-12), total
    assert any(e.name in note for e in effects for note in odds.notes)


def test_odds_report():
    odds = army_odds(
        ["Dwarves/Mammoth Rider", "Dwarves/Footman"], "melee", terrain=RollTerrain("Highland", face=3)
    )
    d = odds.to_dict(need=3)
    assert d["p_at_least"] == pytest.approx(sum(p for v, p in d["distribution"] if v >= 3))
    assert odds.p_at_least(0) == 1.0 and odds.p_at_least(10_000) == 0.0
    assert odds.mode == max(range(len(odds.pmf)), key=lambda k: odds.pmf[k])


def test_odds_errors():
    with pytest.raises(OddsError, match="unknown die"):
        army_odds(["Nobody/Nothing"], "melee")
    with pytest.raises(OddsError, match="terrain"):
        army_odds(["Dwarves/Footman"], "terrain")
    with pytest.raises(OddsError, match="unknown spell"):
        army_odds(["Dwarves/Footman"], "melee", effects=[EffectInForce("Not A Spell")])
