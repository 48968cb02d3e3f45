"""Items in the game flow (V4.01c L2698-2865): point values (V4-01), carrying and dropping, and a
test per item SAI (the flow's side, or the engine's count when that is all the SAI does)."""

from __future__ import annotations

import pytest
from adv_support import adv_setup, choose, frontier_action, roll, started, uid_of, until, values

from companion.rules.catalogue import load_catalogue
from companion.rules.core.state import Unit, spec_for
from companion.rules.game import Game, IllegalAction, IllegalSetup
from companion.rules.game.advanced import items as it
from companion.rules.game.advanced.item_sais import relic_matches
from companion.rules.game.setup import item_points
from companion.rules.resolution import RolledUnit, RollRequest, RollTerrain, resolve

DWARVES = ["Dwarves/Footman", "Dwarves/Sentry", "Dwarves/Crossbowman"]


def unit(name: str, uid: str = "x") -> Unit:
    return Unit(uid, "p1", spec_for(name))


def item_game(campaign: list[str], faces=None, advanced=("items",), **changes) -> Game:
    return started(
        adv_setup(list(advanced), p0_campaign=campaign, **changes),
        faces or {"home-p1": 3, "home-p2": 3, "frontier": 3},
    )


def face(die: str, text: str):
    d = load_catalogue().get(die)
    return RolledUnit(d, (d.find_face(text),))


FRONTIER = RollTerrain("Coastland", face=3)


def resolved(roll: str, *dice: RolledUnit, terrain: RollTerrain = FRONTIER, **request):
    """The engine's count of a `roll` of these rolled `dice` at `terrain` (default: the Frontier,
    Coastland at face 3); `request`: the other RollRequest fields (against, choices)."""
    return resolve(RollRequest(roll, dice, terrain=terrain, **request))


# -- point values (V4-01) -------------------------------------------------------------------------


def test_v4_01_medium_equipment_pricing():
    """V4-01 (L91-95, L2709-2712): one medium 2; two (need not match) 3; [D] three 5."""
    med = [
        spec_for("Items/Fire Dawn Blade"),
        spec_for("Items/Earth Ring of Stars"),
        spec_for("Items/Fire Eyebiter"),
    ]
    assert [item_points(med[:n]) for n in (1, 2, 3)] == [2, 3, 5]


def test_item_point_values_in_a_force():
    """L83-101, L2700-2725: small 1, large 2, artifact 3, medallion and relic 4; a game's force total
    counts them (15 points: 1 unit + a medallion makes a 5-point army)."""
    assert item_points([spec_for("Items/Fire Speed Slippers")]) == 1
    assert item_points([spec_for("Items/Fire Seven League Boots")]) == 2
    assert item_points([spec_for("Items/Fire Dragonstaff")]) == 3
    assert item_points([spec_for("Items/Gold Medallion")]) == 4
    assert item_points([spec_for("Items/Earthfang")]) == 4
    game = item_game(["Dwarves/Footman", "Items/Gold Medallion"])
    assert game.state.player("p1").force_points == 15
    game = item_game(DWARVES[:2] + ["Items/Fire Dawn Blade", "Items/Earth Ring of Stars"])  # 2 + 3
    assert game.state.player("p1").force_points == 15


# -- carrying (L2727-2754, L2771-2774) -------------------------------------------------------------


def test_who_may_carry_what():
    """L2751-2756, L2771, L2529: an element in common; Amazons and Dracolem any element; Undead
    death only; medallions and relics anyone; Dragonkin nothing."""
    fire_sword = unit("Items/Fire Vorpal Sword")
    assert it.can_carry(unit("Dwarves/Footman"), fire_sword)
    assert not it.can_carry(unit("Goblins/Thug"), fire_sword)
    assert it.can_carry(unit("Goblins/Thug"), unit("Items/Death Vorpal Sword"))
    assert it.can_carry(unit("Amazons/Soldier"), fire_sword)
    assert it.can_carry(unit("Dracolem/Bronze Draco-Tank"), unit("Items/Water Mantlet"))
    undead = next(d.name for d in load_catalogue().of_species("Undead") if d.is_unit)
    assert it.can_carry(unit(undead), unit("Items/Death Trebuchet"))
    assert not it.can_carry(unit(undead), unit("Items/Fire Trebuchet"))
    assert it.can_carry(unit("Goblins/Thug"), unit("Items/Gold Medallion"))
    assert it.can_carry(unit("Goblins/Thug"), unit("Items/Elemental Relic"))
    assert not it.can_carry(unit("Dragonkin/Dragontroop (Fire)"), fire_sword)
    assert not it.can_carry(unit("Dragonkin/Dragontroop (Fire)"), unit("Items/Gold Medallion"))


