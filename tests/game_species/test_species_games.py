"""A short scripted game per species (12), through ``Game.apply``: in each, the species' abilities and
its units' SAIs act at least once (V4.01c L771-998 abilities; SAI table L1178-2084).  The armies
meet at the Frontier (set on the table directly); the turns are the real flow."""

from __future__ import annotations

from sai_arena import arena, blank_face, id_face, put, where
from species_script import Script, amazons_with_a_knoll, maneuver_up, march

from companion.rules.core.state import TerrainState
from companion.rules.core.terrains import parse_terrain


def set_terrain(game, tid, name, face=None):
    t = game.state.terrains[tid]
    game.state.terrains[tid] = TerrainState(
        t.id, parse_terrain(name), t.role, t.owner, face=t.face if face is None else face
    )


def test_dwarves_game_mountain_mastery_dwarven_might_smite():
    """Mountain Mastery (L828-830) wins the maneuver, Smite (L1859-1879) strikes, Dwarven Might
    (L832-834) counter-attacks with saves as melee."""
    foes = ["Coral Elves/Trooper"] * 3 + ["Coral Elves/Fighter"]
    game, a, b = arena(["Dwarves/Warlord", "Dwarves/Footman"], foes, terrain="Highland City", face=5)
    trooper = foes[0]
    s = Script(
        game,
        faces={
            a[0]: ["3 Save", "4 Smite", "3 Save", "3 Melee"],
            a[1]: ["2 Melee", "1 Melee", "1 Save", "1 Save"],
            b[2]: [blank_face(trooper, "maneuver"), blank_face(trooper, "save"), id_face(trooper)],
        },
        answers=[
            *maneuver_up("p1", "p2"),
            ("p1:action", "melee"),
            ("p2:allocate", [b[0], b[1]]),
            *march("p2", "melee"),
            ("p1:counter_attack", "counter"),
        ],
    )
    s.play(until_turn=2)
    log = s.log()
    assert "Alice's army at Highland City rolled 2 maneuver" in log  # a Footman's 2 melee (Mountain Mastery)
    assert "Smite: 4 damage" in log
    assert "Alice's army at Highland City rolled 4 melee" in log  # counter-attack: 1 save as melee + 3 melee


def test_goblins_game_swamp_mastery_rend_foul_stench():
    """Swamp Mastery (L903-905) wins the maneuver, Rend (L1751-1760) rolls again, Foul Stench
    (L907-914) keeps a unit out of the counter-attack."""
    game, a, b = arena(
        ["Goblins/Leopard Rider", "Goblins/Thug"],
        ["Dwarves/Footman"] * 6,
        terrain="Swampland Temple",
        face=4,
        p1_dua=["Goblins/Mugger"],
    )
    faces = {a[0]: ["3 Missile", "3 Rend", "4 Melee"], a[1]: ["2 Melee", "1 Melee"]}
    faces |= {u: ["1 Save", "1 Save"] for u in b}
    s = Script(
        game,
        faces,
        [
            *maneuver_up("p1", "p2"),
            ("p1:action", "melee"),
            ("p2:counter_attack", "counter"),
        ],
    )
    s.play(until_turn=1)
    log = s.log()
    assert "Alice's army at Swampland Temple rolled 2 maneuver" in log
    assert any(d.topic == "reroll" for d in s.decisions) and "rolled 8 melee" in log
    assert "Foul Stench" in log
    counter = [d for d in s.rolls("p2", "melee")]
    assert len(counter[0].dice) == 3  # 4 Footmen left, one barred


def test_coral_elves_game_bullseye_coastal_dodge_defensive_volley():
    """Bullseye (L1280-1295), Coastal Dodge (L817-819), Defensive Volley (L821-824)."""
    game, a, b = arena(
        ["Coral Elves/Sharpshooter", "Coral Elves/Horseman"],
        ["Dwarves/Crossbowman"] * 6,
        terrain="Coastland Tower",
        face=3,
    )
    faces = {
        a[0]: ["4 Bullseye", "2 Melee", "2 Melee", "4 Missile"],
        a[1]: ["1 Melee", "2 Maneuver"],
        b[4]: ["2 Missile", "1 Melee"],
        b[5]: ["2 Missile", "1 Melee"],
    }
    s = Script(
        game,
        faces,
        [
            *march("p1", "missile", "p2@frontier"),
            *march("p2", "missile", "p1@frontier"),
            ("p1:counter_attack", "counter"),
        ],
    )
    s.play(until_turn=2)
    log = s.log()
    assert "Bullseye targets" in log and any(d.topic == "reroll" for d in s.decisions)
    assert "Alice's army at Coastland Tower rolled 2 save" in log  # the Horseman's maneuver (Coastal Dodge)
    assert where(game, b) == ["dua"] * 6  # the Sharpshooter's volley finished the Crossbowmen


