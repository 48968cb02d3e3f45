"""The 27 species abilities of V4.01c (L771-998) in the game flow: one test (or more) each, citing the
ability's lines.  Roll-changing abilities are checked through the flow's own rolls (so the flow must
hand die roll resolution the right situation); the others through the phase, death and move hooks."""

from __future__ import annotations

from sai_arena import arena, attack, drive, roll, where

from companion.rules.core.state import PHASE_SPECIES, TerrainState
from companion.rules.core.terrains import parse_terrain
from companion.rules.game import sai_status, species_play

GOB = ["Goblins/Thug", "Goblins/Mugger", "Goblins/Cutthroat"]


def set_terrain(game, tid, name):
    t = game.state.terrains[tid]
    game.state.terrains[tid] = TerrainState(t.id, parse_terrain(name), t.role, t.owner, face=t.face)


# --------------------------------------------------------------------------- Amazons


def test_javelin_charge_maneuver_counts_as_missile_after_burying_a_minor_terrain_l784_790():
    game, a, b = arena(["Amazons/Runner", "Amazons/Runner"], GOB)
    game.notes["minor_buried"] = {("p1", "frontier", game.state.turn)}
    d = attack(game, "missile", faces={a[0]: ["2 Maneuver"], a[1]: ["1 Missile"]})
    assert d.decisions[0].data["roll"] == "missile" and "3 missile" in " ".join(game.log)


def test_kukri_charge_maneuver_counts_as_melee_after_burying_a_minor_terrain_l791_797():
    game, a, b = arena(["Amazons/Runner", "Amazons/Runner"], GOB)
    attack(game, "melee", faces={a[0]: ["2 Maneuver"], a[1]: ["1 Melee"]})
    assert "rolled 1 melee" in " ".join(game.log)  # no burial: no charge
    game, a, b = arena(["Amazons/Runner", "Amazons/Runner"], GOB)
    game.notes["minor_buried"] = {("p1", "frontier", game.state.turn)}
    attack(game, "melee", faces={a[0]: ["2 Maneuver"], a[1]: ["1 Melee"]})
    assert "rolled 3 melee" in " ".join(game.log)


def test_terrain_harmony_magic_takes_the_terrains_elements_l798_802():
    game, a, b = arena(["Amazons/Runner"], GOB, terrain="Coastland Tower")
    d = roll(game, "p1", "magic", faces={a[0]: ["1 ID"]})
    assert set(d.result.magic_kinds[a[0]]) == {"Air", "Water"}


# --------------------------------------------------------------------------- Coral Elves


def test_coastal_dodge_maneuver_counts_as_saves_at_water_l817_819():
    game, a, b = arena(GOB, ["Coral Elves/Horseman"], terrain="Coastland Tower")
    d = roll(game, "p2", "save", faces={b[0]: ["2 Maneuver"]}, against="melee")
    assert d.result.total == 2
    set_terrain(game, "frontier", "Highland City")
    assert roll(game, "p2", "save", faces={b[0]: ["2 Maneuver"]}, against="melee").result.total == 0


def test_defensive_volley_counter_attack_with_missile_at_an_air_terrain_l821_824():
    game, a, b = arena(["Dwarves/Crossbowman"], ["Coral Elves/Bowman", "Coral Elves/Bowman"])
    game.state.terrains["frontier"].face = 3
    d = drive(
        game,
        game._missile("p1", "frontier"),
        faces={a[0]: ["1 Missile"], b[0]: ["1 Melee", "2 Missile"], b[1]: ["1 Melee", "1 Missile"]},
        answers=[("target", "p2@frontier"), ("counter_attack", "counter")],
    )
    assert "counter_attack" in d.topics()
    assert where(game, a) == ["dua"]


# --------------------------------------------------------------------------- Dwarves


def test_mountain_mastery_melee_counts_as_maneuver_at_earth_l828_830():
    game, a, b = arena(["Dwarves/Footman"], GOB, terrain="Highland City")
    assert roll(game, "p1", "maneuver", faces={a[0]: ["2 Melee"]}).result.total == 2


def test_dwarven_might_saves_count_as_melee_in_a_counter_attack_at_fire_l832_834():
    game, a, b = arena(["Dwarves/Footman"], GOB, terrain="Highland City")
    assert roll(game, "p1", "melee", faces={a[0]: ["1 Save"]}, counter_attack=True).result.total == 1
    assert roll(game, "p1", "melee", faces={a[0]: ["1 Save"]}).result.total == 0


# --------------------------------------------------------------------------- Eldarim