def test_a_unit_carries_two_equipment_or_one_medallion_or_relic_alone():
    """L2751, L2772-2774: two equipment/artifacts per unit; a medallion or relic takes the unit whole."""
    dwarf = unit("Dwarves/Footman", "u1")
    eq = [unit("Items/Fire Speed Slippers", f"i{k}") for k in range(3)]
    plan, left = it.carry_plan([dwarf], eq)
    assert len(plan) == 2 and [i.uid for i in left] == ["i2"]
    medal = unit("Items/Gold Medallion", "m")
    plan, left = it.carry_plan([dwarf], [medal, eq[0]])
    assert plan == {"m": "u1"} and [i.uid for i in left] == ["i0"]
    two = [dwarf, unit("Dwarves/Sentry", "u2")]
    plan, left = it.carry_plan(two, [medal, eq[0], eq[1]])
    assert left == [] and plan["m"] != plan["i0"] == plan["i1"]


def test_set_up_refuses_an_item_no_unit_of_its_army_can_carry():
    """L2733: Goblins (death, earth) cannot carry a fire sword."""
    with pytest.raises(IllegalSetup, match="carry"):
        Game(
            adv_setup(
                ["items"],
                p1_campaign=[
                    "Goblins/Thug",
                    "Goblins/Mugger",
                    "Goblins/Pelter",
                    "Items/Fire Seven League Boots",
                ],
            )
        )


def test_items_need_the_option_when_options_are_given():
    """L2506-2508."""
    with pytest.raises(IllegalSetup, match="items"):
        Game(adv_setup(["dragonkin"], p0_campaign=["Dwarves/Footman", "Items/Gold Medallion"]))


def test_items_roll_only_with_a_unit_able_to_carry_them():
    """L2737-2739: the water shield has no carrier among the rolling Dwarves: it does not roll."""
    dwarf = unit("Dwarves/Footman", "u1")
    fire, water = unit("Items/Fire Wooden Targe", "f"), unit("Items/Water Wooden Targe", "w")
    assert [i.uid for i in it.rolling_items([dwarf], [fire, water])] == ["f"]
    assert it.rolling_items([], [fire]) == []


def test_items_roll_in_the_armys_rolls():
    """L2737: the campaign army's maneuver roll lists its boots."""
    game = item_game(DWARVES + ["Items/Fire Seven League Boots"])
    until(game, "march", "p1")
    choose(game, "p1@frontier")
    choose(game, "maneuver")
    choose(game, "counter")  # Bob counter-maneuvers: the rolls happen
    d = game.pending
    assert (
        d.kind == "roll"
        and d.player == "p1"
        and "Items/Fire Seven League Boots" in [x["die"] for x in d.dice]
    )


def test_excess_items_are_buried_as_their_owner_chooses():
    """L2734-2736: one Dwarf left carries two of three small items; the owner of the army chooses
    which one is buried, before the game's next decision."""
    game = item_game(
        DWARVES[:2] + ["Items/Fire Speed Slippers", "Items/Fire Sight Stone", "Items/Fire Wooden Targe"]
    )
    st = game.state
    targe, slippers = (
        uid_of(game, "Items/Fire Wooden Targe", "p1"),
        uid_of(game, "Items/Fire Speed Slippers", "p1"),
    )
    st.location[uid_of(game, "Dwarves/Sentry", "p1", "frontier")] = "dua"
    game.cleanup()
    assert st.location[targe] == st.location[slippers] == "frontier"  # nothing is buried for the owner
    ask = it.ask_excess(game)
    d = next(ask)
    assert d.player == "p1" and d.topic == "item_sai" and len(d.choices) == 3
    with pytest.raises(StopIteration):
        ask.send(slippers)
    assert st.location[slippers] == "bua" and st.location[targe] == "frontier"
    assert any("no unit able to carry it" in line for line in game.log)


