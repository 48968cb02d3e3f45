"""r96 magic in the game flow: colours and costs, terrain advantage, death magic by burial, reserve
magic, and the 25 spells' effects.  Each test names its case of ../shared/rules/worked-examples.md."""

from __future__ import annotations

import pytest
from r96_helpers import BUA, DUA, RESERVE, cast, choose, roll, stage, started, until, where

from companion.rules.core.errors import IllegalSpell
from companion.rules.r96.game.spellbook import SPELLS, payable

FRONT = "frontier"  # Flatland Temple (air/earth): face 1 magic
COAST = "home-p3"  # Coastland Tower in a three-player game


def magic(game, loc, *faces):
    choose(game, loc)
    if loc != RESERVE:
        choose(game, "stay")
    choose(game, "magic")
    return roll(game, *faces)


def test_the_25_spells_and_their_1996_costs():
    """R96 L964-1081: 25 spells, five per colour, costing 2, 3, 4, 5 (Open Grave 6) and 7."""
    assert len(SPELLS) == 25
    by_colour: dict[str, list[int]] = {}
    for s in SPELLS.values():
        by_colour.setdefault(s.element, []).append(s.cost)
    assert {k: sorted(v) for k, v in by_colour.items()} == {
        "Earth": [2, 3, 4, 5, 7],
        "Air": [2, 3, 4, 5, 7],
        "Fire": [2, 3, 4, 5, 7],
        "Water": [2, 3, 4, 5, 7],
        "Death": [2, 3, 4, 6, 7],
    }


def test_r96_07_colour_pooling_pays_costs():
    """R96-07: 1 goblin point (gold/black) + 2 dwarf points (gold/red) pay 3 gold, or 2 red + 1 black..."""
    pools = {"Death/Earth": 1, "Earth/Fire": 2}
    assert payable({"Earth": 3}, pools) and payable({"Fire": 2, "Death": 1}, pools)
    assert not payable({"Fire": 3}, pools) and not payable({"Death": 2}, pools)


def _breath_game():
    game = started()
    units = stage(
        game,
        {("p1", FRONT): ["Coral Elves/Conjurer"] * 3, ("p2", "home-p2"): ["Goblins/Thug"]},
        dead={"p1": ["Coral Elves/Fighter"] * 3 + ["Coral Elves/Knight", "Coral Elves/Herald"]},
        faces={FRONT: 1},
    )
    return game, units


def test_r96_08_breath_of_life_x3_costs_9_blue_and_raises_3_health():
    """R96-08: three Breaths of Life (9 blue) raise three 1-health units, or one 3-health, or a 1 and a 2."""
    game, units = _breath_game()
    magic(game, FRONT, "3 Magic", "3 Magic", "3 Magic")
    assert game.pending.kind == "cast" and game.pending.data["pools"] == {"Air/Water": 9}
    dead = units[("p1", DUA)]
    fighters, knight, herald = dead[:3], dead[3], dead[4]

    def check(units_):
        return game._validate_casts(
            "p1",
            FRONT,
            {"Air/Water": 9},
            {"spells": [{"spell": "Breath of Life", "count": 3, "units": units_}]},
            0,
        )

    assert check(fighters) and check([fighters[0], knight]) and check([herald])
    with pytest.raises(IllegalSpell, match="reach 3 health"):
        check([herald, fighters[0]])
    with pytest.raises(IllegalSpell, match="cannot pay"):
        game._validate_casts(
            "p1",
            FRONT,
            {"Air/Water": 8},
            {"spells": [{"spell": "Breath of Life", "count": 3, "units": [herald]}]},
            0,
        )
    cast(game, {"spell": "Breath of Life", "count": 3, "units": [herald]})
    assert where(game, herald) == FRONT


def test_faq95_17_breath_of_life_points_pool_within_one_action():
    """FAQ95-17: 4 Breaths of Life raise a 3 + a 1, or two 2s; 2 castings never raise a 3-health unit."""
    game, units = _breath_game()
    dead = units[("p1", DUA)]
    pools = {"Air/Water": 12}
    ok = {"spells": [{"spell": "Breath of Life", "count": 4, "units": [dead[4], dead[0]]}]}
    assert game._validate_casts("p1", FRONT, pools, ok, 0)
    with pytest.raises(IllegalSpell):
        game._validate_casts(
            "p1", FRONT, pools, {"spells": [{"spell": "Breath of Life", "count": 2, "units": [dead[4]]}]}, 0
        )