def test_resist_fear_dragonkin_up_to_eldarim_health_l838_840():
    from companion.rules.v4.species import resist_fear

    assert resist_fear(3, [1, 2, 2]) == 2  # the flow's dragon attack asks this of an army with Eldarim


def test_dragonkin_handlers_adds_a_small_matching_dragonkin_l842_850():
    game, a, b = arena(
        ["Eldarim/Morehl Follower (Air)", "Eldarim/Morehl Follower (Air)"],
        GOB,
        p1_pool=["Dragonkin/Dragonfoal (Air)"],
    )
    foal = game.state.area("p1", "pool")[-1].uid
    game.notes["advanced_components"] = frozenset({"eldarim", "dragonkin"})
    phase = game.extensions.phases[
        PHASE_SPECIES
    ]  # the whole phase: this module's abilities and the Eldarim's
    drive(game, phase(game, "p1"), answers=[("Dragonkin Handlers", f"join:{foal}:frontier")])
    assert where(game, [foal]) == ["frontier"]


# --------------------------------------------------------------------------- Feral


def test_feralization_recruits_a_small_feral_at_an_earth_or_air_terrain_l858_861():
    game, a, b = arena(["Feral/Lynx-folk"], GOB, terrain="Flatland City", p1_dua=["Feral/Antelope-folk"])
    dead = game.state.area("p1", "dua")[0].uid
    drive(game, species_play.species_phase(game, "p1"), answers=[("Feralization", f"recruit:{dead}")])
    assert where(game, [dead]) == ["frontier"]


def test_stampede_maneuver_counts_as_melee_in_a_counter_attack_at_earth_and_air_l863_865():
    game, a, b = arena(["Feral/Lynx-folk"], GOB, terrain="Flatland City")
    assert roll(game, "p1", "melee", faces={a[0]: ["1 Maneuver"]}, counter_attack=True).result.total == 1
    set_terrain(game, "frontier", "Coastland Tower")
    assert roll(game, "p1", "melee", faces={a[0]: ["1 Maneuver"]}, counter_attack=True).result.total == 0


# --------------------------------------------------------------------------- Firewalkers


def test_air_flight_moves_firewalkers_between_air_terrains_l869_872():
    game, a, b = arena(["Firewalkers/Guardian"], GOB, terrain="Coastland Tower")
    set_terrain(game, "home-p1", "Wasteland Tower")
    from sai_arena import put

    put(game, "p1", "home-p1", ["Firewalkers/Explorer"])
    drive(game, species_play.air_flight(game, "p1"), answers=[("Air Flight", f"{a[0]}>home-p1")])
    assert where(game, a) == ["home-p1"]


def test_flaming_shields_saves_count_as_melee_at_fire_not_in_counter_attacks_l874_877():
    game, a, b = arena(["Firewalkers/Guardian"], GOB, terrain="Wasteland Tower")
    assert roll(game, "p1", "melee", faces={a[0]: ["1 Save"]}).result.total == 1
    assert roll(game, "p1", "melee", faces={a[0]: ["1 Save"]}, counter_attack=True).result.total == 0


# --------------------------------------------------------------------------- Frostwings


def test_winters_fortitude_moves_a_frostwing_from_bua_to_dua_l881_884():
    game, a, b = arena(
        ["Frostwings/Hound Master"], GOB, terrain="Coastland Tower", p1_bua=["Frostwings/Advocate"]
    )
    buried = game.state.area("p1", "bua")[-1].uid
    drive(game, species_play.species_phase(game, "p1"), answers=[("Winter's Fortitude", buried)])
    assert where(game, [buried]) == ["dua"]


def test_magic_negation_subtracts_frostwing_magic_capped_by_their_dua_l886_893():
    game, a, b = arena(
        ["Dwarves/Wizard"],
        ["Frostwings/Hound Master", "Lava Elves/Lurker in the Deep"],
        p2_dua=["Frostwings/Advocate", "Frostwings/Destroyer"],
    )
    d = roll(
        game, "p1", "magic", faces={a[0]: ["4 Magic"], b[0]: ["1 ID"]}, answers=[("Magic Negation", "negate")]
    )
    assert d.result.total == 3  # 1 magic negated (the Hound Master's ID); the Lurker is not a Frostwing


def test_v4_10_magic_negation_cap_is_five_per_24_points_l776_780():
    """V4-10: "max 5s": <=24 points -> 5; 25-48 -> 10."""
    game, a, b = arena(["Dwarves/Wizard"], ["Frostwings/Hound Master"], p2_dua=["Frostwings/Advocate"] * 7)
    assert species_play.cap(game, "p2", "Frostwings", 5) == 5
    game.state.force_size = 30
    assert species_play.cap(game, "p2", "Frostwings", 5) == 7
    game.state.force_size = 60
    assert species_play.cap(game, "p2", "Frostwings", 1) == 3


