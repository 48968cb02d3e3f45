"""An Eldarim (or Dragonkin) champion's logo gives four saves in any save roll against an effect
that targets a unit alone (V4.01c L2882-2888; Dragonkin L2558-2561; "Individual" L1210), whatever the
effect's kind: the game passes such a save as ``against=<melee|missile|magic>`` with
``individual=True`` (a spell aimed at one unit is a save against magic, L1116-1117)."""

from __future__ import annotations

import pytest
from sai_arena import Driver, arena

from companion.rules.catalogue import load_catalogue
from companion.rules.game.spells.casting import damage_unit
from companion.rules.resolution import RolledUnit, RollRequest, resolve

CAT = load_catalogue()


def logo_save(name: str, against: str | None, individual: bool) -> int:
    die = CAT[name]
    logo = next(f for f in die.faces if f.sai == "Logo")
    return resolve(
        RollRequest("save", (RolledUnit(die, (logo,)),), against=against, individual=individual)
    ).total("save")


@pytest.mark.parametrize("against", ["magic", "missile", "melee", None])
def test_eldarim_logo_gives_four_saves_against_any_individual_targeting_effect(against):
    assert logo_save("Eldarim/Dragonlord", against, individual=True) == 4


@pytest.mark.parametrize("against", ["magic", "missile", "melee"])
def test_dragonkin_logo_adds_four_saves_when_the_unit_is_targeted_alone(against):
    """On top of the Dragonkin's own automatic saves, which count in both rolls."""
    name = next(
        d.name for d in CAT.dice if d.species == "Dragonkin" and any(f.sai == "Logo" for f in d.faces)
    )
    assert logo_save(name, against, individual=True) - logo_save(name, against, individual=False) == 4


def test_logo_gives_no_saves_in_an_army_save():
    assert logo_save("Eldarim/Dragonlord", "magic", individual=False) == 0
    assert logo_save("Eldarim/Dragonlord", "melee", individual=False) == 0


def test_net_saves_against_a_spell_aimed_at_the_unit_l1726_1728():
    die = next(d for d in CAT.dice if d.is_unit and any(f.sai == "Net" for f in d.faces))
    net = next(f for f in die.faces if f.sai == "Net")
    alone = resolve(RollRequest("save", (RolledUnit(die, (net,)),), against="magic", individual=True))
    army = resolve(RollRequest("save", (RolledUnit(die, (net,)),), against="magic"))
    assert alone.total("save") == net.count and army.total("save") == 0


def test_a_champion_saves_a_unit_targeting_spell_in_play():
    """A spell's damage on one unit (damage_unit, L1116-1117): the champion rolls its logo alone."""
    game, (champion,), _ = arena(["Eldarim/Dragonlord"], ["Goblins/Thug"])
    d = Driver(
        game, damage_unit(game, champion, 4, "Lightning Strike", "V4.01c L2270"), faces={champion: ["1 Logo"]}
    )
    d.run()
    assert d.result == (0, 4)
    assert game.state.location[champion] == "frontier"