def test_lava_elves_game_bullseye_cursed_bullets_volcanic_adaptation():
    """Bullseye (L1280-1295), Cursed Bullets (L922-929), Volcanic Adaptation (L918-920)."""
    game, a, b = arena(
        ["Lava Elves/Assassin", "Lava Elves/Fusilier", "Lava Elves/Fusilier", "Lava Elves/Scout"],
        ["Dwarves/Crossbowman"] * 8,
        terrain="Feyland City",
        face=4,
        p1_dua=["Lava Elves/Bladesman", "Lava Elves/Bladesman"],
    )
    faces = {
        a[0]: ["4 Bullseye", "3 Melee"],
        a[1]: ["2 Missile"],
        a[2]: ["2 Missile"],
        a[3]: ["2 Melee", "1 Maneuver"],
    }
    faces |= {u: ["1 Save", "1 Save", "1 Missile"] for u in b[:4]} | {
        u: ["1 Save", "1 Missile"] for u in b[4:]
    }
    s = Script(
        game,
        faces,
        [
            *march("p1", "missile", "p2@frontier"),
            *march("p2", "missile", "p1@frontier"),
        ],
    )
    s.play(until_turn=2)
    log = s.log()
    assert "Bullseye targets" in log and "Cursed Bullets: 2 of the 4 missile" in log
    assert where(game, b).count("dua") == 2  # 4 missile against 8 saves: the 2 cursed still hit
    assert "Alice's army at Feyland City rolled 1 save" in log  # the Scout's maneuver (Volcanic Adaptation)


def test_scalders_game_flaming_arrow_scorching_touch_intangibility():
    """Flaming Arrow (L1547-1561), Scorching Touch (L933-938), Intangibility (L940-942)."""
    game, a, b = arena(
        ["Scalders/Blazer", "Scalders/Singeman", "Scalders/Kindler"],
        ["Dwarves/Footman"] * 4,
        terrain="Feyland City",
        face=4,
    )
    bow = put(game, "p2", "home-p2", ["Dwarves/Crossbowman"])[0]
    faces = {
        a[0]: ["4 Flaming Arrow"],
        a[1]: ["1 Melee", "1 Save"],
        a[2]: ["1 Melee", "1 Melee", "1 Maneuver"],
        b[0]: ["1 Save", "1 Melee"],
        b[1]: ["1 Save", "1 Melee"],
        b[2]: ["1 Save"],
        b[3]: ["1 Save"],
        bow: ["2 Missile"],
    }
    s = Script(
        game,
        faces,
        [
            *march("p1", "missile", "p2@frontier"),
            *maneuver_up("p2"),
            ("p2:action", "melee"),
            ("p1:allocate", [a[1]]),
            ("p2:march", "p2@home-p2"),
            ("p2:maneuver", "skip"),
            ("p2:action", "missile"),
            ("p2:target", "p1@frontier"),
        ],
    )
    s.play(until_turn=2)
    log = s.log()
    assert "Flaming Arrow targets" in log
    assert "Scorching Touch: 1 damage" in log and where(game, b).count("dua") == 1
    assert (
        "2 missile - 4 saves = 0 damage" in log
    )  # Kindler's and Blazer's maneuver count as saves vs missile