def test_the_bury_question_comes_before_the_next_decision_of_the_game():
    """L2734-2736 in play: a carrier is lost mid-game; the next decision handed out is the owner's
    choice of the item to bury; the game goes on after it."""
    game = item_game(
        DWARVES[:2] + ["Items/Fire Speed Slippers", "Items/Fire Sight Stone", "Items/Fire Wooden Targe"]
    )
    st = game.state
    until(game, "march", "p1")
    st.location[uid_of(game, "Dwarves/Sentry", "p1", "frontier")] = "dua"  # scenario: killed by a spell
    choose(game, "p1@frontier")
    d = game.pending
    assert d.topic == "item_sai" and d.player == "p1" and "which do you bury" in d.prompt
    stone = uid_of(game, "Items/Fire Sight Stone", "p1")
    choose(game, stone)
    assert st.location[stone] == "bua" and game.pending.topic != "item_sai"


# -- item SAIs in the flow -------------------------------------------------------------------------


def test_wayfare_moves_the_item_and_a_carrier_instead_of_maneuvering():
    """L2049-2059: in the maneuver roll the boots roll Wayfare (3); the owner moves them with a Dwarf
    to the Reserve Area, and the 3 maneuver results are lost."""
    game = item_game(DWARVES + ["Items/Fire Seven League Boots"])
    st = game.state
    until(game, "march", "p1")
    choose(game, "p1@frontier")
    choose(game, "maneuver")
    choose(game, "counter")
    roll(game, "ID", "ID", "ID", "3 Wayfare")
    d = game.pending
    assert d.topic == "item_sai" and "stay" in values(d)
    assert st.last_roll["total"] == 6  # 3 IDs + 3 Wayfare, before the choice
    boots = uid_of(game, "Boots", "p1")
    footman = uid_of(game, "Dwarves/Footman", "p1", "frontier")
    choose(game, f"{footman}>reserve")
    assert st.location[boots] == "reserve" and st.location[footman] == "reserve"
    assert any("Wayfare" in line for line in game.log)


def test_wayfare_kept_as_maneuver_results():
    """L2049-2053: staying keeps the X maneuver results."""
    game = item_game(DWARVES + ["Items/Fire Seven League Boots"])
    until(game, "march", "p1")
    choose(game, "p1@frontier")
    choose(game, "maneuver")
    choose(game, "counter")
    roll(game, "ID", "ID", "ID", "3 Wayfare")
    choose(game, "stay")
    assert game.state.location[uid_of(game, "Boots", "p1")] == "frontier"


def _missile_roll(game: Game, *faces):
    frontier_action(game, "missile")
    if game.pending.topic == "target":
        choose(game, "p2@frontier")
    roll(game, *faces)


def test_gold_medallion_returns_up_to_four_health_worth_from_the_dua():
    """L2817-2824: a non-maneuver roll; three dead Dwarves (1 health each) and a Sergeant (2): the
    owner returns four health-worth."""
    game = item_game(["Dwarves/Footman", "Items/Gold Medallion"])
    st = game.state
    home = [u for u in st.army("p1", "home-p1").units]
    for u in home[:4]:
        st.location[u.uid] = "dua"
    _missile_roll(game, "1 Save", "4 Logo")
    d = game.pending
    assert d.topic == "item_sai" and "done" in values(d)
    first = values(d)[1]
    choose(game, first)
    while game.pending.topic == "item_sai" and len(values(game.pending)) > 1:
        choose(game, values(game.pending)[1])
    back = [u for u in home[:4] if st.location[u.uid] == "frontier"]
    assert sum(u.health for u in back) == 4
    assert any("Gold Medallion returns" in line for line in game.log)


