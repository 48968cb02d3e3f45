"""The roller's choices asked as decisions once the faces are known (``roll_choices``): Wilding's unit,
Fiery Weapon's melee or missile, Elevate's unit (and saves or missile against dragons), Fly's and
Create Fireminions' result type in combination rolls.  Each test picks what the old automatic choice
would not have picked, so it fails if the choice is ignored."""

from __future__ import annotations

import pytest
from sai_arena import arena, drive, roll

from companion.rules.core.state import UNTIL_YOUR_NEXT_TURN


def _prompts(driver) -> list[str]:
    return [d.prompt for d in driver.decisions if d.kind == "choice"]


def _tidal_wave_roll(game, faces, answers):
    """Tidal Wave's one roll of Alice's Frontier army, counting saves and maneuvers (V4.01c L2374-2383)."""
    from companion.rules.game.spells.casting import combination_roll

    army = game.state.army("p1", "frontier")
    return drive(
        game,
        combination_roll(game, army, ("save", "maneuver"), "Tidal Wave roll", "V4.01c L2374-2383"),
        faces=faces,
        answers=answers,
    )


def test_wilding_doubles_the_unit_the_roller_selects():
    """V4.01c L2167-2171: the army may double the melee and saves of one unit per casting, the unit
    selected after the army rolls.  War Chief 4 melee, Soldier 2: doubling the Soldier gives 8
    (the unit that rolled most would have given 12)."""
    game, (chief, soldier), _ = arena(["Amazons/War Chief", "Amazons/Soldier"], ["Amazons/Soldier"])
    game.add_effect("Wilding", "p1", "p1@frontier", UNTIL_YOUR_NEXT_TURN)
    d = roll(
        game, "p1", "melee", faces={chief: ["4 Melee"], soldier: ["2 Melee"]}, answers=[("Wilding", "1")]
    )
    ask = next(x for x in d.decisions if "Wilding" in x.prompt)
    assert ask.player == "p1" and [c["value"] for c in ask.choices] == ["0", "1"]
    assert d.result.total == 4 + 2 * 2


def test_wilding_doubles_one_unit_for_both_melee_and_saves():
    """L2167-2171: one unit's melee *and* saves.  Against a dragon (melee, missile and saves count,
    L670-681) the War Chief rolls 4 melee and the Warrior 2 saves: Wilding on the Warrior doubles its
    saves only (4 melee, 4 saves), never the War Chief's melee as well."""
    game, (chief, warrior), _ = arena(["Amazons/War Chief", "Amazons/Warrior"], ["Amazons/Soldier"])
    game.add_effect("Wilding", "p1", "p1@frontier", UNTIL_YOUR_NEXT_TURN)
    d = roll(
        game,
        "p1",
        "dragon",
        faces={chief: ["4 Melee"], warrior: ["2 Save"]},
        answers=[("Wilding", "1")],
        against="dragon",
    )
    assert d.result.totals.get("melee", 0) == 4 and d.result.totals.get("save", 0) == 4


def test_two_wildings_double_two_different_units():
    """Cumulative: one unit per casting (L2167-2171, L2143-2149)."""
    game, (chief, warrior, soldier), _ = arena(
        ["Amazons/War Chief", "Amazons/Warrior", "Amazons/Soldier"], ["Amazons/Soldier"]
    )
    game.add_effect("Wilding", "p1", "p1@frontier", UNTIL_YOUR_NEXT_TURN, castings=2)
    d = roll(
        game,
        "p1",
        "melee",
        faces={chief: ["4 Melee"], warrior: ["3 Melee"], soldier: ["2 Melee"]},
        answers=[("Wilding", "1"), ("Wilding", "2")],
    )
    assert sum("Wilding" in p for p in _prompts(d)) == 2
    assert d.result.total == 4 + 6 + 4


