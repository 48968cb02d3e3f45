"""Dragonkin (V4.01c L2510-2564), Eldarim and their champions (L838-850, L2866-3057), Dracolem (L1157,
L1609-1617, L2512-2514) and the species-sheet spells for them (L2389-2426); worked example V4-08."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from adv_support import adv_setup, choose, frontier_action, place, roll, started, uid_of, until, values
from game_support import small_army

from companion.rules.catalogue import load_catalogue
from companion.rules.core.state import Unit, spec_for
from companion.rules.game import Game, IllegalAction, IllegalSetup, dua
from companion.rules.game.advanced import dracolem as dc
from companion.rules.game.advanced import dragonkin as dk
from companion.rules.game.advanced import eldarim as el
from companion.rules.game.advanced import spells as sp
from companion.rules.resolution import RolledUnit, RollRequest, resolve

KIN = [
    "Dragonkin/Dragontroop (Fire)",
    "Dragonkin/Dragonhero (Fire)",
    "Dragonkin/Dragonfoal (Air)",
]  # 4 health


def kin_game(campaign=None, kin=KIN, advanced=("dragonkin",), faces=None, **changes) -> Game:
    if campaign is not None:
        changes["p0_campaign"] = campaign
    return started(
        adv_setup(list(advanced), p0_dragonkin=list(kin), **changes),
        faces or {"home-p1": 3, "home-p2": 3, "frontier": 3},
    )


def put(game: Game, name: str, where: str, owner: str = "p1") -> str:
    """Scenario set-up: a die of `owner` at `where` (for rule checks outside a full game)."""
    uid = f"t{len(game.state.units) + 100}"
    game.state.units[uid] = Unit(uid, owner, spec_for(name))
    game.state.location[uid] = where
    return uid


def alice_casts(spell: str, target: str, paid_with: str) -> dict:
    """The cast a spell's resolver gets: Alice's Frontier army casts `spell` at `target`, paid with
    `paid_with` magic."""
    return {"spell": spell, "target": target, "paid_with": paid_with, "caster": "p1", "army": "p1@frontier"}


def white_dragon() -> str:
    """The catalogue name of a White Dragon."""
    return next(d.name for d in load_catalogue().dice if "White" in d.name and d.kind.value == "dragon")


# -- Dragonkin: allowance, pool (V4-08, L2510-2520) ------------------------------------------------


def test_v4_08_dragonkin_allowance_in_a_game():
    """V4-08 (L2512-2514): one health per full 3 points of non-Dracolem force: 15 points -> 5; with 3
    points of Dracolem in the force -> 4."""
    kin_game(kin=KIN + ["Dragonkin/Dragontroop (Air)"])  # 5 health: allowed
    with pytest.raises(IllegalSetup, match="allows 5"):
        Game(adv_setup(["dragonkin"], p0_dragonkin=KIN + ["Dragonkin/Dragonhero (Air)"]))
    setup = adv_setup(
        ["dragonkin", "dracolem"],
        p0_campaign=["Dracolem/Bronze Draco-Lord", "Dwarves/Footman", "Dwarves/Sentry"],
        p0_dragonkin=KIN + ["Dragonkin/Dragontroop (Air)"],
    )
    with pytest.raises(IllegalSetup, match="allows 4"):
        Game(setup)


def test_dragonkin_start_in_the_summoning_pool():
    """L2520."""
    game = kin_game()
    assert sorted(u.name for u in game.state.area("p1", "pool") if dk.is_dragonkin(u)) == sorted(KIN)


# -- Summon Dragonkin (L2410-2414) -----------------------------------------------------------------


def cast_at_frontier(game: Game, spells: list[dict], magic_faces: list[str]):
    frontier_action(game, "magic")
    roll(game, *magic_faces)
    assert game.pending.topic == "cast"
    game.apply({"type": "cast", "spells": spells})
    while (
        game.pending is not None and game.pending.topic == "spell_order"
    ):  # in the order announced (L470-473)
        game.apply({"type": "choose", "choice": game.pending.choices[0]["value"]})


MAGES = ["Dwarves/Wizard", "Dwarves/Thaumaturgist"]  # 5 points rolling "4 Magic" and "3 Magic"


def test_summon_dragonkin_brings_one_health_worth_per_casting():
    """L2410-2414: fire magic brings a Fire Dragonkin to the casting army, one health-worth per
    casting: the two-health Dragonhero needs two castings combined on it, the Dragontroop one."""
    game = kin_game(campaign=MAGES, faces={"home-p1": 3, "home-p2": 3, "frontier": 1})
    st = game.state
    hero = uid_of(game, "Dragonhero (Fire)", "p1")
    cast_at_frontier(
        game,
        [
            {"spell": "Summon Dragonkin", "target": hero, "element": "Fire"},
            {"spell": "Summon Dragonkin", "target": hero, "element": "Fire"},
        ],
        ["4 Magic", "3 Magic"],
    )
    assert st.location[hero] == "frontier"
    assert dk.is_dragonkin(st.units[hero]) and hero in [u.uid for u in st.army("p1", "frontier").units]


def test_one_casting_is_not_enough_for_a_two_health_dragonkin():
    """L2410-2414: one health-worth per casting."""
    game = kin_game(campaign=MAGES, faces={"home-p1": 3, "home-p2": 3, "frontier": 1})
    st = game.state
    hero, troop = uid_of(game, "Dragonhero (Fire)", "p1"), uid_of(game, "Dragontroop (Fire)", "p1")
    cast_at_frontier(
        game,
        [
            {"spell": "Summon Dragonkin", "target": hero, "element": "Fire"},
            {"spell": "Summon Dragonkin", "target": troop, "element": "Fire"},
        ],
        ["4 Magic", "3 Magic"],
    )
    assert st.location[hero] == "pool" and st.location[troop] == "frontier"
    assert any("1 of the 2 health-worth" in line for line in game.log)


def test_summon_dragonkin_needs_the_element_of_the_magic_paid():
    """L2410-2414: earth magic cannot summon a Fire Dragonkin: refused when announced (the spell
    targets), and the effect itself refuses it too."""
    game = kin_game(campaign=MAGES, faces={"home-p1": 3, "home-p2": 3, "frontier": 1})
    st = game.state
    troop = uid_of(game, "Dragontroop (Fire)", "p1")
    with pytest.raises(IllegalAction):
        cast_at_frontier(
            game, [{"spell": "Summon Dragonkin", "target": troop, "element": "Earth"}], ["4 Magic", "3 Magic"]
        )
    sp.summon_dragonkin(
        game,
        alice_casts("Summon Dragonkin", troop, "Earth"),
    )
    assert st.location[troop] == "pool" and any("does nothing" in line for line in game.log)


# -- restrictions (L2521-2535) ---------------------------------------------------------------------


def test_killed_dragonkin_return_to_the_summoning_pool():
    """L2525-2526: never the DUA; an effect that kills and buries still buries them (L2526-2527)."""
    game = kin_game()
    st = game.state
    troop = place(game, "Dragontroop (Fire)", "p1")
    assert dk.killed(game, troop) == "pool"
    game._kill([troop])
    assert st.location[troop] == "pool"
    st.location[troop] = "frontier"
    dua.kill(st, [troop], bury_too=True)
    assert st.location[troop] == "bua"


def test_an_army_of_dragonkin_alone_returns_to_the_summoning_pool():
    """L2522-2523."""
    game = kin_game()
    st = game.state
    troop = place(game, "Dragontroop (Fire)", "p1")
    for u in st.army("p1", "frontier").units:
        if not dk.is_dragonkin(u):
            st.location[u.uid] = "dua"
    game.cleanup()
    assert st.location[troop] == "pool" and not st.army("p1", "frontier").units


def test_dragonkin_cannot_leave_the_terrain_where_they_were_summoned():
    """L2521: a retreat listing a Dragonkin is refused and nothing moves."""
    game = kin_game()
    st = game.state
    troop = place(game, "Dragontroop (Fire)", "p1")
    d = until(game, "retreat", "p1")
    assert troop in d.data["units"]
    with pytest.raises(IllegalAction, match="cannot leave"):
        game.apply({"type": "retreat", "units": [troop]})
    assert st.location[troop] == "frontier"


def test_dragonkin_never_roll_for_magic_or_missile_actions():
    """L2532: the missile roll of an army with a Dragonkin leaves it out; its melee rolls include it."""
    game = kin_game()
    st = game.state
    troop = place(game, "Dragontroop (Fire)", "p1")
    frontier_action(game, "missile")
    if game.pending.topic == "target":
        choose(game, "p2@frontier")
    assert troop not in [d["uid"] for d in game.pending.dice]
    army = st.army("p1", "frontier")
    assert [u.uid for u in dk.roll_dice(game, army, "melee", list(army.dice)) if u.uid == troop] == [troop]
    assert troop not in [u.uid for u in dk.roll_dice(game, army, "magic", list(army.dice))]


def test_dragonkin_automatic_saves_when_rolled():
    """L2537-2541: automatic saves equal to health, added at step 10, only when rolled; Belly loses
    them (L1270-1272)."""
    cat = load_catalogue()
    hero = cat.get("Dragonkin/Dragonhero (Fire)")
    res = resolve(RollRequest("save", (RolledUnit(hero, (hero.find_face("2 Melee"),)),), against="melee"))
    assert res.total("save") == 2
    res = resolve(RollRequest("save", (RolledUnit(hero, (hero.find_face("2 Belly"),)),), against="melee"))
    assert res.total("save") == 0


def test_dragonkin_sit_out_dragon_attacks_by_frightening_dragons_unless_eldarim_steady_them():
    """L2533-2535 and Resist Fear (L838-840): a Fire Dragontroop may not roll against a Red (fire)
    dragon, may against a Blue (air) one; one health of Eldarim lets one health of Dragonkin roll."""
    troop = Unit("k", "p1", spec_for("Dragonkin/Dragontroop (Fire)"))
    red, blue = Unit("r", "p2", spec_for("Dragons/Red Drake")), Unit("b", "p2", spec_for("Dragons/Blue Wyrm"))
    ivory = Unit("i", "p2", spec_for("Dragons/Ivory Drake"))
    assert (
        dk.frightened_by(troop, [red])
        and not dk.frightened_by(troop, [blue])
        and dk.frightened_by(troop, [ivory])
    )
    assert dk.may_roll_in_dragon_attack([troop], [red]) == []
    assert dk.may_roll_in_dragon_attack([troop], [blue]) == ["k"]
    elder = Unit("e", "p1", spec_for("Eldarim/Morehl Follower (Air)"))
    assert dk.may_roll_in_dragon_attack([troop, elder], [red]) == ["k"]


def test_dragonkin_champion_logo_moves_a_dragon_of_its_element_in_melee():
    """L2546-2560: during a melee attack the champion's logo may move a summoned dragon that shares
    its element from one terrain to another."""
    game = kin_game(faces={"home-p1": 3, "home-p2": 3, "frontier": 6})
    st = game.state
    champ = put(game, "Dragonkin/Dragonstallion (Fire)", "frontier")
    drake = place(game, "Red Drake", "p2", "home-p2")
    frontier_action(game, "melee")
    faces = [
        ("4 Logo" if d["uid"] == champ else next(f for f in d["faces"] if "Save" in f or "Maneuver" in f))
        for d in game.pending.dice
    ]
    roll(game, *faces)
    d = game.pending
    assert d.topic == "dragonkin" and f"{drake}>home-p1" in values(d)
    choose(game, f"{drake}>home-p1")
    assert st.location[drake] == "home-p1"


# -- Eldarim (L838-850) and their champions (L2866-3057) ----------------------------------------------


ELDARIM = [
    "Eldarim/Morehl Follower (Air)",
    "Eldarim/Morehl Warder (Air)",
    "Eldarim/Morehl Sprinter (Air)",
    "Eldarim/Morehl Spellbinder (Fire)",
    "Eldarim/Morehl Toxophilite (Fire)",
]  # five Eldarim units, no champion


def eldarim_game(**kw) -> Game:
    return kin_game(campaign=ELDARIM, advanced=("dragonkin", "eldarim"), **kw)


def test_dragonkin_handlers_adds_a_small_dragonkin_of_the_terrains_element():
    """L842-850: in the Species Abilities Phase an army with Eldarim at a terrain takes a small
    Dragonkin matching the terrain (Coastland: air, water) from the Summoning Pool; never more
    Dragonkin health than Eldarim health."""
    game = eldarim_game()
    st = game.state
    d = until(game, "dragonkin", "p1")
    foal = uid_of(game, "Dragonfoal (Air)", "p1")
    assert f"join:{foal}:frontier" in values(d)
    assert not any(uid_of(game, "Dragontroop (Fire)", "p1") in v for v in values(d))  # fire: not Coastland's
    choose(game, f"join:{foal}:frontier")
    assert st.location[foal] == "frontier"
    assert el.handlers_options(game, "p1") == [] or all(
        st.units[v.split(":")[1]].spec.elements[0] in ("Air", "Water")
        for v in [o["value"] for o in el.handlers_options(game, "p1")]
    )


def test_dragonkin_handlers_respects_the_eldarim_health_cap():
    """L847-849: an army with one health of Eldarim and one of Dragonkin may take no more."""
    game = eldarim_game()
    st = game.state
    for u in list(st.army("p1", "frontier").units)[1:]:
        st.location[u.uid] = "dua"
    st.location[uid_of(game, "Dragonfoal (Air)", "p1")] = "frontier"
    assert [o for o in el.handlers_options(game, "p1") if o["value"].endswith(":frontier")] == []


def test_champion_types_and_whom_they_may_affect():
    """L2875-2903: White champions any dragon, elemental ones a dragon containing their element;
    only White champions affect a White Dragon."""
    lord = Unit("c1", "p1", spec_for("Eldarim/Dragonlord"))
    hunter = Unit("c2", "p1", spec_for("Eldarim/Fire Dragon Hunter"))
    zealot = Unit("c3", "p1", spec_for("Eldarim/Fire Dragon Zealot"))
    assert (el.ability(lord), el.ability(hunter), el.ability(zealot)) == ("tame", "slay", "control")
    red, blue = Unit("r", "p2", spec_for("Dragons/Red Drake")), Unit("b", "p2", spec_for("Dragons/Blue Wyrm"))
    white = Unit("w", "p2", spec_for(white_dragon()))
    assert el.may_affect(hunter, red) and not el.may_affect(hunter, blue) and not el.may_affect(hunter, white)
    assert el.may_affect(lord, blue) and el.may_affect(lord, white)


def _site(game: Game, champ: str, dragon: str, kind: str):
    st = game.state
    st.last_roll = {"faces": [{"uid": champ, "die": st.units[champ].name, "faces": ["1 Logo"]}]}
    attack = SimpleNamespace(dragon=st.units[dragon], target="army")
    site = SimpleNamespace(terrain="frontier", slain=set(), ignored=set(), on_army=lambda: [attack])
    outcome = SimpleNamespace(reports=[{"kind": kind, "unit": 0, "source": "Logo"}])
    return site, outcome


def _drive(gen, answers):
    """Run a hook generator, answering its decisions in order; returns the decisions asked."""
    asked = []
    try:
        d = next(gen)
        while True:
            asked.append(d)
            d = gen.send(d.validate(answers.pop(0)))
    except StopIteration:
        return asked


def test_dragonslayer_removes_the_dragon_from_the_game_and_its_damage_is_ignored():
    """L2969-2983: slain, not returned to the Summoning Pool; its non-breath damage ignored; no
    promotion (the dragon is listed as slain)."""
    game = eldarim_game()
    st = game.state
    hunter = put(game, "Eldarim/Fire Dragon Hunter", "frontier")
    drake = place(game, "Red Drake", "p2")
    site, outcome = _site(game, hunter, drake, "slay_dragon")
    asked = _drive(el.response_hook(game, site, outcome), [{"type": "choose", "choice": drake}])
    assert asked[0].topic == "dragonkin"
    assert st.location[drake] == el.REMOVED and drake in site.slain and drake in site.ignored


def test_a_slain_white_dragon_rolling_jaws_buries_the_slayer():
    """L2978-2983."""
    game = eldarim_game()
    st = game.state
    slayer = put(game, "Eldarim/Dragonslayer", "frontier")
    white = put(game, white_dragon(), "frontier", owner="p2")
    site, outcome = _site(game, slayer, white, "slay_dragon")
    jaws = next(f for f in st.units[white].spec.faces if "Jaw" in f)
    _drive(
        el.response_hook(game, site, outcome),
        [{"type": "choose", "choice": white}, {"type": "roll", "faces": [jaws]}],
    )
    assert st.location[white] == el.REMOVED and st.location[slayer] == "bua"


def test_taming_and_control_last_while_champion_and_dragon_stay_together():
    """L2906-2941, L3003-3036: a tamed dragon is recorded with its tamer; taming ends when they part;
    one dragon per champion."""
    game = eldarim_game()
    st = game.state
    master = put(game, "Eldarim/Fire Dragon Master", "frontier")
    drake = place(game, "Red Drake", "p2")
    site, outcome = _site(game, master, drake, "tame_dragon")
    _drive(el.response_hook(game, site, outcome), [{"type": "choose", "choice": drake}])
    assert el.tamed_by(st, drake) == master and drake in site.ignored and st.location[drake] == "frontier"
    zealot = put(game, "Eldarim/Fire Dragon Zealot", "frontier")
    el.bind(game, st.units[zealot], st.units[drake], "control")  # controlled by another unit: taming ends
    assert el.tamed_by(st, drake) is None and el.controlled_by(st, drake) == zealot
    st.location[drake] = "home-p2"
    game.cleanup()
    assert el.controlled_by(st, drake) is None


def test_a_tamed_white_dragon_is_freed_at_the_tamers_next_turn():
    """L2929-2930: the effect expires in the Effects Expire step of the taming player's turn."""
    game = eldarim_game()
    st = game.state
    lord = put(game, "Eldarim/Dragonlord", "frontier")
    white = put(game, white_dragon(), "frontier", owner="p2")
    el.bind(game, st.units[lord], st.units[white], "tame")
    assert [e.expiry for e in st.effects if e.name == "Tamed"] == ["until the beginning of your next turn"]


