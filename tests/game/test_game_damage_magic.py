"""Damage allocation (V4.01c L1104-1119) and magic accounting/announcement (V4.01c L449-480).

Worked-example cases: R96-12, V4-20, V4-21, V4-22.
"""

from __future__ import annotations

import pytest
from game_support import choose, plain_setup, setup_done

from companion.rules.core import damage as dmg
from companion.rules.core.state import RESERVE, Unit, spec_for
from companion.rules.game import Game, IllegalAllocation, IllegalSpell
from companion.rules.game import magic as mg


def army(*healths: int) -> list[tuple[str, str, int]]:
    return [(f"u{i}", f"die{h}", h) for i, h in enumerate(healths)]


def test_r96_12_exact_cover_never_excess():
    """R96-12: 2 damage vs {1,1,2,3}: both 1s or the 2; the 3 is illegal. 2 vs {3,3,3,3}: none.
    [D] 4 vs {3,3}: one 3."""
    units = army(1, 1, 2, 3)
    legal = dmg.legal_allocations(units, 2)
    assert sorted(sorted(s) for s in legal) == [["u0", "u1"], ["u2"]]
    assert dmg.check_allocation(units, ["u1", "u0"], 2) == ["u1", "u0"]
    with pytest.raises(IllegalAllocation, match="in excess") as err:
        dmg.check_allocation(units, ["u3"], 2)
    assert err.value.rule == "V4.01c L1113"
    with pytest.raises(IllegalAllocation, match="does not cover"):
        dmg.check_allocation(units, ["u0"], 2)
    assert dmg.legal_allocations(army(3, 3, 3, 3), 2) == [[]]
    assert dmg.health_to_kill([3, 3], 4) == 3
    assert len(dmg.legal_allocations(army(3, 3), 4)) == 1
    assert dmg.legal_subset_count([3, 3], 4) == 2  # either 3 (same die: listed once)


def test_allocation_refuses_unknown_and_repeated_units():
    units = army(1, 2)
    with pytest.raises(IllegalAllocation, match="not units of the damaged army"):
        dmg.check_allocation(units, ["u9"], 1)
    with pytest.raises(IllegalAllocation, match="more than once"):
        dmg.check_allocation(units, ["u0", "u0"], 2)
    with pytest.raises(IllegalAllocation, match="list of unit ids"):
        dmg.check_allocation(units, "u0", 1)


def test_allocation_lists_every_distinct_combination():
    # {1,1,2,2,3} and 4 damage: 1+3, 2+2, 1+1+2 (3 distinct multisets of health).
    units = [("a", "small", 1), ("b", "small", 1), ("c", "med", 2), ("d", "med", 2), ("e", "large", 3)]
    legal = dmg.legal_allocations(units, 4)
    healths = sorted(sorted(h for uid, _, h in units if uid in s) for s in legal)
    assert healths == [[1, 1, 2], [1, 3], [2, 2]]
    for s in legal:
        assert dmg.check_allocation(units, s, 4) == s


def test_v4_20_scalder_magic_splits():
    """V4-20: a Scalder (fire + water) generating 4 magic: 5 allocations."""
    from companion.rules.catalogue import load_catalogue

    name = next(d.name for d in load_catalogue().of_species("Scalders") if d.is_unit)
    scalder = Unit("u1", "p1", spec_for(name))
    kinds = mg.magic_kinds(scalder)
    assert kinds == ("Fire", "Water")
    splits = mg.element_splits(4, kinds)
    assert splits == [
        {"Fire": 4, "Water": 0},
        {"Fire": 3, "Water": 1},
        {"Fire": 2, "Water": 2},
        {"Fire": 1, "Water": 3},
        {"Fire": 0, "Water": 4},
    ]


def cast(
    name: str, cost: int, color: str, pay: str = "", species: str = "", reserve: bool = False
) -> mg.SpellCast:
    return mg.SpellCast(
        name, cost, pay or mg.spell_kinds_accepted(color, "")[0], species, "x", reserve, color
    )


def dice(*pairs: tuple[str, str]) -> dict[str, Unit]:
    return {f"u{i}": Unit(f"u{i}", "p1", spec_for(name)) for i, (name, _) in enumerate(pairs)}