def test_silver_medallion_returns_an_item_from_the_bua():
    """L2798-2816, first choice."""
    game = item_game(["Dwarves/Footman", "Items/Silver Medallion"])
    st = game.state
    boots_owner_home = [u for u in st.units.values() if u.owner == "p1" and u.spec.kind == "item"]
    medal = boots_owner_home[0].uid
    # scenario: an item of Alice's in her BUA, and a second Dwarf at the Frontier able to carry it
    buried = Unit("u900", "p1", spec_for("Items/Fire Speed Slippers"))
    st.units[buried.uid], st.location[buried.uid] = buried, "bua"
    helper = Unit("u901", "p1", spec_for("Dwarves/Footman"))
    st.units[helper.uid], st.location[helper.uid] = helper, "frontier"
    _missile_roll(game, "1 Save", "4 Logo", "1 Save")
    d = game.pending
    assert d.topic == "item_sai" and f"item:{buried.uid}" in values(d)
    choose(game, f"item:{buried.uid}")
    assert st.location[buried.uid] == "frontier" and st.location[medal] == "frontier"


def test_silver_medallion_brings_a_small_dragonkin_or_promotes_one():
    """L2798-2816: at a terrain a small Dragonkin joins from the Summoning Pool, or a Dragonkin in the
    army is promoted from the pool; a buried Dragonkin may return to the pool."""
    game = item_game(
        ["Dwarves/Footman", "Items/Silver Medallion"],
        advanced=("items", "dragonkin"),
        p0_dragonkin=["Dragonkin/Dragontroop (Fire)", "Dragonkin/Dragonhero (Fire)"],
    )
    st = game.state
    troop = uid_of(game, "Dragontroop", "p1")
    _missile_roll(game, "1 Save", "4 Logo")
    d = game.pending
    assert f"join:{troop}" in values(d)
    choose(game, f"join:{troop}")
    assert st.location[troop] == "frontier"


def test_elemental_relic_recruits_and_promotes_matching_units():
    """L2830-2844: the relic shows fire; fire units (Dwarves) are recruited (small, from the DUA) or
    promoted (one larger, from the DUA), four health-worth in all, all at once."""
    game = item_game(["Dwarves/Footman", "Items/Elemental Relic"])
    st = game.state
    for u in list(st.army("p1", "home-p1").units)[:3]:
        st.location[u.uid] = "dua"
    sergeant = Unit("u901", "p1", spec_for("Dwarves/Sergeant"))
    st.units[sergeant.uid], st.location[sergeant.uid] = sergeant, "dua"
    _missile_roll(game, "1 Save", "4 Element Fire")
    assert "re-roll" in game.pending.prompt
    choose(game, "done")  # no re-roll: the four health-worth go to recruiting and promoting
    d = game.pending
    assert d.topic == "item_sai"
    footman = uid_of(game, "Dwarves/Footman", "p1", "frontier")
    assert f"promote:{footman}:u901" in values(d)
    choose(game, f"promote:{footman}:u901")
    recruit = next(v for v in values(game.pending) if v.startswith("recruit:"))
    choose(game, recruit)
    choose(game, "done")
    assert st.location["u901"] == "frontier" and st.location[footman] == "dua"
    assert st.location[recruit.split(":")[1]] == "frontier"


def test_elemental_relic_rerolls_matching_units_before_resolution():
    """L2838-2840: the Dwarf's Save face is rolled again, ignoring it: its ID now counts as missile;
    the health-worth spent on re-rolls is not left for recruiting."""
    game = item_game(["Dwarves/Footman", "Items/Elemental Relic"])
    st = game.state
    _missile_roll(game, "1 Save", "4 Element Fire")
    d = game.pending
    footman = uid_of(game, "Dwarves/Footman", "p1", "frontier")
    assert d.topic == "item_sai" and "0" in values(d)
    choose(game, "0")  # the only matching unit: no more to choose
    d = game.pending
    assert d.kind == "roll" and [x["uid"] for x in d.dice] == [footman]
    roll(game, "ID")
    assert st.last_roll["faces"][0]["faces"] == ["1 ID"] and st.last_roll["total"] == 1
    assert any("rolled again" in line for line in game.log)


def test_elemental_relic_matching_and_cancelling():
    """L2831-2836: the logo matches every element and ivory, not alloys; two relics on the same
    element cancel each other (the engine reports it)."""
    assert relic_matches(unit("Amazons/Soldier"), "*") and not relic_matches(
        unit("Dracolem/Bronze Draco-Tank"), "*"
    )
    assert relic_matches(unit("Dwarves/Footman"), "Fire") and not relic_matches(unit("Goblins/Thug"), "Fire")
    relic = ("Items/Elemental Relic", "4 Element Fire")
    res = resolved("melee", face("Dwarves/Footman", "ID"), face(*relic), face(*relic))
    assert any("cancel" in r.text or "same element" in r.text for r in res.reports)