def test_swamp_stalkers_game_poison_born_of_the_swamp_mutate():
    """Poison (L1736-1745), Born of the Swamp (L945-947), Mutate (L949-966)."""
    game, a, b = arena(
        ["Swamp Stalkers/Invader", "Swamp Stalkers/Bog Runner"],
        ["Dwarves/Footman"] * 5,
        terrain="Swampland Temple",
        face=5,
        p1_dua=["Swamp Stalkers/Striker"],
    )
    striker = game.state.area("p1", "dua")[0].uid
    faces = {a[0]: ["4 Poison", "3 Missile"], a[1]: ["1 Melee", "2 Maneuver"], b[4]: ["1 Save", "2 Melee"]}
    s = Script(
        game,
        faces,
        [
            *march("p1", "melee"),
            ("p2:counter_attack", "counter"),
            ("p1:Mutate?", "p2"),
            ("p1:Mutate: recruit", f"frontier|recruit:{striker}"),
        ],
    )
    s.play(until_turn=3)
    log = s.log()
    assert "Poison targets" in log and where(game, b[:4]) == ["bua"] * 4
    assert "2 melee - 2 saves = 0 damage" in log  # the Bog Runner's maneuver saves (Born of the Swamp)
    assert "Mutate:" in log and where(game, [striker]) == ["frontier"]


def test_treefolk_game_rapid_growth_replanting_wild_growth():
    """Rapid Growth (L968-973), Replanting (L975-978), Wild Growth (L2072-2080)."""
    game, a, b = arena(
        ["Dwarves/Pony Rider", "Dwarves/Warlord"],
        ["Treefolk/Noble Willow", "Treefolk/Noble Willow", "Treefolk/Willowing", "Treefolk/Oakling"],
        terrain="Swampland Temple",
        face=4,
        p2_dua=["Treefolk/Willow"],
    )
    faces = {
        a[0]: ["2 Maneuver"],
        a[1]: ["3 Save", "4 Smite"],
        b[0]: ["2 Melee", "3 ID"],
        b[1]: ["2 Melee", "4 Wild Growth"],
        b[2]: ["1 Save", "1 Maneuver", "2 Melee"],
        b[3]: ["1 Melee"],
    }
    s = Script(
        game,
        faces,
        [
            ("p1:march", "p1@frontier"),
            ("p1:maneuver", "maneuver"),
            ("p2:counter_maneuver", "counter"),
            ("p2:Rapid Growth", [b[2]]),
            ("p1:direction", "up"),
            ("p1:action", "melee"),
            ("p2:allocate", [b[0], b[3]]),
            ("p2:counter_attack", "counter"),
            ("p2:Wild Growth", "p0"),
        ],
    )
    s.play(until_turn=1)
    log = s.log()
    assert "Rapid Growth: 1 Treefolk rolled again" in log
    assert "Replanting" in log and where(game, [b[0]]) == ["reserve"]
    assert "Wild Growth: Promoted" in log


def test_undead_game_bone_magic_vanish_stepped_damage():
    """Bone Magic (L986-991), Vanish (L2019-2023), Stepped Damage (L982-984)."""
    game, a, b = arena(
        ["Undead/Vampire", "Undead/Mummy", "Undead/Ghost", "Undead/Zombie"],
        ["Dwarves/Crossbowman"] * 6,
        terrain="Highland City",
        face=3,
        p1_dua=["Undead/Wight"],
    )
    wight = game.state.area("p1", "dua")[0].uid
    faces = {a[0]: ["3 Magic"], a[2]: ["4 Maneuver", "3 Vanish"]} | {u: ["2 Missile"] for u in b[:3]}
    s = Script(
        game,
        faces,
        [
            *march("p1", "magic"),
            *maneuver_up("p2"),
            ("p2:action", "missile"),
            ("p2:target", "p1@frontier"),
            ("p1:sai_move", "reserve"),
            ("p1:allocate", [a[1]]),
            ("p1:Stepped Damage", wight),
        ],
    )
    s.play(until_turn=2)
    log = s.log()
    assert "Alice's army at Highland City rolled 4 magic" in log  # 3 + 1 Bone Magic
    assert where(game, [a[2], a[1], wight]) == ["reserve", "dua", "frontier"]


def test_feral_game_double_strike_stampede_feralization():
    """Double Strike (L1449-1466), Stampede (L863-865), Feralization (L858-861)."""
    game, a, b = arena(
        ["Feral/Tiger-folk", "Feral/Lynx-folk"],
        ["Dwarves/Footman"] * 8,
        terrain="Flatland City",
        face=5,
        p1_dua=["Feral/Antelope-folk"],
    )
    antelope = game.state.area("p1", "dua")[0].uid
    faces = {
        a[0]: ["4 Double Strike", "2 Melee", "4 Save", "2 Save"],
        a[1]: ["1 Melee", "1 Melee", "1 Maneuver"],
        b[7]: ["1 Melee", "2 Melee"],
    }
    s = Script(
        game,
        faces,
        [
            *march("p1", "melee"),
            *march("p2", "melee"),
            ("p1:counter_attack", "counter"),
            ("p1:Feralization", f"recruit:{antelope}"),
        ],
    )
    s.play(until_turn=3)
    log = s.log()
    assert "Double Strike targets" in log
    assert "Alice's army at Flatland City rolled 1 melee" in log  # the Lynx's maneuver (Stampede)
    assert where(game, [antelope]) == ["frontier"]


