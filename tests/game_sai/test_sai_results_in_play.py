"""SAIs that only generate results (or double, re-roll) counted in the flow's own army rolls: the
flow hands the faces to die roll resolution with the right situation (V4.01c SAI table; lines cited)."""

from __future__ import annotations

import pytest
from sai_arena import arena, attack, roll, where

D = ["Goblins/Thug", "Goblins/Mugger", "Goblins/Cutthroat"]

CASES = [
    # (SAI, lines, dice, faces by index, roll, ctx, expected total)
    ("Cantrip", "1296-1301", ["Dwarves/Wizard"], ["4 Cantrip"], "magic", {}, 4),
    ("Cantrip", "1302-1306", ["Dwarves/Wizard"], ["4 Cantrip"], "melee", {}, 0),
    ("Create Fireminions", "1399-1407", ["Firewalkers/Fireshadow"], ["4 Create Fireminions"], "melee", {}, 4),
    (
        "Create Fireminions",
        "1399-1407",
        ["Firewalkers/Fireshadow"],
        ["4 Create Fireminions"],
        "save",
        {"against": "melee"},
        4,
    ),
    (
        "Elevate",
        "1485-1490",
        ["Dwarves/Footman", "Items/Air Flying Carpet"],
        ["1 Save", "4 Elevate"],
        "maneuver",
        {},
        4,
    ),
    (
        "Elevate",
        "1491-1493",
        ["Dwarves/Crossbowman", "Items/Air Flying Carpet"],
        ["2 Missile", "4 Elevate"],
        "missile",
        {},
        4,
    ),
    (
        "Elevate",
        "1494-1495",
        ["Dwarves/Footman", "Items/Air Flying Carpet"],
        ["1 Save", "4 Elevate"],
        "save",
        {"against": "melee"},
        2,
    ),
    (
        "Fabricate",
        "1502-1505",
        ["Dracolem/Bronze Beast Dracolem"],
        ["1 Fabricate"],
        "save",
        {"against": "melee"},
        1,
    ),
    (
        "Flurry",
        "1565-1567",
        ["Dwarves/Footman", "Items/Air Blade Golem"],
        ["1 Save", "4 Flurry", "4 Save"],
        "melee",
        {},
        4,
    ),
    (
        "Flurry",
        "1568-1569",
        ["Dwarves/Footman", "Items/Air Blade Golem"],
        ["1 Melee", "4 Flurry"],
        "save",
        {"against": "melee"},
        4,
    ),
    ("Fly", "1576-1588", ["Coral Elves/Eagle Knight"], ["3 Fly"], "maneuver", {}, 3),
    ("Fly", "1576-1588", ["Coral Elves/Eagle Knight"], ["3 Fly"], "save", {"against": "missile"}, 3),
    ("Hoof", "1627-1636", ["Treefolk/Satyr"], ["4 Hoof"], "maneuver", {}, 4),
    ("Hoof", "1627-1636", ["Treefolk/Satyr"], ["4 Hoof"], "save", {"against": "melee"}, 4),
    ("Kick", "1694-1695", ["Amazons/Centaur"], ["4 Kick"], "save", {"against": "melee"}, 4),
    ("Counter", "1384-1385", ["Dwarves/Skirmisher"], ["4 Counter"], "melee", {}, 4),
    ("Rend", "1751-1760", ["Goblins/Leopard Rider"], ["3 Rend", "3 Save"], "melee", {}, 3),
    ("Rend", "1761-1766", ["Goblins/Leopard Rider"], ["3 Rend"], "maneuver", {}, 3),
    ("Sortie", "1903-1912", ["Dwarves/Footman", "Items/Air Mantlet"], ["1 Save", "4 Sortie"], "melee", {}, 4),
    (
        "Sortie",
        "1903-1912",
        ["Dwarves/Footman", "Items/Air Mantlet"],
        ["1 Melee", "4 Sortie"],
        "save",
        {"against": "missile"},
        4,
    ),
    ("Tail", "1982-1988", ["Coral Elves/Leviathan"], ["4 Tail", "4 Save"], "melee", {}, 2),
    ("Trample", "1998-2010", ["Dwarves/Mammoth Rider"], ["3 Trample"], "maneuver", {}, 3),
    ("Trample", "1998-2010", ["Dwarves/Mammoth Rider"], ["3 Trample"], "melee", {}, 3),
    (
        "Trumpet",
        "2011-2018",
        ["Feral/Elephant-folk", "Feral/Tiger-folk"],
        ["4 Trumpet", "4 Melee"],
        "melee",
        {},
        8,
    ),
    (
        "Trumpet",
        "2011-2018",
        ["Feral/Elephant-folk", "Feral/Tiger-folk"],
        ["4 Trumpet", "4 Save"],
        "save",
        {"against": "melee"},
        8,
    ),
    ("Volley", "2033-2034", ["Frostwings/Assailer"], ["4 Volley"], "missile", {}, 4),
    ("Volley", "2031-2032", ["Frostwings/Assailer"], ["4 Volley"], "save", {"against": "melee"}, 4),
    ("Double Strike", "1449-1460", ["Feral/Tiger-folk"], ["4 Double Strike", "4 Melee"], "melee", {}, 4),
    (
        "Attune",
        "1243-1249",
        ["Dwarves/Footman", "Items/Air Magi Crown"],
        ["1 Save", "3 Attune"],
        "magic",
        {},
        3,
    ),
    (
        "Wayfare",
        "2049-2055",
        ["Dwarves/Footman", "Items/Air Seven League Boots"],
        ["1 Save", "3 Wayfare"],
        "maneuver",
        {},
        3,
    ),
    ("Dispel Magic", "1432-1448", ["Dwarves/Gargoyle"], ["4 Dispel Magic"], "melee", {}, 0),
    ("Logo", "1811-1828", ["Eldarim/Death Dragon Hunter"], ["1 Logo"], "melee", {}, 2),
    ("Sneak Attack", "1900-1902", ["Eldarim/Death Dragon Hunter"], ["4 Sneak Attack"], "melee", {}, 4),
    (
        "Magic Suppression",
        "1711-1713",
        ["Dracolem/Bronze Draco-Baal"],
        ["4 Magic Suppression"],
        "magic",
        {},
        4,
    ),
]