def test_earthfang_summons_a_chill_wind_on_the_terrain():
    """L2855-2858: in a missile action Earthfang's logo puts a Chill Wind on the terrain: -2 to every
    army roll there until the terrain is maneuvered to a new face."""
    game = item_game(["Dwarves/Footman", "Items/Earthfang"])
    st = game.state
    _missile_roll(game, "1 Save", "4 Logo")
    winds = [e for e in st.effects if e.name == "Chill Wind"]
    assert len(winds) == 1 and winds[0].target == "frontier"
    assert winds[0].expiry == "until the terrain is successfully maneuvered to a new facing"
    assert [e.name for e in game.effects_on(st.army("p2", "frontier"))] == ["Chill Wind"]


def test_summon_dragon_artifact_summons_a_dragon_of_its_element():
    """L1957-1968: a Fire Dragonstaff's Summon Dragon at a terrain summons a fire dragon from a
    Summoning Pool to a terrain, and the die rolls again."""
    game = item_game(
        DWARVES[:2] + ["Items/Fire Dragonstaff"], faces={"home-p1": 3, "home-p2": 3, "frontier": 1}
    )
    st = game.state
    frontier_action(game, "magic")
    roll(game, "1 Save", "1 Maneuver", "4 Summon Dragon")
    d = game.pending
    assert d.kind == "roll" and [x["die"] for x in d.dice] == ["Items/Fire Dragonstaff"]  # rolls again
    roll(game, "4 Magic")
    d = game.pending
    assert d.topic == "item_sai" and "home-p2" in values(d)
    choose(game, "home-p2")
    drake = uid_of(game, "Red Drake", "p1")
    if game.pending is not None and game.pending.topic == "summon_dragon":  # both players have a Red Drake
        choose(game, drake)
    assert st.location[drake] == "home-p2"


# -- item SAIs the engine counts (results only) ---------------------------------------------------


def test_attune_gives_magic_of_any_element():
    """L1243-1249: X (3) magic, usable as any element."""
    res = resolved("magic", face("Dwarves/Footman", "1 Save"), face("Items/Fire Magi Crown", "3 Attune"))
    assert res.total("magic") == 3


def test_bash_copies_the_attackers_melee_as_saves():
    """L1250-1269: against a melee attack Bash generates saves equal to the targeted unit's melee;
    in other saves, X saves."""
    shield = face("Items/Fire Mithril Shield", "3 Bash")
    footman = face("Dwarves/Footman", "1 Melee")
    res = resolved("save", footman, shield, against="melee", choices={"Bash target melee": 2})
    assert res.total("save") == 2
    res = resolved("save", footman, shield, against="missile")
    assert res.total("save") == 3


@pytest.mark.parametrize(
    "die,text,purpose",
    [("Items/Fire Vorpal Sword", "3 Decapitate", "melee"), ("Items/Fire Heartseeker", "3 Impale", "missile")],
)
def test_decapitate_and_impale_are_delayed_kills_of_a_defender_showing_its_id(die, text, purpose):
    """L1420-1431, L1676-1687: reported for step 2 of the defending army's save roll."""
    res = resolved(purpose, face("Dwarves/Footman", "ID"), face(die, text))
    assert [r.kind for r in res.reports if r.source == text.split(" ", 1)[1]] == ["delayed_kill_id"]


def test_crush_targets_units_that_must_maneuver_or_die():
    """L1408-1419: up to X (4) health-worth of defenders; in a dragon attack X missile."""
    res = resolved("missile", face("Dwarves/Footman", "ID"), face("Items/Fire Trebuchet", "4 Crush"))
    assert [(r.kind, r.amount) for r in res.reports if r.source == "Crush"] == [
        ("maneuver_or_kill_then_save_or_bury", 4)
    ]