def test_v4_21_and_v4_22_cumulative_costs_are_paid_in_full():
    """V4-21: 3 Wind Walks cost 12 air; V4-22: 3 Palsies cost 6 death."""
    # Coral Elves are air + water: 12 air from 12 magic.
    elves = dice(("Coral Elves/Evoker", ""), ("Coral Elves/Evoker", ""))
    magic = {"u0": 6, "u1": 6}
    ww = [cast("Wind Walk", 4, "Blue")] * 3
    mg.check_payment(magic, elves, ww)
    with pytest.raises(IllegalSpell, match="cost 16"):
        mg.check_payment(magic, elves, ww + [cast("Wind Walk", 4, "Blue")])
    goblins = dice(("Goblins/Trickster", ""), ("Goblins/Trickster", ""))
    mg.check_payment({"u0": 4, "u1": 2}, goblins, [cast("Palsy", 2, "Black")] * 3)
    with pytest.raises(IllegalSpell):
        mg.check_payment({"u0": 4, "u1": 1}, goblins, [cast("Palsy", 2, "Black")] * 3)


def test_magic_element_species_and_elemental_rules():
    dwarves = dice(("Dwarves/Theurgist", ""))
    # Dwarves are fire + earth: no air spell.
    with pytest.raises(IllegalSpell, match="needs Air magic"):
        mg.check_payment({"u0": 4}, dwarves, [cast("Wind Walk", 4, "Blue")])
    # Species spell: Firebolt only from Dwarves' magic.
    mg.check_payment({"u0": 3}, dwarves, [cast("Firebolt", 3, "Red", species="Dwarves")])
    goblins = dice(("Goblins/Trickster", ""))
    with pytest.raises(IllegalSpell, match="of Dwarves"):
        mg.check_payment({"u0": 3}, goblins, [cast("Firebolt", 3, "Red", species="Dwarves")])
    # Elemental spells: one element of the caster's choice, paid only by that element.
    mg.check_payment({"u0": 3}, dwarves, [cast("Resurrect Dead", 3, "Elemental", pay="Earth")])
    with pytest.raises(IllegalSpell):
        mg.check_payment({"u0": 3}, dwarves, [cast("Resurrect Dead", 3, "Elemental", pay="Water")])
    # Standing Stones: the controlling army may count its magic as the terrain's elements.
    mg.check_payment({"u0": 4}, dwarves, [cast("Wind Walk", 4, "Blue")], extra_kinds=("Air", "Water"))
    # Split across two spells of two elements from one die: 2 fire + 2 earth.
    mg.check_payment({"u0": 4}, dwarves, [cast("Ash Storm", 2, "Red"), cast("Stone Skin", 2, "Yellow")])


def magic_game(face: int = 1) -> Game:
    setup = plain_setup()
    setup["players"][0]["armies"]["campaign"] = ["Dwarves/Theurgist"] * 5
    game = Game(setup)
    setup_done(game, {"frontier": face})
    return game


def test_magic_action_announces_validated_spells():
    game = magic_game(face=1)  # Coastland Tower face 1: magic
    choose(game, "p1@frontier")
    choose(game, "skip")
    choose(game, "magic")
    d = game.pending
    game.apply({"type": "roll", "faces": ["2 Magic"] * 5})
    d = game.pending
    assert d.kind == "cast" and d.data["magic"] == 10
    assert all(set(a["may_count_as"]) == {"Earth", "Fire"} for a in d.data["accounting"].values())
    before = game.state.to_dict()
    with pytest.raises(IllegalSpell, match="no army"):
        game.apply({"type": "cast", "spells": [{"spell": "Stone Skin", "target": "p1@home-p9"}]})
    with pytest.raises(IllegalSpell, match="unknown spell"):
        game.apply({"type": "cast", "spells": [{"spell": "Fireball", "target": "p1@frontier"}]})
    with pytest.raises(IllegalSpell, match="say which single element"):
        game.apply({"type": "cast", "spells": [{"spell": "Resurrect Dead", "target": "dua:p1"}]})
    with pytest.raises(IllegalSpell, match="cost 12"):
        game.apply({"type": "cast", "spells": [{"spell": "Dancing Lights", "target": "p2@frontier"}] * 2})
    assert game.state.to_dict() == before
    game.apply(
        {
            "type": "cast",
            "spells": [
                {"spell": "Stone Skin", "target": "p1@frontier"},
                {"spell": "Ash Storm", "target": "frontier"},
                {"spell": "Firebolt", "target": game.state.army("p2", "frontier").units[0].uid},
            ],
        }
    )
    announced = game.state.spells_announced
    assert [a["spell"] for a in announced] == ["Stone Skin", "Ash Storm", "Firebolt"]
    assert [a["paid_with"] for a in announced] == ["Earth", "Fire", "Fire"]


