"""r96 turns: marches, maneuvers, actions by terrain face, skirmish, charge, missile ranges, routs and
pursuit, SAIs in combat.  Each test names its case of ../shared/rules/worked-examples.md."""

from __future__ import annotations

import pytest
from r96_helpers import DUA, choose, go, roll, stage, started, until, where

from companion.rules.core.errors import IllegalChoice
from companion.rules.r96.game.rolls import Rolled

FRONT = "frontier"  # Flatland Temple: faces 1 magic, 2-4 missile, 5-7 melee


def _at_front(game, p1, p2, face=5, extra=True):
    table = {("p1", FRONT): p1, ("p2", FRONT): p2}
    if extra:  # armies elsewhere, so that no side is wiped out by the test
        table[("p1", "home-p1")] = ["Dwarves/Footman"]
        table[("p2", "home-p2")] = ["Goblins/Thug"]
    return stage(game, table, faces={FRONT: face})


def _act(game, action, mode=None):
    choose(game, FRONT)
    choose(game, "stay")
    choose(game, action)
    if mode:
        choose(game, mode)


def test_r96_13_rout_and_pursuit_to_a_missile_action():
    """R96-13: melee on face 5; the defender routs on its save roll; the attacker pursues: face 4 (missile)
    and acts again with a missile action; the routed skirmish defender gets no counter-attack."""
    game = started(options={"routing": True})
    _at_front(game, ["Dwarves/Footman", "Dwarves/Crossbowman"], ["Goblins/Thug", "Goblins/Thug"])
    _act(game, "melee", "skirmish")
    roll(game, "1 Melee", "1 Melee")
    log = roll(game, "ID", "2 Melee")  # 1 ID icon, no save icon: rout
    assert any("routs" in line for line in log)
    assert game.pending.topic == "pursue" and game.pending.player == "p1"
    choose(game, True)
    assert game.state.terrains[FRONT].face == 4
    assert game.pending.topic == "action" and [c["value"] for c in game.pending.choices] == [
        "missile",
        "none",
    ]
    choose(game, "missile")
    # the new action may target any army in range: the frontier reaches every home terrain
    assert {c["value"] for c in game.pending.choices} == {"p2@frontier", "p2@home-p2"}


def test_r96_13_no_rout_without_the_option_and_a_counter_attack_follows():
    """R96 L566-568: routing is an optional rule; without it the target counter-attacks."""
    game = started()
    _at_front(game, ["Dwarves/Footman", "Dwarves/Crossbowman"], ["Goblins/Thug", "Goblins/Thug"])
    _act(game, "melee", "skirmish")
    roll(game, "1 Melee", "1 Melee")
    roll(game, "ID", "2 Melee")
    assert (
        game.pending.topic == "roll" and game.pending.player == "p2" and game.pending.data["roll"] == "melee"
    )


def test_r96_13_no_rout_on_face_1():
    """R96-13: no routs while the terrain shows face 1 (missile on face 2, pursuit to face 1: magic)."""
    game = started(options={"routing": True})
    _at_front(game, ["Dwarves/Crossbowman"], ["Goblins/Thug", "Goblins/Thug"], face=2)
    _act(game, "missile")
    choose(game, "p2@frontier")
    roll(game, "2 Missile")
    roll(game, "ID", "1 Melee")  # routs at face 2
    choose(game, True)
    assert game.state.terrains[FRONT].face == 1
    assert [c["value"] for c in game.pending.choices] == ["magic", "none"]
    thug = game.state.dice_at("p2", FRONT)[0]
    ids_only = Rolled([thug], [["ID"]], "save", "p2", FRONT, {})
    assert game._rout_check(ids_only, FRONT) is False  # face 1: never a rout
    game.state.terrains[FRONT].face = 2
    assert game._rout_check(ids_only, FRONT) is True