def test_r96_09_terrain_advantage_is_offered_and_may_be_declined():
    """R96-09: a flatland dwarf ID may double as gold; declining keeps red open, undoubled."""
    game = started()
    stage(game, {("p1", FRONT): ["Dwarves/Sergeant"], ("p2", "home-p2"): ["Goblins/Thug"]}, faces={FRONT: 1})
    magic(game, FRONT, "ID")
    assert game.pending.topic == "terrain_advantage"
    choose(game, True)
    assert game.pending.data["pools"] == {"Earth": 4}
    game = started()
    stage(game, {("p1", FRONT): ["Dwarves/Sergeant"], ("p2", "home-p2"): ["Goblins/Thug"]}, faces={FRONT: 1})
    magic(game, FRONT, "ID")
    choose(game, False)
    assert game.pending.data["pools"] == {"Earth/Fire": 2}


def _coast_game(dead_p2, p1_units=("Goblins/Cutthroat", "Goblins/Cutthroat")):
    game = started(players=3)
    stage(
        game,
        {
            ("p1", COAST): list(p1_units),
            ("p2", "home-p2"): ["Goblins/Thug"],
            ("p3", "home-p1"): ["Goblins/Thug"],
        },
        dead={"p2": dead_p2},
        faces={COAST: 1},
    )
    return game


def test_r96_10_death_magic_by_burial_doubles_black_and_must_all_be_spent():
    """R96-10: coastland, two 2-health goblin IDs: 4 points; burying 4 health of dead units gives 8 black,
    all of which must be spent."""
    game = _coast_game(["Goblins/Cutthroat", "Goblins/Cutthroat"])
    magic(game, COAST, "ID", "ID")
    assert game.pending.topic == "death_magic"
    assert {"p2:2", "p2:4"} <= {c["value"] for c in game.pending.choices}
    log = choose(game, "p2:4")
    assert any("buries" in line for line in log) and len(game.state.area("p2", BUA)) == 2
    assert game.pending.data["black_due"] == 8 and sum(game.pending.data["pools"].values()) == 8
    with pytest.raises(IllegalSpell, match="must all be spent"):
        cast(game, {"spell": "Palsy", "count": 2, "target": "p2@home-p2"})
    cast(
        game, {"spell": "Palsy", "count": 2, "target": "p2@home-p2"}, {"spell": "Reanimate Dead", "units": []}
    )
    palsy = [e for e in game.state.effects if e.name == "Palsy"]
    assert palsy and palsy[0].detail["castings"] == 2


def test_faq95_10_partial_burial_and_the_targets_obligation():
    """FAQ95-10: 5 black from IDs: bury 3 -> 8, bury 5 -> 10, never 6; a lone 3-point dead unit allows no
    doubling of 2 points; a player with dead {1, 3} asked for 1 must bury the 1."""
    game = _coast_game(
        ["Goblins/Thug", "Goblins/Marauder"], p1_units=("Goblins/Cutthroat", "Goblins/Marauder")
    )
    magic(game, COAST, "ID", "ID")
    values = {c["value"] for c in game.pending.choices}
    assert values == {"none", "p2:1", "p2:3", "p2:4"}  # 2 and 5 cannot be buried exactly; 6 is over the IDs
    choose(game, "p2:1")
    assert [u.name for u in game.state.area("p2", BUA)] == ["Goblins/Thug"]
    assert sum(game.pending.data["pools"].values()) == 6
    game = _coast_game(["Goblins/Marauder"], p1_units=("Goblins/Cutthroat",))
    magic(game, COAST, "ID")
    assert game.pending.topic == "cast"  # no burial offered: 2 points cannot bury a 3-point unit


