"""The roller chooses which units' icons take a subtracted penalty (choice ``"penalty first"``;
FAQ95 MAGIC-GEN G, FAQ95-09): the engine takes it from those units first, and refuses a bad list."""

from __future__ import annotations

import pytest

from companion.rules.catalogue import load_catalogue
from companion.rules.resolution import (
    EffectInForce,
    ResolutionError,
    RolledUnit,
    RollRequest,
    TerrainState,
    resolve,
)


def _magic(choices: dict) -> RollRequest:
    cat = load_catalogue()
    dwarf, elf = cat["Dwarves/Sergeant"], cat["Coral Elves/Trooper"]
    units = (RolledUnit(dwarf, (dwarf.find_face("ID"),)), RolledUnit(elf, (elf.find_face("ID"),)))
    return RollRequest("magic", units, edition="r96", terrain=TerrainState("Coastland", 1),
                       effects=(EffectInForce("Ash Storm", 2, "terrain"),), choices=choices)


def test_by_default_the_penalty_goes_where_it_costs_least():
    assert dict(resolve(_magic({})).magic) == {"Air/Water": 4}  # the elves' 2 ID points double at Coastland


def test_the_roller_may_put_the_penalty_on_other_icons():
    assert dict(resolve(_magic({"penalty first": (1,)})).magic) == {"Earth/Fire": 2}
    assert dict(resolve(_magic({"penalty first": (0,)})).magic) == {"Air/Water": 4}


@pytest.mark.parametrize("bad", [(2,), (-1,), ("0",), 3])
def test_a_bad_penalty_list_names_the_key(bad):
    with pytest.raises(ResolutionError, match="penalty first"):
        resolve(_magic({"penalty first": bad}))