def test_evolve_dragonkin_promotes_one_of_the_casters_dragonkin():
    """L2389-2393, L1139-1149: fire magic promotes the Fire Dragontroop to a two-health Dragonkin of
    the Summoning Pool (element free)."""
    game = eldarim_game()
    st = game.state
    troop = place(game, "Dragontroop (Fire)", "p1")
    cast = alice_casts("Evolve Dragonkin", troop, "Fire")
    _drive(sp.evolve_dragonkin(game, cast), [])
    hero = uid_of(game, "Dragonhero (Fire)", "p1")
    assert st.location[hero] == "frontier" and st.location[troop] == "pool"


def test_rise_of_the_eldarim_promotes_an_eldarim_of_the_element_paid():
    """L2421-2426: an Air Eldarim is promoted one health from the DUA."""
    game = eldarim_game()
    st = game.state
    follower = uid_of(game, "Morehl Follower (Air)", "p1", "frontier")
    bigger = put(game, "Eldarim/Morehl Devotee (Fire)", "dua")
    cast = alice_casts("Rise of the Eldarim", follower, "Air")
    _drive(sp.rise_of_the_eldarim(game, cast), [])
    assert st.location[bigger] == "frontier" and st.location[follower] == "dua"
    water = alice_casts("Rise of the Eldarim", bigger, "Water")
    _drive(sp.rise_of_the_eldarim(game, water), [])
    assert st.location[bigger] == "frontier"  # wrong element: nothing happens