def test_v4_11_a_deadlands_counts_as_s_units_in_the_dua_l2638_2643():
    """V4-11: one Deadlands in play counts as 1 unit in the DUA at 24 points, 2 at 25-48 points."""
    game, a, b = arena(["Dwarves/Wizard"], ["Frostwings/Hound Master"])
    from sai_arena import put

    put(game, "p2", "frontier", ["Terrains/Deadland Knoll"])
    game.notes["advanced_components"] = frozenset({"minor_terrains"})
    game.state.force_size = 24
    assert species_play.cap(game, "p2", "Frostwings", 5) == 1
    game.state.force_size = 36
    assert species_play.cap(game, "p2", "Frostwings", 5) == 2


# --------------------------------------------------------------------------- Goblins


def test_swamp_mastery_melee_counts_as_maneuver_at_earth_l903_905():
    game, a, b = arena(["Goblins/Thug"], GOB, terrain="Swampland Temple")
    assert roll(game, "p1", "maneuver", faces={a[0]: ["2 Melee"]}).result.total == 2


def test_foul_stench_defender_picks_units_that_cannot_counter_attack_l907_914():
    game, a, b = arena(
        ["Goblins/Thug"],
        ["Dwarves/Footman", "Dwarves/Footman", "Dwarves/Footman"],
        p1_dua=["Goblins/Mugger", "Goblins/Mugger"],
    )
    d = drive(
        game,
        game._melee("p1", "frontier"),
        faces={a[0]: ["1 Melee"]} | {u: ["1 Save"] for u in b},
        answers=[("Foul Stench", [b[0], b[1]]), ("counter_attack", "counter")],
    )
    counter_roll = [
        x for x in d.decisions if x.kind == "roll" and x.player == "p2" and x.data.get("roll") == "melee"
    ]
    assert [x["uid"] for x in counter_roll[0].dice] == [b[2]]


# --------------------------------------------------------------------------- Lava Elves


def test_volcanic_adaptation_maneuver_counts_as_saves_at_fire_l918_920():
    game, a, b = arena(GOB, ["Lava Elves/Scout"], terrain="Feyland City")
    assert roll(game, "p2", "save", faces={b[0]: ["1 Maneuver"]}, against="missile").result.total == 1


def test_cursed_bullets_some_missile_damage_only_spell_saves_reduce_l922_929():
    game, a, b = arena(
        ["Lava Elves/Fusilier", "Lava Elves/Fusilier"],
        ["Dwarves/Footman"] * 3,
        p1_dua=["Lava Elves/Scout", "Lava Elves/Scout"],
    )
    attack(
        game,
        "missile",
        faces={
            a[0]: ["2 Missile"],
            a[1]: ["1 Missile"],
            b[0]: ["1 Save"],
            b[1]: ["1 Save"],
            b[2]: ["1 Save"],
        },
    )
    assert where(game, b).count("dua") == 2  # 3 missile, 3 saves: still 2 damage (2 cursed)


def test_cursed_bullets_needs_the_same_terrain_l922_924():
    game, a, b = arena(["Lava Elves/Fusilier"], ["Dwarves/Footman"] * 2, p1_dua=["Lava Elves/Scout"])
    st = game.state
    for u in b:
        st.location[u] = "home-p1"
    drive(
        game,
        game.attack(st.army("p1", "frontier"), st.army("p2", "home-p1"), "missile", False),
        faces={a[0]: ["2 Missile"], b[0]: ["1 Save"], b[1]: ["1 Save"]},
    )
    assert where(game, b) == ["home-p1", "home-p1"]


# --------------------------------------------------------------------------- Scalders


def _footmen_against_singemen():
    """Two of Alice's Footmen against two of Bob's Singemen at the Frontier, Feyland City."""
    return arena(
        ["Dwarves/Footman", "Dwarves/Footman"],
        ["Scalders/Singeman", "Scalders/Singeman"],
        terrain="Feyland City",
    )


def test_scorching_touch_not_against_a_counter_attack_l937_938():
    game, a, b = _footmen_against_singemen()
    attack(
        game, faces={a[0]: ["2 Melee"], a[1]: ["2 Melee"], b[0]: ["1 Save"], b[1]: ["1 Save"]}, counter=True
    )
    assert where(game, a) == ["frontier", "frontier"]