def test_elevate_doubles_one_units_missile_and_gives_maneuvers():
    """L1485-1498: maneuver roll X (4) maneuver; missile attack: one unit's missile doubled."""
    carpet = face("Items/Fire Flying Carpet", "4 Elevate")
    assert resolved("maneuver", face("Dwarves/Footman", "1 Save"), carpet).total("maneuver") == 4
    shooter = face("Dwarves/Crossbowman", "ID")
    plain = resolved("missile", shooter).total("missile")
    assert resolved("missile", shooter, carpet).total("missile") == 2 * plain


def test_flurry_melee_and_roll_again():
    """L1562-1575: X (4) melee and the item rolls again."""
    res = resolved("melee", face("Dwarves/Footman", "1 Save"), face("Items/Fire Blade Golem", "4 Flurry"))
    assert res.total("melee") == 4 and any(r.kind == "reroll_pending" for r in res.reports)


def test_sortie_melee_or_saves():
    """L1903-1912: X (4) melee in a melee attack, X saves in a save roll."""
    mantlet = face("Items/Fire Mantlet", "4 Sortie")
    assert resolved("melee", mantlet).total("melee") == 4
    assert resolved("save", mantlet, against="melee").total("save") == 4


def test_bronze_medallion_any_element_magic():
    """L2782-2797: in a magic action X (4) magic of any element."""
    res = resolved("magic", face("Dwarves/Footman", "1 Save"), face("Items/Bronze Medallion", "4 Logo"))
    assert res.total("magic") == 4


def test_an_item_moves_only_with_a_unit_able_to_carry_it():
    """L2732: retreating the boots without a Dwarf is refused (nothing moves); with one, both go."""
    game = item_game(DWARVES + ["Items/Fire Seven League Boots"])
    st = game.state
    d = until(game, "retreat", "p1")
    boots = uid_of(game, "Boots", "p1")
    footman = uid_of(game, "Dwarves/Footman", "p1", "frontier")
    assert boots in d.data["units"]
    with pytest.raises(IllegalAction, match="carry"):
        game.apply({"type": "retreat", "units": [boots]})
    assert st.location[boots] == "frontier"
    game.apply({"type": "retreat", "units": [boots, footman]})
    assert st.location[boots] == "reserve" and st.location[footman] == "reserve"


def test_species_abilities_never_modify_item_results():
    """L2728: at Highland (earth) Mountain Mastery lets a Dwarf's melee count as maneuver, but not the
    melee of the sword it carries."""
    highland = RollTerrain("Highland", face=3)
    footman = face("Dwarves/Footman", "1 Melee")
    alone = resolved("maneuver", footman, terrain=highland)
    armed = resolved("maneuver", footman, face("Items/Fire Vorpal Sword", "3 Melee"), terrain=highland)
    assert alone.total("maneuver") == armed.total("maneuver") == 1


def _attune_game():
    game = item_game(
        ["Dwarves/Theurgist", "Items/Fire Magi Crown", "Dwarves/Footman", "Dwarves/Sentry"],
        faces={"home-p1": 3, "home-p2": 3, "frontier": 1},
    )
    frontier_action(game, "magic")
    roll(game, "2 Magic", "3 Attune", "1 Save", "1 Maneuver")
    return game


def test_attune_magic_pays_for_any_element_and_may_retint_one_unit():
    """L1243-1249: the crown's 3 magic may be water (a Fire item!); Attune also lets the Theurgist's 2
    normal magic count as the same element: two Watery Doubles (4 water) are then affordable."""
    game = _attune_game()
    d = game.pending
    assert d.topic == "item_sai" and values(d)[0] == "none"
    theurgist = uid_of(game, "Dwarves/Theurgist", "p1", "frontier")
    choose(game, theurgist)
    assert game.pending.topic == "item_sai" and "Water" in values(game.pending)
    choose(game, "Water")
    d = game.pending
    assert d.topic == "cast" and "Water" in d.data["accounting"][theurgist]["may_count_as"]
    double = {"spell": "Watery Double", "target": "p1@frontier", "element": "Water"}
    game.apply({"type": "cast", "spells": [double, double]})
    assert sum(1 for e in game.state.effects if e.name == "Watery Double") >= 1