@pytest.mark.parametrize(
    ("effect", "caster", "unit", "face"),
    [
        pytest.param("Fiery Weapon", "p1", "Amazons/Soldier", "1 Maneuver", id="fiery_weapon_l2323_2326"),
        pytest.param("Necromantic Wave", "p2", "Amazons/Seer", "2 Magic", id="necromantic_wave_l2227_2233"),
    ],
)
def test_melee_or_missile_goes_to_missile_when_the_owner_says_so(effect, caster, unit, face):
    """Fiery Weapon gives +2 melee *or* missile (V4.01c L2323-2326); under Necromantic Wave the army's
    units may count magic results as melee *or* missile (L2227-2233).  In the response to a dragon
    attack both count (L670-681): the owner puts them on missile (2 either way)."""
    game, (u,), _ = arena([unit], ["Amazons/Soldier"])
    game.add_effect(effect, caster, "p1@frontier", UNTIL_YOUR_NEXT_TURN)
    d = roll(game, "p1", "dragon", faces={u: [face]}, answers=[(effect, "missile")], against="dragon")
    assert d.result.totals.get("missile", 0) == 2 and d.result.totals.get("melee", 0) == 0


def test_fiery_weapon_in_a_melee_roll_asks_nothing():
    """A melee roll counts only melee: no question, +2 melee (L2323-2326)."""
    game, (soldier,), _ = arena(["Amazons/Soldier"], ["Amazons/Soldier"])
    game.add_effect("Fiery Weapon", "p1", "p1@frontier", UNTIL_YOUR_NEXT_TURN)
    d = roll(game, "p1", "melee", faces={soldier: ["1 Maneuver"]})
    assert not _prompts(d) and d.result.total == 2


def test_elevate_doubles_the_missile_of_the_chosen_unit():
    """V4.01c L1491-1492: during a missile attack, double one unit's missile results; the roller
    chooses the Darter (1) over the Crossbowman (2): 2 + 2 = 4."""
    game, (cross, darter, carpet), _ = arena(
        ["Dwarves/Crossbowman", "Amazons/Darter", "Items/Air Flying Carpet"], ["Amazons/Soldier"]
    )
    d = roll(
        game,
        "p1",
        "missile",
        faces={cross: ["2 Missile"], darter: ["1 Missile"], carpet: ["4 Elevate"]},
        answers=[("Elevate", "1")],
    )
    assert any("Elevate" in p for p in _prompts(d))
    assert d.result.total == 2 + 2


def test_elevate_against_a_dragon_doubles_saves_or_missile_as_chosen():
    """V4.01c L1496-1497: during a dragon attack, double one unit's missile *or* save results: the
    roller takes missile on the Darter (2 -> 4)."""
    game, (darter, soldier, carpet), _ = arena(
        ["Amazons/Darter", "Amazons/Soldier", "Items/Air Flying Carpet"], ["Amazons/Soldier"]
    )
    d = roll(
        game,
        "p1",
        "dragon",
        faces={darter: ["2 Missile"], soldier: ["1 Save"], carpet: ["4 Elevate"]},
        answers=[("saves or missile", "Missile"), ("Elevate: double the", "0")],
        against="dragon",
    )
    assert d.result.totals.get("missile", 0) == 4 and d.result.totals.get("save", 0) == 1


def test_fly_in_a_combination_roll_counts_as_the_roller_says():
    """V4.01c L1586-1587 and L1089-1096: Fly gives X maneuver or X saves; in a roll counting both the
    roller chooses: maneuver."""
    game, (shadow,), _ = arena(["Firewalkers/Fireshadow"], ["Amazons/Soldier"])
    d = roll(
        game,
        "p1",
        "save",
        faces={shadow: ["4 Fly"]},
        answers=[("Fly", "Maneuver:4,Save:0")],
        counted=("save", "maneuver"),
    )
    assert d.result.totals.get("maneuver", 0) == 4 and d.result.totals.get("save", 0) == 0