def test_firewalkers_game_smite_flaming_shields_air_flight():
    """Smite (L1859-1879), Flaming Shields (L874-877), Air Flight (L869-872)."""
    game, a, b = arena(
        ["Firewalkers/Sentinel", "Firewalkers/Guardian"],
        ["Dwarves/Footman"] * 6,
        terrain="Wasteland Tower",
        face=4,
    )
    set_terrain(game, "home-p1", "Flatland City")
    put(game, "p1", "home-p1", ["Firewalkers/Explorer"])
    s = Script(
        game,
        {a[0]: ["4 Smite"], a[1]: ["1 Save"]},
        [
            *march("p1", "melee"),
            ("p1:Air Flight", f"{a[1]}>home-p1"),
        ],
    )
    s.play(until_turn=1)
    log = s.log()
    assert "Smite: 4 damage" in log
    assert "Alice's army at Wasteland Tower rolled 1 melee" in log  # the Guardian's save (Flaming Shields)
    assert where(game, [a[1]]) == ["home-p1"]


def test_frostwings_game_magic_negation_winters_fortitude_fly_volley():
    """Magic Negation (L886-893), Winter's Fortitude (L881-884), Fly (L1576-1588), Volley (L2024-2038)."""
    game, a, b = arena(
        ["Dwarves/Wizard", "Dwarves/Wizard"],
        ["Frostwings/Hound Master", "Frostwings/Assailer", "Frostwings/Advocate"],
        terrain="Coastland Tower",
        face=1,
        p2_dua=["Frostwings/Destroyer"],
        p2_bua=["Frostwings/Attacker"],
    )
    buried = game.state.area("p2", "bua")[-1].uid
    faces = {
        a[0]: ["4 Magic"],
        a[1]: ["3 Magic"],
        b[0]: ["1 ID"],
        b[1]: ["3 Melee", "3 Melee", "4 Volley"],
        b[2]: ["2 Melee", "1 Fly"],
    }
    s = Script(
        game,
        faces,
        [
            *march("p1", "magic"),
            ("p2:Magic Negation", "negate"),
            ("p2:Winter's Fortitude", buried),
            *maneuver_up("p2", "p1"),
            ("p2:action", "missile"),
            ("p2:target", "p1@frontier"),
        ],
    )
    s.play(until_turn=2)
    log = s.log()
    assert (
        "Magic Negation: 1 magic subtracted" in log
        and "Alice's army at Coastland Tower rolled 6 magic" in log
    )
    assert where(game, [buried]) == ["dua"]
    assert "Bob's army at Coastland Tower rolled 1 maneuver" in log and "rolled 4 missile" in log


def test_amazons_game_javelin_charge_bullseye_terrain_harmony():
    """Javelin Charge after burying a minor terrain (L784-790), Bullseye (L1280-1295), Terrain Harmony in
    the Reserve Area: Ivory magic (L798-802)."""
    game, a, b = amazons_with_a_knoll("Amazons/Spearer", face=4)
    runner = put(game, "p1", "reserve", ["Amazons/Runner"])[0]
    s = Script(
        game,
        {a[0]: ["4 Bullseye", "2 Melee"], a[1]: ["2 Maneuver"], a[2]: ["2 Maneuver"], runner: ["1 ID"]},
        [
            ("p1:march", "p1@frontier"),
            (lambda d: d.player == "p1" and any(c["value"] == "bury" for c in d.choices), "bury"),
            ("p1:action", "missile"),
            ("p1:target", "p2@frontier"),
            ("p1:march", "p1@reserve"),
            ("p1:action", "magic"),
        ],
    )
    s.play(until_turn=1)
    log = s.log()
    assert "Bullseye targets" in log and "Alice's army at Flatland City rolled 4 missile" in log
    cast = next(d for d in s.decisions if d.kind == "cast")
    assert "Ivory" in cast.data["accounting"][runner]["may_count_as"]