def test_faq95_31_a_reserve_army_never_doubles():
    """FAQ95-31, R96 L472-480: reserve magic: no terrain advantage, no burial; friendly targets only."""
    game = started()
    stage(
        game,
        {
            ("p1", RESERVE): ["Goblins/Cutthroat", "Goblins/Cutthroat"],
            ("p1", FRONT): ["Goblins/Thug"],
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
        dead={"p2": ["Goblins/Cutthroat", "Goblins/Cutthroat"]},
    )
    magic(game, RESERVE, "ID", "ID")
    assert game.pending.topic == "cast" and game.pending.data["pools"] == {"Death/Earth": 4}
    with pytest.raises(IllegalSpell, match="own player"):
        cast(game, {"spell": "Palsy", "target": "p2@home-p2"})
    with pytest.raises(IllegalSpell, match="never targets a terrain"):
        cast(game, {"spell": "Stoneskin", "target": FRONT} | {"spell": "Ash Storm"})
    cast(game, {"spell": "Stoneskin", "target": "p1@frontier"})
    assert [e.target for e in game.state.effects if e.name == "Stoneskin"] == ["p1@frontier"]


def _caster(faces_units, table=None, dead=None, face=1, players=2, options=None):
    game = started(players=players, options=options)
    base = {("p2", "home-p2"): ["Goblins/Thug", "Goblins/Thug"]}
    base[("p1", FRONT)] = [u for u, _ in faces_units]
    base.update(table or {})
    units = stage(game, base, dead=dead, faces={FRONT: face})
    magic(game, FRONT, *[f for _, f in faces_units])
    if game.pending.topic == "terrain_advantage":
        choose(game, True)
    return game, units


GOLD9 = [("Dwarves/Thaumaturgist", "3 Magic")] * 3  # 9 gold/red
BLUE9 = [("Coral Elves/Conjurer", "3 Magic")] * 3  # 9 blue/green
BLACK9 = [("Goblins/Hedge Wizard", "3 Magic")] * 3  # 9 gold/black


def test_faq95_13_dust_to_dust():
    """FAQ95-13 (1996 cost 3): three casts bury one 3-point unit, or a 1-point of A and a 2-point of B;
    two cannot reach a 3-point unit; dragons are never buried."""
    game, units = _caster(
        GOLD9,
        table={("p3", "home-p3"): ["Coral Elves/Fighter"]},
        dead={"p2": ["Goblins/Marauder", "Goblins/Cutthroat"], "p3": ["Coral Elves/Fighter"]},
        players=3,
    )
    marauder, cutthroat = units[("p2", DUA)]
    fighter = units[("p3", DUA)][0]
    pools = game.pending.data["pools"]
    v = lambda spells: game._validate_casts("p1", FRONT, pools, {"spells": spells}, 0)  # noqa: E731
    assert v([{"spell": "Dust to Dust", "count": 3, "units": [marauder]}])
    assert v([{"spell": "Dust to Dust", "count": 3, "units": [fighter, cutthroat]}])
    with pytest.raises(IllegalSpell, match="reach 2 health"):
        v([{"spell": "Dust to Dust", "count": 2, "units": [marauder]}])
    dragon = next(u.uid for u in game.state.area("p2", DUA) if u.spec.kind == "dragon")
    with pytest.raises(IllegalSpell, match="never dead units"):
        v([{"spell": "Dust to Dust", "units": [dragon]}])
    cast(game, {"spell": "Dust to Dust", "count": 3, "units": [fighter, cutthroat]})
    assert where(game, fighter) == BUA and where(game, cutthroat) == BUA and where(game, marauder) == DUA


def test_faq95_14_path():
    """FAQ95-14: Path moves your own units between terrains only; to an empty terrain it forms a new army."""
    game, units = _caster(GOLD9, table={("p1", "home-p1"): ["Dwarves/Footman"]})
    own = units[("p1", "home-p1")][0]
    foe = units[("p2", "home-p2")][0]
    dragon = next(u.uid for u in game.state.area("p1", DUA) if u.spec.kind == "dragon")
    pools = game.pending.data["pools"]

    def v(moves):
        return game._validate_casts("p1", FRONT, pools, {"spells": [{"spell": "Path", "moves": moves}]}, 0)

    for bad in ({foe: FRONT}, {dragon: FRONT}, {own: RESERVE}, {own: DUA}):
        with pytest.raises(IllegalSpell):
            v(bad)
    cast(game, {"spell": "Path", "moves": {own: "home-p2"}})
    assert game.state.army("p1", "home-p2").units  # a new army at Bo's home
    # the moved unit rolls again with the army it joins in march 2 (FAQ95 EARTH 3.H)
    choose(game, "home-p2")
    choose(game, "maneuver")
    choose(game, True)  # Bo counter-maneuvers: Ann's new army rolls, the moved unit in it
    assert game.pending.kind == "roll" and [d["uid"] for d in game.pending.dice] == [own]


def test_faq95_15_summon_moves_a_dragon_already_in_play():
    """FAQ95-15: Summon Red Dragon moves a red dragon already at a terrain; never to reserve or the dead."""
    game, units = _caster([("Dwarves/Thaumaturgist", "3 Magic")] * 3, face=1)
    red = next(u.uid for u in game.state.area("p1", DUA) if u.spec.kind == "dragon")
    game.state.location[red] = "home-p2"
    pools = {"Earth/Fire": 9}
    with pytest.raises(IllegalSpell):
        game._validate_casts(
            "p1",
            FRONT,
            pools,
            {"spells": [{"spell": "Summon Red Dragon", "dragon": red, "target": RESERVE}]},
            0,
        )
    with pytest.raises(IllegalSpell):  # a black dragon is not red
        black = next(u.uid for u in game.state.area("p2", DUA) if u.spec.kind == "dragon")
        game._validate_casts(
            "p1",
            FRONT,
            pools,
            {"spells": [{"spell": "Summon Red Dragon", "dragon": black, "target": FRONT}]},
            0,
        )
    cast(game, {"spell": "Summon Red Dragon", "dragon": red, "target": "home-p1"})
    assert where(game, red) == "home-p1"


@pytest.mark.parametrize("allowed", [False, True])
def test_faq95_16_hailstorm(allowed):
    """FAQ95-16: Hailstorm on one's own army: refused by R96 L424-425 (default) or 1 damage, no save
    (FAQ95 AIR 1.A, option); two from one action: one save roll; never a rout."""
    game, units = _caster(
        BLUE9,
        table={("p1", "home-p1"): ["Dwarves/Footman"]},
        options={"hailstorm_own_army": allowed, "routing": True},
    )
    own = {"spell": "Hailstorm", "target": "p1@home-p1"}
    if not allowed:
        with pytest.raises(IllegalSpell, match="never on your own army"):
            cast(game, own)
        cast(game, {"spell": "Hailstorm", "count": 2, "target": "p2@home-p2"})
        assert game.pending.player == "p2" and len(game.pending.dice) == 2  # one save roll for both
        log = roll(game, "ID", "1 Melee")
        assert not any("rout" in line for line in log)
        assert sum(where(game, u) == DUA for u in units[("p2", "home-p2")]) == 1
    else:
        cast(game, own)
        assert where(game, units[("p1", "home-p1")][0]) == DUA


def test_faq95_18_lightning_strike_each_strike_alone():
    """FAQ95-18 as played in 1996: each strike: the unit rolls alone; a save or its ID saves it; army
    spells (Stoneskin) never help; Frost halves its roll."""
    game, units = _caster([("Coral Elves/Conjurer", "3 Magic")] * 4)
    a, b = units[("p2", "home-p2")]
    game.add_effect("Stoneskin", "p2", "p2@home-p2", "start", "p2", castings=3)
    cast(game, {"spell": "Lightning Strike", "count": 2, "units": [a, a]})
    roll(game, "ID")  # first strike: saved by its ID
    assert where(game, a) == "home-p2"
    roll(game, "1 Melee")  # second strike, rolled again: no save
    assert where(game, a) == DUA
    game, units = _caster([("Coral Elves/Conjurer", "3 Magic")] * 2)
    a = units[("p2", "home-p2")][0]
    game.add_effect("Frost", "p1", "p2@home-p2", "start", "p2")
    cast(game, {"spell": "Lightning Strike", "units": [a]})
    roll(game, "1 Save")  # halved to 0
    assert where(game, a) == DUA


def test_faq95_25_flash_flood():
    """FAQ95-25: one flood per terrain per action, several terrains allowed; defenders' maneuvers never
    add up (7 and 6 < 8: down one); nothing on face 1; flooding an eighth face ends its control."""
    game, units = _caster(
        BLUE9 + [("Coral Elves/Conjurer", "2 Magic")],
        table={("p2", FRONT): ["Goblins/Wolf Rider"] * 4, ("p1", "home-p1"): ["Dwarves/Footman"]},
    )
    pools = game.pending.data["pools"]
    with pytest.raises(IllegalSpell, match="one Flash Flood per terrain"):
        game._validate_casts(
            "p1", FRONT, pools, {"spells": [{"spell": "Flash Flood", "target": "home-p2"}] * 2}, 0
        )
    game.state.terrains["home-p2"].face, game.state.terrains["home-p2"].controller = 8, "p2"
    game.state.terrains["home-p1"].face = 1
    cast(game, {"spell": "Flash Flood", "target": "home-p2"}, {"spell": "Flash Flood", "target": "home-p1"})
    choose(
        game, True
    )  # Bo resists at his home: his thugs' maneuvers are doubled twice (swamp goblins, eighth face)
    roll(game, "1 Melee", "1 Maneuver")  # 1 x 2 x 2 = 4 < 8
    assert game.state.terrains["home-p2"].face == 7 and game.state.terrains["home-p2"].controller is None
    assert game.state.terrains["home-p1"].face == 1
    # two defenders rolling 7 and 6: no one reaches 8
    game, units = _caster(
        BLUE9,
        table={("p2", FRONT): ["Goblins/Wolf Rider"] * 3, ("p3", FRONT): ["Coral Elves/Courier"] * 2},
        players=3,
        face=1,
    )
    game.state.terrains[FRONT].face = 3
    cast(game, {"spell": "Flash Flood", "target": FRONT})
    choose(game, False)  # the caster's own army does not roll
    choose(game, True)
    roll(game, "3 Maneuver", "3 Maneuver", "2 Melee")  # 6
    choose(game, True)
    roll(game, "3 Maneuver", "2 Maneuver")  # 5: never added to the 6
    assert game.state.terrains[FRONT].face == 2


def test_faq95_26_reanimate_dead_only_one_health_units():
    """FAQ95-26: three Reanimate Dead return three 1-health units, never a 3-health unit."""
    game, units = _caster(BLACK9, dead={"p1": ["Goblins/Thug"] * 3 + ["Goblins/Marauder"]})
    dead = units[("p1", DUA)]
    with pytest.raises(IllegalSpell, match="1-health"):
        cast(game, {"spell": "Reanimate Dead", "count": 3, "units": [dead[3]]})
    cast(game, {"spell": "Reanimate Dead", "count": 3, "units": dead[:3]})
    assert all(where(game, u) == FRONT for u in dead[:3])


def test_faq95_28_finger_of_death_accumulates_within_one_action():
    """FAQ95-28: three Fingers of Death from one action kill a 3-health unit (no save); two do not."""
    game, units = _caster(
        [("Goblins/Hedge Wizard", "3 Magic")] * 4, table={("p2", "home-p2"): ["Goblins/Marauder"] * 2}
    )
    a, b = units[("p2", "home-p2")]
    cast(game, {"spell": "Finger of Death", "count": 3, "units": [a, a, a]})
    assert where(game, a) == DUA
    game, units = _caster(
        [("Goblins/Hedge Wizard", "3 Magic")] * 3, table={("p2", "home-p2"): ["Goblins/Marauder"] * 2}
    )
    a, b = units[("p2", "home-p2")]
    log = cast(game, {"spell": "Finger of Death", "count": 2, "units": [a, a]})
    assert where(game, a) == "home-p2" and any("kills nothing" in line for line in log)


def test_faq95_29_open_grave():
    """FAQ95-29: Open Grave on one's own reserve: a killing spell on a reserve unit is ignored; on an enemy
    army it is refused; units of a graved army that die go to reserve."""
    game, units = _caster(BLACK9, table={("p2", RESERVE): ["Goblins/Thug"]})
    with pytest.raises(IllegalSpell, match="own armies"):
        cast(game, {"spell": "Open Grave", "target": "p2@home-p2"})
    game.add_effect("Open Grave", "p2", "p2@reserve", "start", "p2")
    thug = units[("p2", RESERVE)][0]
    cast(game, {"spell": "Finger of Death", "units": [thug]})
    assert where(game, thug) == RESERVE
    game.add_effect("Open Grave", "p2", "p2@home-p2", "start", "p2")
    game._kill([units[("p2", "home-p2")][0]])
    assert where(game, units[("p2", "home-p2")][0]) == RESERVE


def test_faq95_30_no_counter_attack_after_magic():
    """FAQ95-30: a magic action at a terrain with an enemy army brings no counter-attack."""
    game, units = _caster(
        GOLD9, table={("p2", FRONT): ["Goblins/Thug"], ("p1", "home-p1"): ["Dwarves/Footman"]}
    )
    cast(game, {"spell": "Stoneskin", "target": "p1@frontier"})
    assert game.pending.topic == "march" and game.state.march == 2


def test_temple_guards_its_army_against_opposing_death_magic():
    """R96 L668-673: an army holding a Temple is immune to death magic from opposing armies."""
    game, units = _caster(BLACK9)
    t = game.state.terrains["home-p2"]
    t.face, t.controller = 8, "p2"
    with pytest.raises(IllegalSpell, match="Temple"):
        cast(game, {"spell": "Palsy", "target": "p2@home-p2"})


def test_spells_expire_at_the_casters_next_turn_and_watery_double_at_its_end():
    """R96 L968-971, L1037-1041: Stoneskin ends at the beginning of the caster's next turn; Watery Double
    lasts to the end of it."""
    game, units = _caster([("Coral Elves/Conjurer", "3 Magic")] * 2 + [("Dwarves/Thaumaturgist", "3 Magic")])
    cast(
        game,
        {"spell": "Watery Double", "target": "p1@frontier"},
        {"spell": "Stoneskin", "target": "p1@frontier"},
    )
    names = lambda: sorted(e.name for e in game.state.effects)  # noqa: E731
    assert names() == ["Stoneskin", "Watery Double"]
    until(game, "march", "p2")
    assert names() == ["Stoneskin", "Watery Double"]
    until(game, "march", "p1")
    assert names() == ["Watery Double"]
    until(game, "march", "p2")
    assert names() == []


def test_a_spell_of_an_army_does_not_travel_with_units_r96_11():
    """R96-11: reinforce and retreat move units; army spells stay behind (a moved unit loses Stoneskin)."""
    game = started()
    units = stage(
        game,
        {
            ("p1", "home-p1"): ["Dwarves/Footman"] * 2,
            ("p1", FRONT): ["Dwarves/Footman"],
            ("p1", "home-p2"): ["Dwarves/Footman"],
            ("p1", RESERVE): ["Dwarves/Footman"] * 3,
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
    )
    game.add_effect("Stoneskin", "p1", "p1@home-p2", "start", "p1")
    choose(game, "pass")
    choose(game, "pass")
    res = units[("p1", RESERVE)]
    assert game.pending.topic == "reinforce"
    game.apply({"type": "reinforce", "moves": {res[0]: "home-p1", res[1]: "home-p1", res[2]: FRONT}})
    horde = units[("p1", "home-p2")]
    game.apply({"type": "retreat", "units": horde})
    st = game.state
    assert len(st.army("p1", "home-p1").units) == 4 and len(st.army("p1", FRONT).units) == 2
    assert not st.army("p1", "home-p2").units and [u.uid for u in st.army("p1", RESERVE).units] == horde
    assert not [e for e in st.effects if e.name == "Stoneskin"]  # its army is gone; the unit left it behind


def _faq95_09_game():
    game = started(players=3)
    stage(
        game,
        {
            ("p1", COAST): [
                "Dwarves/Sergeant",
                "Dwarves/Sergeant",
                "Coral Elves/Trooper",
                "Coral Elves/Trooper",
            ],
            ("p2", "home-p2"): ["Goblins/Thug"],
            ("p3", "home-p1"): ["Goblins/Thug"],
        },
        faces={COAST: 1},
    )
    game.add_effect("Ash Storm", "p2", COAST, "start", "p2", castings=4)
    magic(game, COAST, "ID", "ID", "ID", "ID")
    if game.pending.topic == "terrain_advantage":
        choose(game, True)
    return game


def test_faq95_09_penalty_then_colours_then_terrain_doubling():
    """FAQ95-09 (1996: only ID magic doubles): at coastland, IDs worth 4 on gold/red dwarves and 4 on
    blue/green coral elves under a -4 penalty: put on the dwarves' icons (which coastland never
    doubles), the elves' 4 points double: 8 blue, 8 green or 4 + 4."""
    game = _faq95_09_game()
    d = game.pending
    assert d.topic == "magic_penalty" and d.rule == "FAQ95 MAGIC-GEN G"
    assert {c["value"] for c in d.choices} == {"default", "Air/Water"}
    choose(game, "default")
    pools = game.pending.data["pools"]
    assert pools == {"Air/Water": 8}
    assert (
        payable({"Air": 8}, pools) and payable({"Water": 8}, pools) and payable({"Air": 4, "Water": 4}, pools)
    )
    assert not payable({"Earth": 1}, pools)


def test_faq95_09_the_roller_may_keep_the_gold_red_points_instead():
    """FAQ95-09's fourth outcome: the penalty on the blue/green icons keeps 4 gold/red points (no
    coastland bonus for them)."""
    game = _faq95_09_game()
    choose(game, "Air/Water")
    pools = game.pending.data["pools"]
    assert sum(pools.values()) == 4 and payable({"Earth": 4}, pools) and not payable({"Water": 1}, pools)


def test_cast_options_for_the_page_list_payable_army_and_terrain_spells():
    """The page's cast form gets the spells one casting of the rolled magic pays for, and the targets."""
    game, _ = _caster([("Dwarves/Thaumaturgist", "3 Magic")])
    opts = game.pending.data["cast_options"]
    assert {s["spell"] for s in opts["spells"]} == {
        "Stoneskin",
        "Ash Storm",
    }  # 3 gold/red: army or terrain spells
    assert {"value": FRONT, "label": "Flatland Temple"} in opts["targets"]
    cast(game, {"spell": "Ash Storm", "target": FRONT, "element": "Fire"})  # the page's answer shape
    assert [e.name for e in game.state.effects] == ["Ash Storm"]


def test_standing_stones_lets_every_unit_cast_the_terrains_colours():
    """R96 L663-666: at a held Standing Stones every unit may cast the terrain's colours, but a unit sharing
    none of them never doubles its ID magic."""
    from companion.rules.core.terrains import parse_terrain

    game = started()
    stage(
        game,
        {
            ("p1", FRONT): ["Lava Elves/Warlock", "Lava Elves/Adept"],
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
    )
    t = game.state.terrains[FRONT]
    t.kind, t.face, t.controller = parse_terrain("Coastland Standing Stones"), 8, "p1"
    magic(game, FRONT, "2 Magic", "ID")
    assert game.pending.data["pools"] == {"Air/Death/Fire/Water": 3}
    cast(game, {"spell": "Watery Double", "target": "p1@frontier"})  # green from red/black lava elves
    assert [e.name for e in game.state.effects] == ["Watery Double"]


def test_lasting_spells_change_later_rolls():
    """R96 L1025-1030, L1047-1051, L982-986: Burning Hands doubles its unit's melee and follows it; Wall of
    Fog halves maneuvers at its terrain; Transmute takes 6 maneuvers from its army."""
    game = started()
    units = stage(
        game,
        {
            ("p1", FRONT): ["Dwarves/Patroller", "Dwarves/Footman"],
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", FRONT): ["Goblins/Thug"] * 8,
            ("p2", "home-p2"): ["Goblins/Wolf Rider"] * 3,
        },
        faces={FRONT: 5},
    )
    patroller = units[("p1", FRONT)][0]
    game.add_effect("Burning Hands", "p1", patroller, "start", "p1")
    game.add_effect("Wall of Fog", "p2", "home-p2", "start", "p1")
    game.add_effect("Transmute Rock to Mud", "p2", "p1@frontier", "start", "p1")
    choose(game, FRONT)
    choose(game, "stay")
    choose(game, "melee")
    choose(game, "skirmish")
    log = roll(game, "3 Melee", "1 Melee")
    assert log[0] == "Ann rolled 7 melee (melee)"  # 3 x 2 + 1
    from companion.rules.r96.game.rolls import Rolled

    riders = list(game.state.army("p2", "home-p2").units)
    fogged = Rolled(riders, [["3 Maneuver"]] * 3, "maneuver", "p2", "home-p2", {})
    assert game._resolve(fogged).totals == {"maneuver": 8}  # 9 halved (4), then doubled by swamp goblins
    mud = Rolled(
        list(game.state.army("p1", FRONT).units), [["2 Maneuver"], ["ID"]], "maneuver", "p1", FRONT, {}
    )
    assert game._resolve(mud).totals == {"maneuver": 0}  # 3 - 6: never below 0