def test_reserve_army_casts_only_reserve_spells_and_temple_blocks_death_magic():
    setup = plain_setup(species=["Goblins", "Dwarves"], homes=["Swampland Temple", "Highland City"])
    setup["players"][0]["armies"]["home"] = ["Goblins/Trickster"] * 5
    game = Game(setup)
    setup_done(game)
    st = game.state
    for uid in [u.uid for u in st.army("p1", "home-p1").units]:
        st.location[uid] = RESERVE
    choose(game, "pass")
    choose(game, "p1@reserve")
    choose(game, "magic")
    game.apply({"type": "roll", "faces": ["2 Magic"] * 5})
    with pytest.raises(IllegalSpell, match="cannot be cast from the Reserve"):
        game.apply({"type": "cast", "spells": [{"spell": "Palsy", "target": "p2@frontier"}]})
    game.apply({"type": "cast", "spells": [{"spell": "Stone Skin", "target": "p1@reserve"}]})
    # Temple: Bob's army controlling a Temple cannot be targeted by Alice's death magic.
    st.terrains["home-p2"].face, st.terrains["home-p2"].controller = 8, "p2"
    st.terrains["home-p2"].kind = st.terrains["home-p1"].kind  # a Temple (Swampland Temple)
    with pytest.raises(IllegalSpell, match="Temple"):
        game.check_target("p1", game_card("Palsy"), "p2@home-p2")
    game.check_target("p1", game_card("Stone Skin"), "p2@home-p2")


def game_card(name: str):
    from companion.rules.catalogue import load_catalogue

    return load_catalogue().spell(name)


def test_magic_kinds_come_from_the_resolution_engine():
    """Amazons are ivory: at a terrain their magic takes the terrain's elements (Terrain Harmony), in
    reserve it stays Ivory and pays only Elemental spells (V4.01c L2093-2100)."""
    from companion.rules.catalogue import load_catalogue
    from companion.rules.core.terrains import parse_terrain
    from companion.rules.game.rolling import ArmyRoll, resolve_army_roll

    oracle = next(d for d in load_catalogue().of_species("Amazons") if d.is_unit and d.short_name == "Oracle")
    unit = Unit("u1", "p1", spec_for(oracle.name))
    face = next(f.text() for f in oracle.faces if f.icon == "Magic")
    at_coast = resolve_army_roll(
        ArmyRoll("magic", ((unit, (face,)),), terrain=parse_terrain("Coastland City"), face=1)
    )
    assert set(at_coast.magic_kinds["u1"]) == {"Air", "Water"}
    n = at_coast.magic_by_die["u1"]
    assert n >= 4
    mg.check_payment(
        at_coast.magic_by_die, {"u1": unit}, [cast("Wind Walk", 4, "Blue")], kinds_by_die=at_coast.magic_kinds
    )
    in_reserve = resolve_army_roll(ArmyRoll("magic", ((unit, (face,)),), in_reserve=True))
    assert in_reserve.magic_kinds["u1"] == ("Ivory",)
    with pytest.raises(IllegalSpell):
        mg.check_payment(
            in_reserve.magic_by_die,
            {"u1": unit},
            [cast("Wind Walk", 4, "Blue")],
            kinds_by_die=in_reserve.magic_kinds,
        )
    mg.check_payment(
        in_reserve.magic_by_die,
        {"u1": unit},
        [cast("Resurrect Dead", 3, "Elemental", pay="Air")],
        kinds_by_die=in_reserve.magic_kinds,
    )


def test_standing_stones_lets_the_controlling_army_count_magic_as_the_terrains_elements():
    """V4.01c L526-528: Dwarves (fire/earth) controlling a Coastland Standing Stones may cast air spells."""
    setup = plain_setup(frontiers=["Coastland Standing Stone", "Wasteland Temple"])
    setup["players"][0]["armies"]["campaign"] = ["Dwarves/Theurgist"] * 5
    game = Game(setup)
    setup_done(game, {"frontier": 3})
    st = game.state
    st.terrains["frontier"].face, st.terrains["frontier"].controller = 8, "p1"
    choose(game, "pass")
    choose(game, "p1@frontier")
    choose(game, "skip")
    choose(game, "magic")
    game.apply({"type": "roll", "faces": ["2 Magic"] * 5})
    d = game.pending
    assert all(
        {"Air", "Water", "Fire", "Earth"} <= set(a["may_count_as"]) for a in d.data["accounting"].values()
    )
    game.apply({"type": "cast", "spells": [{"spell": "Wind Walk", "target": "p1@frontier"}]})
    assert st.spells_announced[-1]["paid_with"] == "Air"