def test_esfahs_gift_returns_a_buried_minor_terrain_to_the_summoning_pool():
    """L2406-2407."""
    game = started(adv_setup(["minor_terrains"], p0_minor_terrains=["Deadland Woods"]))
    st = game.state
    woods = place(game, "Deadland Woods", "p1", "bua")
    sp.esfahs_gift(game, {"spell": "Esfah's Gift", "target": woods, "caster": "p1", "army": "p1@frontier"})
    assert st.location[woods] == "pool"


def test_species_sheet_spells_are_registered_as_spell_effects():
    from companion.rules.game.advanced import spells as sp
    from companion.rules.game.rulebook import build_extensions

    effects = build_extensions({}).spell_effects
    for name in ("Summon Dragonkin", "Evolve Dragonkin", "Rise of the Eldarim", "Esfah's Gift"):
        assert effects[name] is sp.EFFECTS[name]


# -- Dracolem -----------------------------------------------------------------------------------------


def test_dracolem_alloys_gate_and_no_promotion():
    """L225-226 (alloys), L1157 (never promoted or recruited), L1609-1617 (Gate moves other Dracolem of
    the same alloy, up to four health-worth)."""
    gate = Unit("g", "p1", spec_for("Dracolem/Bronze Draco-Champion"))
    tank = Unit("t", "p1", spec_for("Dracolem/Bronze Draco-Tank"))
    silver = Unit("s", "p1", spec_for("Dracolem/Silver Draco-Tank"))
    assert (
        dc.alloy_of(gate),
        dc.alloy_of(silver),
        dc.alloy_of(Unit("d", "p1", spec_for("Dwarves/Footman"))),
    ) == ("Bronze", "Silver", None)
    assert [u.uid for u in dc.gate_movers(gate, [gate, tank, silver])] == ["t"]
    assert not dc.may_be_promoted(tank) and dc.may_be_promoted(Unit("d", "p1", spec_for("Dwarves/Footman")))