def test_attune_and_the_retinted_unit_share_one_element():
    """L1245-1247: the unit's magic turns to *the same* element as Attune's: with Fire chosen, the 5
    magic are fire, and no water magic is left for a Watery Double."""
    game = _attune_game()
    choose(game, uid_of(game, "Dwarves/Theurgist", "p1", "frontier"))
    choose(game, "Fire")
    double = {"spell": "Watery Double", "target": "p1@frontier", "element": "Water"}
    with pytest.raises(IllegalAction):
        game.apply({"type": "cast", "spells": [double]})


def test_without_the_retint_only_attunes_own_magic_is_water():
    """L1243-1249: keeping the Theurgist's magic as it is (fire, earth), only 3 water magic exist."""
    game = _attune_game()
    choose(game, "none")
    double = {"spell": "Watery Double", "target": "p1@frontier", "element": "Water"}
    with pytest.raises(IllegalAction):
        game.apply({"type": "cast", "spells": [double, double]})
    game.apply({"type": "cast", "spells": [double]})
    assert any(e.name == "Watery Double" for e in game.state.effects)


def _non_save(d) -> list[str]:
    return [next(f for f in x["faces"] if "Maneuver" in f or "Magic" in f) for x in d.dice]


@pytest.mark.parametrize(
    "weapon,face_text", [("Items/Fire Vorpal Sword", "3 Decapitate"), ("Items/Earthfang", "4 Logo")]
)
def test_decapitate_and_earthfang_kill_a_defender_showing_its_id_in_the_game(weapon, face_text):
    """L1420-1431 (Decapitate), L2859-2862 (Earthfang in melee): when the defenders roll their saves,
    one unit that rolled its ID is killed and its saves do not count (the flow's SAI module acts on
    the item's report)."""
    camp = DWARVES + [weapon] if weapon.endswith("Sword") else ["Dwarves/Footman", weapon]
    game = item_game(camp, faces={"home-p1": 3, "home-p2": 3, "frontier": 6})
    st = game.state
    frontier_action(game, "melee")
    d = game.pending
    roll(
        game,
        *[face_text if x["die"] == weapon else next(f for f in x["faces"] if "Melee" in f) for x in d.dice],
    )
    d = game.pending
    assert d.player == "p2" and "saves" in d.prompt
    goblin = d.dice[0]["uid"]
    roll(game, "ID", *_non_save(d)[1:])
    while (
        game.pending is not None
        and game.pending.player == "p1"
        and game.pending.kind == "choice"
        and goblin in values(game.pending)
    ):
        choose(game, goblin)
    assert st.location[goblin] in ("dua", "bua")
    assert any(face_text.split(" ", 1)[1] in line or "Logo" in line for line in game.log)


def test_gate_moves_other_dracolem_of_its_alloy():
    """L1609-1617 (Gate), L225-226 (alloys): the Bronze champion's Gate may move the Bronze Draco-Tank,
    never the Silver one (the flow's SAI move module with this package's alloys)."""
    from companion.rules.game.advanced.dracolem import alloy_of

    game = started(
        adv_setup(
            ["dracolem"],
            p0_campaign=["Dracolem/Bronze Draco-Tank", "Dracolem/Silver Draco-Tank", "Dwarves/Footman"],
            p0_home=["Dracolem/Bronze Draco-Champion", "Dwarves/Sentry"],
        ),
        {"home-p1": 4, "home-p2": 3, "frontier": 3},
    )
    st = game.state
    champ = uid_of(game, "Draco-Champion", "p1")
    bronze, silver = uid_of(game, "Bronze Draco-Tank", "p1"), uid_of(game, "Silver Draco-Tank", "p1")
    st.location[bronze] = st.location[silver] = "home-p1"  # scenario: both with the champion
    assert alloy_of(st.units[champ]) == alloy_of(st.units[bronze]) == "Bronze"
    until(game, "march", "p1")
    choose(game, "p1@home-p1")
    choose(game, "skip")
    d = game.pending
    assert d.topic == "action"
    choose(game, values(d)[0])
    if game.pending.topic == "target":
        choose(game, values(game.pending)[0])
    d = game.pending
    roll(game, *["4 Gate" if x["uid"] == champ else x["faces"][1] for x in d.dice])
    while game.pending.player == "p1" and game.pending.topic != "sai_move":
        game.apply(
            {"type": "choose", "choice": values(game.pending)[0]}
            if game.pending.kind == "choice"
            else {"type": "roll", "faces": [x["faces"][1] for x in game.pending.dice]}
        )
    choose(game, "frontier")
    d = game.pending
    options = {u for c in d.choices for u in (c["value"] if isinstance(c["value"], list) else [c["value"]])}
    assert bronze in options and silver not in options