def test_faq95_07_charger_with_more_ids_than_saves_routs():
    """FAQ95-07: a charger rolling 3 IDs and 2 saves routs (its saves never reduce damage)."""
    game = started(options={"routing": True})
    _at_front(game, ["Dwarves/Footman"] * 5, ["Goblins/Thug"] * 3)
    _act(game, "melee", "charge")
    roll(game, "ID", "ID", "ID", "1 Save", "1 Save")
    log = roll(game, "1 Save", "1 Save", "1 Save")
    assert any("routs: 3 ID icons against 2 save icons" in line for line in log)
    assert game.pending.topic == "pursue" and game.pending.player == "p2"


@pytest.mark.parametrize(("tie_routs", "routed"), [(False, False), (True, True)])
def test_faq_conflict_1_charger_tie(tie_routs, routed):
    """FAQ-CONFLICT-1: 2 IDs vs 2 saves: no rout by R96 L570-572 (default); a rout with the FAQ reading."""
    game = started(options={"routing": True, "charger_rout_on_tie": tie_routs})
    _at_front(game, ["Dwarves/Footman"] * 4, ["Goblins/Thug"] * 3)
    _act(game, "melee", "charge")
    roll(game, "ID", "ID", "1 Save", "1 Save")
    log = roll(game, "1 Save", "1 Save", "1 Save")
    assert any("routs" in line for line in log) is routed


def test_faq95_07_charger_that_destroys_the_target_never_routs():
    """FAQ95-07: a charger killing the whole target army cannot rout; the terrain stays."""
    game = started(options={"routing": True})
    _at_front(game, ["Dwarves/Footman"] * 4, ["Goblins/Thug"], extra=True)
    _act(game, "melee", "charge")
    roll(game, "ID", "ID", "ID", "1 Save")
    log = roll(game, "1 Melee")
    assert any("cannot rout" in line for line in log)
    assert game.state.terrains[FRONT].face == 5 and game.pending.topic != "pursue"


def test_faq95_07_charger_spell_saves_count_against_the_defenders_melee():
    """FAQ95-07: a charger with Stoneskin x2 takes 5 defender melee as 3 damage."""
    game = started()
    units = _at_front(game, ["Dwarves/Footman"] * 5, ["Goblins/Thug"] * 3)
    game.add_effect("Stoneskin", "p1", "p1@frontier", "start", "p1", castings=2)
    _act(game, "melee", "charge")
    roll(game, "1 Save", "1 Save", "1 Save", "1 Save", "1 Save")
    log = roll(game, "2 Melee", "2 Melee", "1 Melee")
    assert any("3 to the charger" in line for line in log)
    assert sum(where(game, u) == FRONT for u in units[("p1", FRONT)]) == 2


def test_faq96_17_bonus_saves_never_stop_a_charger_routing():
    """FAQ96-17: charger 2 IDs and 1 save with Stoneskin x3: routs; its damage taken is reduced by 3."""
    game = started(options={"routing": True})
    units = _at_front(game, ["Dwarves/Footman"] * 5, ["Goblins/Thug"] * 4)
    game.add_effect("Stoneskin", "p1", "p1@frontier", "start", "p1", castings=3)
    _act(game, "melee", "charge")
    roll(game, "ID", "ID", "1 Save", "1 Melee", "1 Melee")
    log = roll(game, "2 Melee", "2 Melee", "1 Save", "1 Save")
    assert any("1 to the charger" in line for line in log)
    assert any("routs: 2 ID icons against 1 save icons" in line for line in log)
    assert sum(where(game, u) == FRONT for u in units[("p1", FRONT)]) == 4


def test_faq96_18_a_routed_charge_defender_still_hits():
    """FAQ96-18: the defender rolls 3 IDs, 1 save and 4 melee: it routs and its melee still hits."""
    game = started(options={"routing": True})
    units = _at_front(game, ["Dwarves/Footman"] * 6, ["Goblins/Thug"] * 3 + ["Goblins/Cutthroat"] * 2)
    _act(game, "melee", "charge")
    roll(game, *["1 Save"] * 6)
    roll(game, "ID", "ID", "ID", "2 Save", "3 Melee")
    log = choose(game, "save")
    # IDs as saves first (3), 2 saves: no damage through; 3 melee + ... hit the charger
    assert any("routs" in line for line in log) and game.pending.topic == "pursue"
    assert sum(where(game, u) == FRONT for u in units[("p1", FRONT)]) == 3