def test_dracolem_are_never_promoted_in_play():
    """L1157: the promotion operation refuses a Dracolem, changing nothing."""
    game = started(
        adv_setup(
            ["dracolem"],
            p0_campaign=[
                "Dracolem/Bronze Draco-Brawler",
                "Dracolem/Bronze Draco-Tank",
                "Dwarves/Footman",
                "Dwarves/Sentry",
            ],
        )
    )
    st = game.state
    brawler = uid_of(game, "Draco-Brawler", "p1")
    tank = place(game, "Draco-Tank", "p1", "dua")
    with pytest.raises(IllegalAction, match="Dracolem"):
        dua.promote(st, [(brawler, tank)])
    assert st.location[brawler] == "frontier"


def test_dracolem_need_the_option_when_options_are_given():
    """L2506-2508."""
    with pytest.raises(IllegalSetup, match="dracolem"):
        Game(adv_setup(["items"], p0_campaign=["Dracolem/Bronze Draco-Lord"] + small_army("Dwarves", 2)))


def test_frightened_dragonkin_sit_out_the_response_to_a_dragon_attack():
    """L2533-2535: the roll filter drops a Fire Dragontroop from the army's response when a Red (fire)
    dragon attacks at its terrain, keeps it against a Blue one."""
    game = kin_game()
    st = game.state
    troop = place(game, "Dragontroop (Fire)", "p1")
    red = place(game, "Red Drake", "p1")
    army = st.army("p1", "frontier")
    assert troop not in [u.uid for u in dk.roll_dice(game, army, "dragon", list(army.dice))]
    blue = put(game, "Dragons/Blue Wyrm", "frontier", owner="p2")
    st.location[red] = "pool"
    army = st.army("p1", "frontier")
    assert troop in [u.uid for u in dk.roll_dice(game, army, "dragon", list(army.dice))]
    assert blue


