"""Choices the rules leave to the roller, as the engine takes them: which units' icons take a subtracted
penalty (``"penalty first"``; FAQ95 MAGIC-GEN G, FAQ95-09) and how many results a "may count as"
ability converts in a combination roll (``"<ability> amount"``; V4.01c L1083-1084).  Bad values are
refused naming the key."""

from __future__ import annotations

import pytest

from companion.rules.catalogue import load_catalogue
from companion.rules.resolution import (
    EffectInForce,
    ResolutionError,
    RolledUnit,
    RollRequest,
    RollTerrain,
    resolve,
)


def _magic(choices: dict) -> RollRequest:
    cat = load_catalogue()
    dwarf, elf = cat["Dwarves/Sergeant"], cat["Coral Elves/Trooper"]
    units = (RolledUnit(dwarf, (dwarf.find_face("ID"),)), RolledUnit(elf, (elf.find_face("ID"),)))
    return RollRequest(
        "magic",
        units,
        edition="r96",
        terrain=RollTerrain("Coastland", 1),
        effects=(EffectInForce("Ash Storm", 2, "terrain"),),
        choices=choices,
    )


def test_by_default_the_penalty_goes_where_it_costs_least():
    assert dict(resolve(_magic({})).magic) == {"Air/Water": 4}  # the elves' 2 ID points double at Coastland


def test_the_roller_may_put_the_penalty_on_other_icons():
    assert dict(resolve(_magic({"penalty first": (1,)})).magic) == {"Earth/Fire": 2}
    assert dict(resolve(_magic({"penalty first": (0,)})).magic) == {"Air/Water": 4}


@pytest.mark.parametrize("bad", [(2,), (-1,), ("0",), 3])
def test_a_bad_penalty_list_names_the_key(bad):
    with pytest.raises(ResolutionError, match="penalty first"):
        resolve(_magic({"penalty first": bad}))


def _dodge(choices: dict) -> RollRequest:
    """Two Coral Elves showing 1 maneuver each at a water terrain, in a save + maneuver roll."""
    guard = load_catalogue()["Coral Elves/Guard"]
    face = guard.find_face("1 Maneuver")
    return RollRequest(
        "save",
        (RolledUnit(guard, (face,)), RolledUnit(guard, (face,))),
        terrain=RollTerrain("Coastland", 3),
        counted=frozenset({"save", "maneuver"}),
        choices=choices,
    )


def test_a_may_count_as_ability_converts_as_many_results_as_the_owner_says():
    """V4.01c L1083-1084: in a combination roll the owner applies Coastal Dodge as they wish."""
    assert resolve(_dodge({})).totals == {"save": 2, "maneuver": 0}
    assert resolve(_dodge({"Coastal Dodge amount": 1})).totals == {"save": 1, "maneuver": 1}
    assert resolve(_dodge({"Coastal Dodge": False})).totals == {"save": 0, "maneuver": 2}


def test_a_bad_conversion_amount_names_the_key():
    with pytest.raises(ResolutionError, match="Coastal Dodge amount"):
        resolve(_dodge({"Coastal Dodge amount": -1}))