def test_scorching_touch_each_save_deals_one_damage_back_at_fire_l933_938():
    game, a, b = _footmen_against_singemen()
    attack(game, faces={a[0]: ["2 Melee"], a[1]: ["2 Melee"], b[0]: ["1 Save"], b[1]: ["1 Save"]})
    assert where(game, a) == ["dua", "dua"]


def test_intangibility_maneuver_counts_as_saves_against_missiles_at_water_l940_942():
    game, a, b = arena(GOB, ["Scalders/Kindler"], terrain="Feyland City")
    assert roll(game, "p2", "save", faces={b[0]: ["1 Maneuver"]}, against="missile").result.total == 1
    assert roll(game, "p2", "save", faces={b[0]: ["1 Maneuver"]}, against="melee").result.total == 0


# --------------------------------------------------------------------------- Swamp Stalkers


def test_born_of_the_swamp_maneuver_counts_as_saves_at_water_l945_947():
    game, a, b = arena(GOB, ["Swamp Stalkers/Bog Runner"], terrain="Swampland Temple")
    assert roll(game, "p2", "save", faces={b[0]: ["2 Maneuver"]}, against="melee").result.total == 2


def test_mutate_reserve_units_save_or_die_then_recruit_l949_966():
    game, a, b = arena(
        ["Swamp Stalkers/Warmonger"], GOB, p1_dua=["Swamp Stalkers/Striker"], p2_reserve=["Dwarves/Footman"]
    )
    st = game.state
    striker = st.area("p1", "dua")[0].uid
    victim = [u.uid for u in st.area("p2", "reserve") if u.name == "Dwarves/Footman"][0]
    drive(
        game,
        species_play.species_phase(game, "p1"),
        faces={victim: ["1 Melee"]},
        answers=[
            ("Mutate?", "p2"),
            ("species_ability", [victim]),
            ("Mutate: recruit", f"frontier|recruit:{striker}"),
        ],
    )
    assert where(game, [victim, striker]) == ["dua", "frontier"]


# --------------------------------------------------------------------------- Treefolk


def test_rapid_growth_treefolk_reroll_a_counter_maneuver_at_earth_l968_973():
    game, a, b = arena(GOB, ["Treefolk/Willowing", "Treefolk/Oakling"], terrain="Swampland Temple")
    d = roll(
        game,
        "p2",
        "maneuver",
        faces={b[0]: ["1 Save", "1 Maneuver"], b[1]: ["1 Melee"]},
        answers=[("Rapid Growth", [b[0]])],
        counter_maneuver=True,
    )
    assert d.result.total == 1 and "sai_roll" in d.topics()


def test_replanting_killed_treefolk_rolling_id_go_to_reserves_at_water_l975_978():
    game, a, b = arena(
        ["Dwarves/Warlord"], ["Treefolk/Oakling", "Treefolk/Willowing"], terrain="Coastland Tower"
    )
    attack(game, faces={a[0]: ["4 Smite"], b[0]: ["1 ID"], b[1]: ["2 Melee"]})
    assert where(game, b) == ["reserve", "dua"]


# --------------------------------------------------------------------------- Undead


def test_stepped_damage_killed_undead_exchanged_with_a_smaller_one_l982_984():
    game, a, b = arena(["Dwarves/Warlord"], ["Undead/Mummy"], p2_dua=["Undead/Zombie"])
    zombie = game.state.area("p2", "dua")[0].uid
    attack(game, faces={a[0]: ["4 Smite"]}, answers=[("Stepped Damage", zombie)])
    assert where(game, [b[0], zombie]) == ["dua", "frontier"]


def test_bone_magic_one_more_magic_per_undead_with_magic_capped_by_dua_l986_991():
    game, a, b = arena(["Undead/Vampire", "Undead/Vampire"], GOB, p1_dua=["Undead/Zombie"])
    d = roll(game, "p1", "magic", faces={a[0]: ["3 Magic"], a[1]: ["3 Magic"]})
    assert d.result.total == 7  # 6 + 1 (cap: one Undead in the DUA)


def test_netted_units_do_not_fly_l869_872_l1714_1728():
    game, a, b = arena(["Firewalkers/Guardian"], GOB, terrain="Coastland Tower")
    set_terrain(game, "home-p1", "Wasteland Tower")
    from sai_arena import put

    put(game, "p1", "home-p1", ["Firewalkers/Explorer"])
    sai_status.set_status(game, a[0], "netted", "p2")
    d = drive(game, species_play.air_flight(game, "p1"))
    assert not any(c["value"].startswith(a[0]) for x in d.decisions for c in x.choices)
    assert where(game, a) == ["frontier"]