def test_a_tamed_dragon_spares_its_tamers_army_and_carries_its_rider():
    """L2920-2926: the tamed dragon will not attack the army holding its tamer; in the Retreat step the
    tamer may ride it to another terrain, and it stays tamed."""
    game = eldarim_game()
    st = game.state
    master = put(game, "Eldarim/Fire Dragon Master", "frontier")
    drake = place(game, "Red Drake", "p2")
    el.bind(game, st.units[master], st.units[drake], "tame")
    assert el.spares(st, drake, "p1", "frontier") and not el.spares(st, drake, "p2", "frontier")
    d = until(game, "dragonkin", "p1")
    while "ride" not in d.prompt:  # Dragonkin Handlers first
        choose(game, "none")
        d = until(game, "dragonkin", "p1")
    assert d.rule == "V4.01c L2923-2926" and "home-p2" in values(d)
    choose(game, "home-p2")
    assert st.location[master] == st.location[drake] == "home-p2"
    assert el.tamed_by(st, drake) == master


def _dracolem_magic_game():
    game = started(
        adv_setup(
            ["dracolem"],
            p0_campaign=[
                "Dracolem/Bronze Draco-Mystic",
                "Dracolem/Bronze Draco-Adeptus",
                "Dwarves/Footman",
                "Dwarves/Sentry",
            ],
        ),
        {"home-p1": 3, "home-p2": 3, "frontier": 1},
    )
    frontier_action(game, "magic")
    roll(game, "2 Magic", "3 Magic", "1 Save", "1 Maneuver")
    return game