def test_faq96_05_smite_kills_before_the_save_roll():
    """FAQ96-05: the attacker's Smite kills defenders before the army rolls its saves."""
    game = started()
    _at_front(game, ["Goblins/Marauder"], ["Dwarves/Sergeant", "Dwarves/Sergeant", "Dwarves/Footman"])
    stage_p2 = game.state.dice_at("p2", FRONT)
    _act(game, "melee", "skirmish")
    log = roll(game, "4 Smite")
    assert any("Smite: 4 hits" in line for line in log)
    assert [u.name for u in stage_p2 if where(game, u.uid) == DUA] == ["Dwarves/Sergeant", "Dwarves/Sergeant"]
    # the smite gives no normal hits, so no save roll: the footman counter-attacks
    assert game.pending.player == "p2" and [d["die"] for d in game.pending.dice] == ["Dwarves/Footman"]


@pytest.mark.parametrize(
    ("target", "face", "killed"),
    [
        ("Coral Elves/Enchanter", "2 Save", False),
        ("Coral Elves/Enchanter", "3 Melee", True),
        ("Goblins/Cutthroat", "2 Save", True),
    ],
)
def test_faq96_07_bullseye_per_icon(target, face, killed):
    """FAQ96-07 (and FAQ96-05): a 4-icon Bullseye; the target alone saves; killed when 4 - saves >= health;
    the kill comes before the army's missile saves."""
    game = started()
    owner = "p2"
    units = stage(
        game,
        {
            ("p1", FRONT): ["Dwarves/Crack Shot"],
            (owner, FRONT): [target, "Goblins/Thug"],
            ("p1", "home-p1"): ["Dwarves/Footman"],
        },
        faces={FRONT: 4},
    )
    _act(game, "missile")
    roll(game, "4 Bullseye")
    tuid = units[(owner, FRONT)][0]
    assert game.pending.topic == "bullseye"
    choose(game, tuid)
    roll(game, face)
    assert (where(game, tuid) == DUA) is killed


def test_faq96_09_counter_in_a_skirmish_save_roll():
    """FAQ96-09: a Counter in the save roll against melee gives saves and as many hits on the attacker,
    which cannot save; it never makes the attacker rout."""
    game = started(options={"routing": True})
    units = _at_front(game, ["Dwarves/Footman"] * 5, ["Goblins/Filcher", "Goblins/Thug"])
    _act(game, "melee", "skirmish")
    roll(game, "1 Melee", "1 Melee", "1 Melee", "1 Melee", "1 Melee")
    log = roll(game, "4 Counter", "1 Save")
    assert any("Counter: 4 hits" in line for line in log)
    assert sum(where(game, u) == DUA for u in units[("p1", FRONT)]) == 4
    assert game.state.terrains[FRONT].face == 5  # no rout, no pursuit


def test_faq96_09_counter_of_a_charge_defender_saves_and_hits():
    """FAQ96-09: charge: the defender's Counter 4 gives 4 saves and 4 hits the charger cannot save."""
    game = started()
    units = _at_front(game, ["Dwarves/Footman"] * 6, ["Goblins/Filcher"])
    _act(game, "melee", "charge")
    roll(game, "2 Melee", "2 Melee", "1 Melee", "1 Melee", "1 Save", "1 Save")
    log = roll(game, "4 Counter")
    assert any("2 damage to" in line and "4 counter hits" in line for line in log)
    assert sum(where(game, u) == DUA for u in units[("p1", FRONT)]) == 4