@pytest.mark.parametrize(
    "sai,lines,dice,faces,roll_type,ctx,expected", CASES, ids=[f"{c[0]}-{c[4]}-L{c[1]}" for c in CASES]
)
def test_sai_results_in_a_flow_roll(sai, lines, dice, faces, roll_type, ctx, expected):
    game, a, b = arena(dice, D)
    queue = {}
    for i, uid in enumerate(a):
        queue[uid] = [faces[i]]
    if len(faces) > len(a):  # a re-roll face for the last die
        queue[a[-1]].append(faces[-1]) if len(a) == 1 else queue[a[1]].append(faces[-1])
    d = roll(game, "p1", roll_type, faces=queue, **ctx)
    assert d.result.total == expected, f"{sai} (V4.01c L{lines})"


def test_belly_unit_loses_its_automatic_saves_l1270_1272():
    game, a, b = arena(["Dragonkin/Dragontroop (Death)"], D)
    d = roll(
        game,
        "p1",
        "save",
        faces={a[0]: [next(f for f in game.state.units[a[0]].spec.faces if f.endswith("Belly"))]},
        against="melee",
    )
    assert any(r["kind"] == "loses_automatic_saves" for r in d.result.reports)


def test_summon_dragon_in_reserves_generates_x_magic_l1965_1968():
    game, a, b = arena([], D, p1_reserve=["Dwarves/Footman", "Items/Air Dragonstaff"])
    st = game.state
    uids = [u.uid for u in st.area("p1", "reserve")][-2:]
    d = roll(
        game, "p1", "magic", faces={uids[0]: ["1 Save"], uids[1]: ["4 Summon Dragon"]}, location="reserve"
    )
    assert d.result.total == 4


def test_volley_save_vs_missile_saves_and_damage_back_only_spell_saves_l2024_2030():
    game, a, b = arena(["Dwarves/Crossbowman"] * 4, ["Frostwings/Assailer"])
    attack(game, "missile", faces={u: ["2 Missile"] for u in a} | {b[0]: ["4 Volley"]})
    assert where(game, a) == ["dua"] * 4 and where(game, b) == ["dua"]


def test_flurry_melee_makes_the_die_roll_again_l1565_1567():
    game, a, b = arena(["Dwarves/Footman", "Items/Air Blade Golem"], D)
    d = roll(game, "p1", "melee", faces={a[0]: ["1 Save"], a[1]: ["4 Flurry", "4 Melee"]})
    assert "reroll" in d.topics() and d.result.total == 8