def test_dracolem_magic_is_of_their_alloy():
    """L2091-2101: Bronze Dracolem magic pays for a Bronze or an "Alloy" spell (their effects are not
    printed in V4.01c), never for an elemental one."""
    game = _dracolem_magic_game()
    d = game.pending
    assert d.topic == "cast"
    mystic = uid_of(game, "Draco-Mystic", "p1")
    assert d.data["accounting"][mystic]["may_count_as"] == ["Bronze"]
    with pytest.raises(IllegalAction):
        game.apply(
            {
                "type": "cast",
                "spells": [{"spell": "Watery Double", "target": "p1@frontier", "element": "Water"}],
            }
        )
    game.apply({"type": "cast", "spells": [{"spell": "Anti-Magic Surge", "target": "p1@frontier"}]})
    assert any("Anti-Magic Surge" in line for line in game.log)


def test_esfahs_gift_cast_by_amazons_in_the_game():
    """L2406-2407 through the flow: an Amazon army at the Frontier (Coastland: its magic is air or
    water by Terrain Harmony) casts Esfah's Gift on its buried Deadland Woods."""
    amazons = ["Amazons/Seer", "Amazons/Soldier", "Amazons/Runner", "Amazons/Darter", "Amazons/Charioteer"]
    game = started(
        adv_setup(["minor_terrains"], p0_campaign=amazons, p0_minor_terrains=["Deadland Woods"]),
        {"home-p1": 3, "home-p2": 3, "frontier": 1},
    )
    st = game.state
    woods = place(game, "Deadland Woods", "p1", "bua")  # scenario: buried earlier
    until(game, "march", "p1")
    choose(game, "p1@frontier")
    assert game.pending.topic == "maneuver"  # nothing in the Summoning Pool to bring in
    choose(game, "skip")
    choose(game, "magic")
    roll(game, *["ID"] * 5)
    game.apply({"type": "cast", "spells": [{"spell": "Esfah's Gift", "target": woods, "element": "Water"}]})
    assert st.location[woods] == "pool"