def test_r96_19_attackers_cantrip_kills_before_the_defenders_saves():
    """R96-19 (with Finger of Death: a 1996 Lightning Strike costs 5, more than a 4-cantrip rare has):
    the attacker's cantrip spell kills a defender unit before the defender's save roll."""
    game = started()
    units = _at_front(
        game, ["Lava Elves/Necromancer", "Lava Elves/Bladesman"], ["Goblins/Thug", "Goblins/Mugger"]
    )
    _act(game, "melee", "skirmish")
    roll(game, "4 Cantrip", "2 Melee")
    assert game.pending.kind == "cast" and game.pending.data["pools"] == {"Death/Fire": 4}
    thug = units[("p2", FRONT)][0]
    cast(game, {"spell": "Finger of Death", "units": [thug]})
    assert where(game, thug) == DUA
    assert [d["uid"] for d in game.pending.dice] == [units[("p2", FRONT)][1]]


def test_faq96_06_a_defenders_cantrip_in_a_charge_never_cancels_rolled_hits():
    """FAQ96-06: a charge defender's cantrip spell kills attackers, but their rolled hits still count."""
    game = started()
    units = _at_front(game, ["Dwarves/Footman"] * 3, ["Coral Elves/Enchanter", "Coral Elves/Fighter"])
    _act(game, "melee", "charge")
    roll(game, "2 Melee", "2 Melee", "2 Melee")
    roll(game, "4 Cantrip", "1 Melee")
    assert game.pending.kind == "cast" and game.pending.player == "p2"
    log = cast(game, {"spell": "Hailstorm", "count": 2, "target": "p1@frontier"})
    # two Hailstorms: one save roll for both (FAQ95 AIR 1.E)
    roll(game, "1 Melee", "1 Melee", "1 Melee")
    assert game.pending is not None
    dead_p1 = sum(where(game, u) == DUA for u in units[("p1", FRONT)])
    dead_p2 = sum(where(game, u) == DUA for u in units[("p2", FRONT)])
    assert dead_p2 == 2 and dead_p1 == 3, log  # 6 hits rolled still killed both defenders


def test_faq96_14_zero_zero_maneuver_succeeds():
    """FAQ96-14: acting 0 vs counter 0: the maneuver succeeds."""
    game = started()
    _at_front(game, ["Dwarves/Footman"], ["Goblins/Thug"], face=3)
    choose(game, FRONT)
    choose(game, "maneuver")
    choose(game, True)  # Bo counters
    roll(game, "1 Melee")
    log = roll(game, "1 Melee")
    assert any("succeeds (0 against 0)" in line for line in log)
    choose(game, 1)
    assert game.state.terrains[FRONT].face == 4


def test_faq95_05_counter_maneuvers_are_compared_never_summed():
    """FAQ95-05: acting 5 vs counters 4 and 5 succeeds; acting 4 vs 4 and 5 fails."""
    for acting, ok in ((5, True), (4, False)):
        game = started(players=3)
        stage(
            game,
            {
                ("p1", FRONT): ["Dwarves/Footman"] * 5,
                ("p2", FRONT): ["Goblins/Thug"] * 5,
                ("p3", FRONT): ["Coral Elves/Fighter"] * 5,
            },
            faces={FRONT: 3},
        )
        choose(game, FRONT)
        choose(game, "maneuver")
        choose(game, True)
        choose(game, True)
        roll(game, *(["ID"] * acting + ["1 Melee"] * (5 - acting)))
        roll(game, *(["ID"] * 4 + ["1 Melee"]))
        log = roll(game, *(["ID"] * 5))
        assert any(("succeeds" if ok else "fails") in line for line in log)