def test_items_are_never_targets_of_individual_effects():
    """L2740: a spell that targets a unit (Finger of Death) cannot take an item as its target."""
    from companion.rules.core.errors import IllegalSpell
    from companion.rules.game.spells import registry

    game = item_game(DWARVES + ["Items/Fire Seven League Boots"])
    st = game.state
    boots = uid_of(game, "Boots", "p1")
    card = load_catalogue().spell("Finger of Death")
    with pytest.raises(IllegalSpell, match="not a unit"):
        registry.announce(
            game, "p2", st.army("p2", "frontier"), card, {"spell": card.name, "target": boots}, "Death"
        )


def _dragon_on_the_frontier(campaign: list[str], dragon_face: str):
    game = item_game(campaign)
    st = game.state
    drake = uid_of(game, "Red Drake", "p2")
    st.location[drake] = "frontier"  # scenario: Bob's dragon was summoned there
    until(game, "dragon_roll", marching="p1")
    roll(game, dragon_face)
    d = game.pending
    assert d.player == "p1" and d.data["roll"] == "dragon"
    return game, drake, d


def test_decapitate_kills_a_dragon_that_rolled_jaws():
    """L1420-1431: in a dragon attack Decapitate kills an attacking dragon that rolled Jaws (the
    dragon phase's SAI module acts on the item's report)."""
    game, drake, d = _dragon_on_the_frontier(DWARVES + ["Items/Fire Vorpal Sword"], "12 Jaw")
    roll(
        game,
        *[
            "3 Decapitate"
            if "Sword" in x["die"]
            else next(f for f in x["faces"] if "Save" in f or "Maneuver" in f)
            for x in d.dice
        ],
    )
    assert any(
        "Decapitate" in line and "is killed" in line for line in game.log
    )  # a kill, not a slay (L1428)
    assert game.state.location[drake] != "frontier"


def test_wayfare_in_a_dragon_attack_moves_the_item_and_a_carrier():
    """L2049-2059 (reference sheet: during a dragon attack Wayfare lets the item and a unit able to
    carry it move to any terrain or the Reserve Area)."""
    game, drake, d = _dragon_on_the_frontier(DWARVES + ["Items/Fire Seven League Boots"], "0 Belly")
    st = game.state
    roll(game, *["3 Wayfare" if "Boots" in x["die"] else x["faces"][1] for x in d.dice])
    d = game.pending
    assert d.topic == "item_sai" and "stay" in values(d)
    footman = uid_of(game, "Dwarves/Footman", "p1", "frontier")
    choose(game, f"{footman}>reserve")
    assert st.location[uid_of(game, "Boots", "p1")] == "reserve" and st.location[footman] == "reserve"
    assert drake


def test_the_owner_may_bury_only_sets_that_leave_the_rest_carried():
    """L2734-2736: one Dwarf left with two small items and the large boots: the owner is offered only
    as few items as must go, and only sets whose rest the Dwarf can carry."""
    game = item_game(
        [
            "Dwarves/Footman",
            "Dwarves/Sentry",
            "Items/Fire Speed Slippers",
            "Items/Fire Sight Stone",
            "Dwarves/Crossbowman",
        ]
    )
    st = game.state
    boots = Unit("u950", "p1", spec_for("Items/Fire Seven League Boots"))
    st.units[boots.uid], st.location[boots.uid] = boots, "frontier"
    for name in ("Dwarves/Sentry", "Dwarves/Crossbowman"):
        st.location[uid_of(game, name, "p1", "frontier")] = "dua"
    dice = st.dice_at("p1", "frontier")
    units, items = [d for d in dice if d.is_unit], [d for d in dice if it.is_item(d)]
    options = it.bury_options(units, items)
    assert options and all(len(o) == len(it.carry_plan(units, items)[1]) for o in options)
    for option in options:
        assert not it.carry_plan(units, [i for i in items if i.uid not in option])[1]
    stone = uid_of(game, "Fire Sight Stone", "p1")
    assert (stone,) in options