def test_a_controlled_dragon_adds_its_damage_to_its_controllers_army_melee():
    """L3016-3026: another dragon attacks the army of the unit controlling a dragon there: the
    controlled dragon is rolled and its damage (a Claw: 6) joins the army's melee; Wings add nothing."""
    for face_text, added in (("6 Claw", 6), ("5 Wing", 0)):
        game = eldarim_game()
        st = game.state
        zealot = put(game, "Eldarim/Fire Dragon Zealot", "frontier")
        drake = place(game, "Red Drake", "p1")
        el.bind(game, st.units[zealot], st.units[drake], "control")
        wyrm = put(game, "Dragons/Blue Wyrm", "frontier", owner="p2")
        attack = SimpleNamespace(dragon=st.units[wyrm], target="army")
        site = SimpleNamespace(
            terrain="frontier", marching="p1", slain=set(), ignored=set(), on_army=lambda a=attack: [a]
        )
        outcome = SimpleNamespace(reports=[], totals={"melee": 2})
        asked = _drive(el.response_hook(game, site, outcome), [{"type": "roll", "faces": [face_text]}])
        assert asked[0].data["roll"] == "controlled_dragon"
        assert outcome.totals["melee"] == 2 + added


def _dragon_attack_on_alice(campaign, advanced, dragon_name, owner="p2", kin=()):
    game = started(adv_setup(list(advanced), p0_campaign=campaign, p0_dragonkin=list(kin)))
    st = game.state
    dragon = uid_of(game, dragon_name, owner)
    st.location[dragon] = "frontier"  # scenario: summoned there earlier
    d = until(game, "dragon_roll", marching="p1")
    return game, dragon, d


def test_a_dragonslayer_slays_an_attacking_dragon_in_the_dragon_phase():
    """L2969-2983 in play: Bob's Red Drake attacks Alice's Frontier army; her Dragonslayer rolls its
    logo in the response: the drake leaves the game and its claws do no damage."""
    game, drake, d = _dragon_attack_on_alice(
        ["Eldarim/Dragonslayer", "Dwarves/Footman"], ["eldarim"], "Red Drake"
    )
    st = game.state
    roll(game, "6 Claw")
    d = game.pending
    assert d.player == "p1" and d.data["roll"] == "dragon"
    slayer = uid_of(game, "Dragonslayer", "p1")
    roll(game, *["1 Logo" if x["uid"] == slayer else "1 Save" for x in d.dice])
    d = game.pending
    assert d.topic == "dragonkin" and drake in values(d)
    choose(game, drake)
    assert st.location[drake] == el.REMOVED
    assert st.location[slayer] == "frontier" and len(st.army("p1", "frontier").units) == 2


def test_frightened_dragonkin_do_not_roll_against_a_dragon_of_their_element_in_play():
    """L2533-2535 in play: Bob's Red (fire) Drake attacks Alice's Frontier army, where her Fire
    Dragontroop stands: the troop is left out of the army's response roll."""
    game = started(
        adv_setup(
            ["dragonkin"], p0_dragonkin=["Dragonkin/Dragontroop (Fire)"], p1_dragons=["Dragons/Red Drake"]
        )
    )
    st = game.state
    troop = place(game, "Dragontroop (Fire)", "p1")
    place(game, "Red Drake", "p2")
    until(game, "dragon_roll", marching="p1")
    roll(game, "6 Claw")
    d = game.pending
    assert d.player == "p1" and d.data["roll"] == "dragon" and troop not in [x["uid"] for x in d.dice]
    assert len(d.dice) == len(st.army("p1", "frontier").units) - 1