def test_faq95_06_one_march_per_army_and_a_single_army_marches_once():
    """FAQ95-06: the army of march 1 cannot act in march 2; a player with one army has one march."""
    game = started()
    stage(
        game,
        {
            ("p1", FRONT): ["Dwarves/Footman"],
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
        faces={FRONT: 3},
    )
    choose(game, FRONT)
    choose(game, "maneuver")
    choose(game, 1)
    choose(game, "none")
    assert game.state.march == 2
    assert [c["value"] for c in game.pending.choices] == ["home-p1", "pass"]
    with pytest.raises(IllegalChoice):
        choose(game, FRONT)
    game = started()
    stage(game, {("p1", FRONT): ["Dwarves/Footman"], ("p2", "home-p2"): ["Goblins/Thug"]}, faces={FRONT: 3})
    choose(game, FRONT)
    choose(game, "stay")
    choose(game, "none")
    assert game.state.phase == "reserves"


def test_r96_36_terrain_face_dictates_the_action():
    """R96-36: a missile face allows only missile; the eighth-face controller may choose any action, its
    enemies there only melee."""
    game = started()
    _at_front(game, ["Dwarves/Crossbowman"], ["Goblins/Thug"], face=3)
    choose(game, FRONT)
    choose(game, "stay")
    assert [c["value"] for c in game.pending.choices] == ["missile", "none"]
    assert game._legal_actions("p1", FRONT) == ["missile"]
    game.state.terrains[FRONT].face, game.state.terrains[FRONT].controller = 8, "p1"
    assert game._legal_actions("p1", FRONT) == ["melee", "missile", "magic"]
    assert game._legal_actions("p2", FRONT) == ["melee"]


def test_faq95_08_missile_range():
    """FAQ95-08: home to another home is out of range; home to frontier and frontier to home in range."""
    game = started()
    stage(
        game,
        {
            ("p1", "home-p1"): ["Dwarves/Crossbowman"],
            ("p1", FRONT): ["Dwarves/Crossbowman"],
            ("p2", "home-p2"): ["Goblins/Pelter"],
            ("p2", FRONT): ["Goblins/Pelter"],
        },
    )
    assert game._missile_targets("p1", "home-p1") == [("p2", FRONT)]
    assert set(game._missile_targets("p1", FRONT)) == {("p2", "home-p2"), ("p2", FRONT)}


def test_faq96_16_tower_reaches_another_home():
    """FAQ96-16: an army holding a Tower at its home may shoot at another home terrain; never reserves."""
    game = started()
    stage(
        game,
        {
            ("p1", "home-p2"): ["Dwarves/Crossbowman"],
            ("p2", "home-p1"): ["Goblins/Pelter"],
            ("p2", "reserve"): ["Goblins/Thug"],
        },
    )
    assert game._missile_targets("p1", "home-p2") == []
    t = game.state.terrains["home-p2"]  # Swampland Temple: no tower
    assert t.kind.icon == "Temple"
    tower = game.state.terrains["home-p1"]
    game.state.location[next(u for u in game.state.units if game.state.location[u] == "home-p1")] = "home-p2"
    stage(
        game,
        {
            ("p1", "home-p1"): ["Dwarves/Crossbowman"],
            ("p2", "home-p2"): ["Goblins/Pelter"],
            ("p2", "reserve"): ["Goblins/Thug"],
        },
    )
    tower.kind = type(tower.kind)(**{**tower.kind.__dict__, "icon": "Tower"})
    assert game._missile_targets("p1", "home-p1") == []
    tower.face, tower.controller = 8, "p1"
    assert game._missile_targets("p1", "home-p1") == [("p2", "home-p2")]


def test_faq95_08_a_target_elsewhere_never_routs():
    """FAQ95-08: a missile target at another terrain cannot rout."""
    game = started(options={"routing": True})
    stage(
        game,
        {("p1", "home-p1"): ["Dwarves/Crossbowman"], ("p2", FRONT): ["Goblins/Thug", "Goblins/Thug"]},
        faces={"home-p1": 4, FRONT: 5},
    )
    choose(game, "home-p1")
    choose(game, "stay")
    choose(game, "missile")
    roll(game, "2 Missile")
    log = roll(game, "ID", "1 Melee")
    assert not any("routs" in line for line in log)


def test_faq95_21_a_penalty_taken_from_ids_avoids_a_rout():
    """FAQ95-21: 4 ID icons + 2 saves under 3 Ash Storms: the penalty goes on 3 IDs: no rout."""
    game = started(options={"routing": True})
    _at_front(game, ["Dwarves/Footman"] * 6, ["Goblins/Thug"] * 6)
    game.add_effect("Ash Storm", "p1", FRONT, "start", "p1", castings=3)
    _act(game, "melee", "skirmish")
    roll(game, *["2 Melee"] * 6)
    log = roll(game, "ID", "ID", "ID", "ID", "1 Save", "1 Save")
    assert any("no rout" in line for line in log) and not any("routs" in line for line in log)


def test_dragon_free_turn_goes_to_reserves_then_the_next_player():
    """R96 L264-274: after the marches, the reserves phase, then the next player's turn."""
    game = started()
    go(game)
    choose(game, "pass")
    choose(game, "pass")
    assert game.state.phase == "reserves"
    until(game, "march", "p2")
    assert game.state.marching == "p2"


from r96_helpers import cast  # noqa: E402


def test_r96_29_a_charged_army_places_its_penalty_between_saves_and_melee():
    """R96-29 (FAQ95-20): triple Ash Storm on a charged army: -3 on saves, on melee, or split; never on
    missile (not counted in a charge); all of it is placed."""
    game = started()
    units = _at_front(game, ["Dwarves/Footman"] * 4, ["Goblins/Thug"] * 5)
    game.add_effect("Ash Storm", "p1", FRONT, "start", "p1", castings=3)
    _act(game, "melee", "charge")
    roll(game, "2 Melee", "2 Melee", "2 Melee", "2 Melee")  # 8 melee - 3 (Ash Storm on the charger too) = 5
    roll(game, "2 Melee", "2 Melee", "1 Save", "1 Save", "1 Save")  # defender: 4 melee, 3 saves
    assert game.pending.topic == "penalty_split" and game.pending.player == "p2"
    values = [c["value"] for c in game.pending.choices]
    assert {"melee": 3} in values and {"save": 3} in values and {"melee": 2, "save": 1} in values
    assert len(values) == 4 and not any("missile" in v for v in values)
    log = choose(game, {"melee": 3})  # keep the saves: 5 - 3 = 2 damage; 1 melee on the charger
    assert any("2 damage to" in line and "1 to the charger" in line for line in log)
    assert sum(where(game, u) == DUA for u in units[("p2", FRONT)]) == 2


def test_faq95_22_a_charge_defenders_ids_count_as_the_owner_wants():
    """FAQ95-22, R96 L117-122: in a charge defence the owner says what the IDs count as (saves or melee)."""
    game = started()
    units = _at_front(game, ["Dwarves/Footman"] * 4, ["Goblins/Thug"] * 2)
    _act(game, "melee", "charge")
    roll(game, "1 Melee", "1 Melee", "1 Save", "1 Save")
    roll(game, "ID", "ID")
    assert [c["value"] for c in game.pending.choices] == ["save", "melee", "each"]
    log = choose(game, "melee")  # 2 melee on the charger, no saves: both thugs die
    assert any("2 damage to" in line and "2 to the charger" in line for line in log)
    assert sum(where(game, u) == DUA for u in units[("p1", FRONT)]) == 2


def test_r96_30_dragon_attack_penalty_split_three_ways():
    """R96-30: Palsy -4 against a dragon attack: placed among saves, melee and missile, all 4 points."""
    from r96_helpers import stage as _stage

    game = started()
    pending, game._pending = game.pending, None
    units = _stage(
        game,
        {
            ("p1", FRONT): ["Dwarves/Patroller"] * 4,
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
    )
    game._pending = pending
    from companion.rules.core.state import Unit, spec_for

    game.state.units["dr"] = Unit("dr", "p2", spec_for("Dragons/Red Drake"))
    game.state.location["dr"] = FRONT
    game.add_effect("Palsy", "p2", "p1@frontier", "start", "p2", castings=4)
    roll(game, "4")
    roll(game, "6 Claw")
    roll(game, "3 Melee", "3 Melee", "2 Save", "2 Save")
    assert game.pending.topic == "penalty_split"
    values = [c["value"] for c in game.pending.choices]
    assert len(values) == 15 and {"melee": 4} in values and {"missile": 2, "save": 2} in values
    choose(game, {"melee": 4})  # 6 - 4 melee cannot slay it anyway: keep the 4 saves
    assert (
        len(game.state.army("p1", FRONT).units) == 4 and units
    )  # 5 claws - 4 saves = 1: no 2-health unit dies


def test_r96_20_faq96_02_mammoth_rider_charges_in_the_flow():
    """R96-20, FAQ96-02 in the flow: Trample 3 in a charge at a highland whose eighth face the army holds:
    3 melee + 3 maneuvers x 2 (dwarves) x 2 (eighth face) = 15 damage."""
    game = started()
    stage(
        game,
        {
            ("p1", "home-p1"): ["Dwarves/Mammoth Rider"],
            ("p1", FRONT): ["Dwarves/Footman"],
            ("p2", "home-p1"): ["Goblins/Marauder"] * 5,
        },
    )
    t = game.state.terrains["home-p1"]
    t.face, t.controller = 8, "p1"
    choose(game, "home-p1")
    choose(game, "stay")
    assert [c["value"] for c in game.pending.choices] == ["melee", "missile", "magic", "none"]
    choose(game, "melee")
    choose(game, "charge")
    roll(game, "3 Trample")
    log = roll(game, *["3 Melee"] * 5)
    assert any("Charge: 15 damage" in line for line in log)


def test_r96_16_eighth_face_and_highland_dwarves_in_a_counter_maneuver():
    """R96-16 in the flow: 3 maneuver icons of a dwarf holding a highland's eighth face count 12."""
    game = started()
    stage(
        game,
        {
            ("p1", "home-p1"): ["Dwarves/Lizard Rider"],
            ("p1", FRONT): ["Dwarves/Footman"],
            ("p2", "home-p1"): ["Goblins/Thug"] * 5,
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
    )
    t = game.state.terrains["home-p1"]
    t.face, t.controller = 8, "p1"
    choose(game, "pass")
    choose(game, "pass")
    game.apply({"type": "retreat", "units": []})
    until(game, "march", "p2")
    choose(game, "home-p1")
    choose(game, "maneuver")
    choose(game, True)  # Ann counter-maneuvers
    roll(game, *["ID"] * 5)  # Bo: 5
    log = roll(game, "3 Maneuver")  # Ann: 3 x 2 x 2 = 12
    assert any("fails (5 against 12)" in line for line in log)


def test_rend_rolls_the_unit_again_in_melee():
    """R96 L765-773 (FAQ96 SAI 5): Rend counts melee and the unit rolls again while Rend comes up."""
    game = started()
    _at_front(game, ["Goblins/Leopard Rider"], ["Dwarves/Footman"] * 12)
    _act(game, "melee", "skirmish")
    roll(game, "3 Rend")
    assert game.pending.topic == "reroll" and len(game.pending.dice) == 1
    roll(game, "3 Rend")
    log = roll(game, "4 Melee")
    assert log[0] == "Ann rolled 10 melee (melee)"  # 3 + 3 + 4


def test_r96_19_a_defenders_cantrip_buys_stoneskin_for_its_own_save_roll():
    """R96-19 (R96 L698-700): the defender's cantrip cannot undo the attack, but its Stoneskins protect the
    very save roll that rolled the cantrip."""
    game = started()
    units = _at_front(game, ["Dwarves/Footman"] * 3, ["Dwarves/Wizard", "Dwarves/Footman", "Dwarves/Footman"])
    _act(game, "melee", "skirmish")
    roll(game, "2 Melee", "2 Melee", "1 Melee")  # 5 melee
    roll(game, "4 Cantrip", "1 Save", "1 Melee")  # 1 save, 4 cantrip points (gold/red)
    assert game.pending.kind == "cast" and game.pending.player == "p2" and game.pending.data["immediate"]
    log = cast(game, {"spell": "Stoneskin", "count": 2, "target": "p2@frontier"})
    assert any("3 saves against 5: 2 damage" in line for line in log)
    assert sum(where(game, u) == DUA for u in units[("p2", FRONT)]) == 2  # two footmen, the wizard lives


def test_faq96_sai_3d_counters_answer_a_cantrip_hailstorm_inside_a_melee():
    """FAQ96 SAI 3.D: the attacker's cantrip casts Hailstorm during its melee attack; the defender's
    Counter in the save roll against it counts as saves and as hits the attacker cannot save."""
    game = started()
    units = _at_front(
        game, ["Coral Elves/Enchanter", "Coral Elves/Fighter"], ["Goblins/Filcher", "Goblins/Thug"]
    )
    _act(game, "melee", "skirmish")
    roll(game, "4 Cantrip", "1 Melee")
    assert game.pending.kind == "cast" and game.pending.player == "p1"
    cast(game, {"spell": "Hailstorm", "count": 2, "target": "p2@frontier"})
    assert game.pending.kind == "roll" and game.pending.player == "p2"
    log = roll(game, "4 Counter", "1 Melee")
    assert any("Counter: 4 hits on" in line and "FAQ96 SAI 3.D" in line for line in log), log
    assert all(where(game, u) != DUA for u in units[("p2", FRONT)]), (
        "4 counter saves stop the 2 Hailstorm hits"
    )
    assert sum(where(game, u) == DUA for u in units[("p1", FRONT)]) >= 1, (
        "the counter hits kill attackers, no save"
    )


def test_faq96_sai_3d_a_counter_answers_a_cantrip_lightning_strike_inside_a_melee():
    """FAQ96 SAI 3.D with Lightning Strike (R96 L1007-1008): the struck defender rolls Counter: it is
    saved, and the attacking army takes the hits with no save."""
    game = started()
    units = _at_front(
        game,
        ["Coral Elves/Enchanter", "Coral Elves/Enchanter", "Coral Elves/Fighter"],
        ["Goblins/Filcher", "Goblins/Thug"],
    )
    _act(game, "melee", "skirmish")
    roll(game, "4 Cantrip", "4 Cantrip", "1 Melee")
    filcher = units[("p2", FRONT)][0]
    cast(game, {"spell": "Lightning Strike", "units": [filcher]})
    assert game.pending.kind == "roll" and [d["uid"] for d in game.pending.dice] == [filcher]
    log = roll(game, "4 Counter")
    assert where(game, filcher) != DUA and any("survives the Lightning Strike" in line for line in log)
    assert any("Counter: 4 hits on" in line and "FAQ96 SAI 3.D" in line for line in log), log
    assert sum(where(game, u) == DUA for u in units[("p1", FRONT)]) >= 1


def test_faq95_fire_3d_each_ids_use_is_chosen_unit_by_unit():
    """R96 L117-122, FAQ95 FIRE 3.D: in a charge defence, one thug's ID is a save and the other's a hit."""
    game = started()
    units = _at_front(game, ["Dwarves/Footman"] * 4, ["Goblins/Thug"] * 2)
    _act(game, "melee", "charge")
    roll(game, "1 Melee", "1 Melee", "1 Save", "1 Save")
    roll(game, "ID", "ID")
    assert [c["value"] for c in game.pending.choices] == ["save", "melee", "each"]
    choose(game, "each")
    assert game.pending.topic == "id_as" and "Thug's ID icon" in game.pending.prompt
    choose(game, "save")
    log = choose(game, "melee")  # 1 save against the 2 melee, 1 hit on the charger
    assert any("1 to the charger" in line for line in log), log
    assert sum(where(game, u) == DUA for u in units[("p1", FRONT)]) == 1
    assert sum(where(game, u) == DUA for u in units[("p2", FRONT)]) == 1