@pytest.mark.parametrize(
    ("answer", "want"),
    [
        pytest.param("Melee:0,Missile:4,Save:0", (0, 4, 0), id="all_missile"),
        pytest.param("Melee:2,Missile:0,Save:2", (2, 0, 2), id="split_melee_and_saves"),
    ],
)
def test_create_fireminions_against_a_dragon_counts_as_the_roller_says(answer, want):
    """V4.01c L1405-1406: X magic, maneuver, melee, missile or save results; against a dragon
    (melee, missile, saves) the roller takes them all as missile, or splits them between the types
    the combination roll needs (L1089-1090): 2 melee and 2 saves."""
    game, (shadow,), _ = arena(["Firewalkers/Fireshadow"], ["Amazons/Soldier"])
    d = roll(
        game,
        "p1",
        "dragon",
        faces={shadow: ["4 Create Fireminions"]},
        answers=[("Create Fireminions", answer)],
        against="dragon",
    )
    ask = next(x for x in d.decisions if "Create Fireminions" in x.prompt)
    assert len(ask.choices) == 15  # the ways to share 4 results among melee, missile and saves
    t = d.result.totals
    assert (t.get("melee", 0), t.get("missile", 0), t.get("save", 0)) == want


def test_fly_in_tidal_waves_save_and_maneuver_roll_is_the_rollers_choice():
    """Tidal Wave's one roll counts saves and maneuvers (V4.01c L2374-2383); Fly gives either
    (L1586-1587, L1089-1096): the roller counts it as maneuvers here."""
    game, (shadow,), _ = arena(["Firewalkers/Fireshadow"], ["Amazons/Soldier"])
    d = _tidal_wave_roll(game, {shadow: ["4 Fly"]}, [("Fly", "Maneuver:4,Save:0")])
    assert any("Fly" in p for p in _prompts(d))
    assert d.result.get("maneuver", 0) == 4 and d.result.get("save", 0) == 0


@pytest.mark.parametrize(
    ("use", "want"),
    [
        ("yes", {"maneuver": 0, "save": 2}),
        ("no", {"maneuver": 2, "save": 0}),
        ("1", {"maneuver": 1, "save": 1}),
    ],
)
def test_coastal_dodge_in_tidal_waves_roll_is_the_owners_choice(use, want):
    """Coastal Dodge: at a water terrain Coral Elves *may* count maneuvers as saves (V4.01c L817-819);
    in a combination roll modifiers are applied as the army's owner desires (L1083-1084).  In Tidal
    Wave's save + maneuver roll (L2374-2383) maneuvers may be worth keeping, to hold the terrain."""
    game, (g1, g2), _ = arena(["Coral Elves/Guard", "Coral Elves/Guard"], ["Amazons/Soldier"])
    d = _tidal_wave_roll(game, {g1: ["1 Maneuver"], g2: ["1 Maneuver"]}, [("Coastal Dodge", use)])
    assert any("Coastal Dodge" in p for p in _prompts(d))
    assert d.result == want


def test_two_elevates_each_double_the_unit_they_choose():
    """Each Elevate rolled doubles one unit's missile (V4.01c L1491-1492), chosen on its own: one
    carpet doubles the Darter (1 -> 2), the other the Crossbowman (2 -> 4): 6 missile."""
    game, (cross, darter, c1, c2), _ = arena(
        ["Dwarves/Crossbowman", "Amazons/Darter", "Items/Air Flying Carpet", "Items/Air Flying Carpet"],
        ["Amazons/Soldier"],
    )
    d = roll(
        game,
        "p1",
        "missile",
        faces={cross: ["2 Missile"], darter: ["1 Missile"], c1: ["4 Elevate"], c2: ["4 Elevate"]},
        answers=[("Elevate", "1"), ("Elevate", "0")],
    )
    assert sum("Elevate" in p for p in _prompts(d)) == 2
    assert d.result.total == 6