def test_eldarim_units_are_standard_their_champions_optional():
    """L182-226, L806-850 (Eldarim are a species of the core rules) and L2506-2508, L2866-2903 (the
    champions are advanced dice): without the 'eldarim' option Eldarim units are fine, a champion is
    refused."""
    Game(adv_setup(["items"], p0_campaign=ELDARIM))
    with pytest.raises(IllegalSetup, match="eldarim"):
        Game(adv_setup(["items"], p0_campaign=["Eldarim/Dragonslayer", "Dwarves/Footman"]))


def test_a_city_promotes_a_dragonkin_from_the_summoning_pool():
    """L522-524 with L1139-1141: at a captured City, a Dragontroop in the army is promoted to a
    two-health Dragonkin of the Summoning Pool, and the Dragontroop goes back to the pool."""
    game = kin_game()
    st = game.state
    troop = place(game, "Dragontroop (Fire)", "p1", "home-p1")
    st.terrains["home-p1"].face, st.terrains["home-p1"].controller = 8, "p1"  # Highland City captured
    d = until(game, "city", "p1")
    hero = uid_of(game, "Dragonhero (Fire)", "p1")
    assert f"promote:{troop}:{hero}" in values(d)
    choose(game, f"promote:{troop}:{hero}")
    assert st.location[hero] == "home-p1" and st.location[troop] == "pool"


def test_a_tamed_dragon_does_not_attack_its_tamers_army_in_the_dragon_phase():
    """L2920-2922 in play: Bob's Red Drake, tamed by Alice's Dragonmaster at the Frontier, sits out the
    dragon attack on her army there (no roll, no damage)."""
    game = eldarim_game()
    st = game.state
    master = put(game, "Eldarim/Fire Dragon Master", "frontier")
    drake = place(game, "Red Drake", "p2")
    el.bind(game, st.units[master], st.units[drake], "tame")
    before = len(st.army("p1", "frontier").units)
    until(game, "march", "p1", later_turn=True)
    assert any("does not attack Alice's army at Coastland Tower" in line for line in game.log)
    assert len(st.army("p1", "frontier").units) == before


def test_path_cannot_move_a_dragonkin():
    """L2521 (and Path, L2257-2259): a Dragonkin never leaves its terrain, so Path may not target it."""
    from companion.rules.core.errors import IllegalSpell
    from companion.rules.game.spells import registry

    game = kin_game()
    st = game.state
    troop = place(game, "Dragontroop (Fire)", "p1")
    card = load_catalogue().spell("Path")
    with pytest.raises(IllegalSpell, match="Dragonkin"):
        registry.announce(
            game,
            "p1",
            st.army("p1", "frontier"),
            card,
            {"spell": "Path", "target": troop, "to": "home-p1"},
            "Earth",
        )


def _controlled_drake_game():
    """Bob's Red Drake at the Frontier is controlled by Alice's Fire Dragon Zealot there; Alice's own Red
    Drake is there too; Alice's dragon attack phase comes."""
    game = started(adv_setup(["eldarim"], p0_campaign=["Eldarim/Fire Dragon Zealot", "Dwarves/Footman"]))
    st = game.state
    zealot = uid_of(game, "Fire Dragon Zealot", "p1")
    theirs, ours = uid_of(game, "Red Drake", "p2"), uid_of(game, "Red Drake", "p1")
    st.location[theirs] = st.location[ours] = "frontier"  # scenario: summoned there earlier
    el.bind(game, st.units[zealot], st.units[theirs], "control")
    return game, theirs, ours


def test_the_controller_may_hold_a_controlled_dragon_back():
    """L3016-3018: on later turns the controller may have the controlled dragon not roll."""
    game, theirs, ours = _controlled_drake_game()
    d = until(game, "dragon_target", marching="p1")
    assert d.player == "p1" and d.data["dragon"] == theirs and {"usual", "rest", ours} <= set(values(d))
    choose(game, "rest")
    rolled = until(game, "dragon_roll", marching="p1")
    assert rolled.data["dragon"] == ours
    assert any("does not roll" in line for line in game.log)


def test_the_controller_may_send_a_controlled_dragon_at_any_other_dragon():
    """L3016-3018: the controlled dragon attacks another dragon, whatever the targeting table says."""
    game, theirs, ours = _controlled_drake_game()
    until(game, "dragon_target", marching="p1")
    choose(game, ours)
    until(game, "dragon_roll", marching="p1")
    assert f"Bob's Red Drake ({theirs}) at Coastland Tower attacks Alice's Red Drake ({ours})" in game.log
