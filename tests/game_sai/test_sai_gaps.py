"""Closing SAI gaps of issue 7: Wild Growth's split, Bash against a dragon, Hypnotic Glare's option,
Rise from the Ashes on spell burials, Sneak Attack in the dragon response."""

from __future__ import annotations

from sai_arena import arena, roll, where, wild_growth_roll

D = ["Amazons/Soldier"]


def test_wild_growth_splits_between_saves_and_promotions():
    """V4.01c L2075-2078: X saves or X health-worth promoted, split in any way the roller chooses:
    4 Wild Growth as 2 saves and up to 2 health-worth of promotions."""
    game, a, (oak,), d = wild_growth_roll(["Treefolk/Oak"], "Save:2,promote:2")
    ask = next(x for x in d.decisions if "split its" in x.prompt)
    assert [c["value"] for c in ask.choices][:3] == [
        "Save:4,promote:0",
        "Save:3,promote:1",
        "Save:2,promote:2",
    ]
    promote = next(x for x in d.decisions if "Wild Growth: promote up to" in x.prompt)
    assert "up to 2 health-worth" in promote.prompt
    assert d.result.total == 2 and where(game, [a[1], oak]) == ["dua", "frontier"]


def test_wild_growth_split_in_the_response_to_a_dragon():
    """The response to a dragon attack counts saves (L670-681): Wild Growth may be split there too
    (L2072-2080): 3 saves, 1 promotion."""
    _, _, _, d = wild_growth_roll(["Treefolk/Oak"], "Save:3,promote:1", roll_type="dragon", against="dragon")
    assert d.result.totals.get("save", 0) == 3
    assert any("up to 1 health-worth" in x.prompt for x in d.decisions)


def test_sneak_attack_damage_has_no_save_roll_so_open_grave_does_nothing():
    """V4.01c L1896-1899: during a missile attack Sneak Attack inflicts X damage on an opposing army
    at this terrain with no save possible; Open Grave acts only on units killed following a save roll
    (L2240-2245), so the dead go to the DUA."""
    from companion.rules.core.state import UNTIL_YOUR_NEXT_TURN

    game, a, b = arena(["Eldarim/Fire Dragon Zealot"], ["Amazons/Soldier"] * 4)
    game.add_effect("Open Grave", "p2", "p2@frontier", UNTIL_YOUR_NEXT_TURN)
    d = roll(game, "p1", "missile", faces={a[0]: ["4 Sneak Attack"]})
    assert any("Sneak Attack" in x.prompt for x in d.decisions) or any(
        "Sneak Attack" in line for line in game.log
    )
    assert where(game, b) == ["dua"] * 4


def test_hypnotic_glare_unit_may_sit_out_a_roll_to_keep_its_glare():
    """V4.01c L1663-1666: the glare ends if the glaring unit is rolled; the glaring unit may be
    excluded from any roll until the effect expires.  Alice leaves her Leviathan out of a maneuver
    roll: it is not rolled and the Thug stays hypnotized; asked again, rolling it ends the glare."""
    from sai_arena import attack, id_face

    from companion.rules.game import sai_status

    thugs = ["Goblins/Thug", "Goblins/Mugger", "Goblins/Cutthroat"]
    game, a, b = arena(["Coral Elves/Leviathan", "Dwarves/Footman"], thugs)
    attack(
        game,
        faces={
            a[0]: ["4 Hypnotic Glare"],
            a[1]: ["1 Melee"],
            b[0]: [id_face(thugs[0])],
            b[1]: [id_face(thugs[1])],
            b[2]: ["2 Save"],
        },
    )
    assert sai_status.statuses(game, b[0]) == ["hypnotized"]
    d = roll(game, "p1", "maneuver", answers=[("Hypnotic Glare", "out")])
    ask = next(x for x in d.decisions if "Hypnotic Glare" in x.prompt)
    assert ask.player == "p1" and [c["value"] for c in ask.choices] == ["out", "roll"]
    rolled = next(x for x in d.decisions if x.kind == "roll")
    assert a[0] not in [x["uid"] for x in rolled.dice] and a[1] in [x["uid"] for x in rolled.dice]
    assert sai_status.statuses(game, b[0]) == ["hypnotized"]
    roll(game, "p1", "maneuver", answers=[("Hypnotic Glare", "roll")])
    assert sai_status.statuses(game, b[0]) == []


def test_two_wild_growths_are_split_each_on_its_own():
    """Each Wild Growth die splits its own X (V4.01c L2075-2078): one all saves (4), the other 1 save
    and 3 health-worth of promotions: 5 saves, promotions up to 3."""
    game, a, b = arena(
        ["Treefolk/Noble Willow", "Treefolk/Noble Willow", "Treefolk/Oakling"], D, p1_dua=["Treefolk/Oak"]
    )
    d = roll(
        game,
        "p1",
        "save",
        faces={a[0]: ["4 Wild Growth"], a[1]: ["4 Wild Growth"]},
        against="melee",
        answers=[
            ("split its", "Save:4,promote:0"),
            ("split its", "Save:1,promote:3"),
            ("Wild Growth: promote", "p0"),
        ],
    )
    assert sum("split its" in x.prompt for x in d.decisions) == 2
    assert d.result.total == 5
    assert any("up to 3 health-worth" in x.prompt for x in d.decisions)


def test_stone_damage_has_no_save_roll_so_open_grave_does_nothing():
    """Stone (V4.01c L1937-1945): X damage with no save possible; Open Grave needs a kill following a
    save roll (L2240-2245): the two Soldiers Stone kills go to the DUA."""
    from sai_arena import attack

    from companion.rules.core.state import UNTIL_YOUR_NEXT_TURN

    game, a, b = arena(["Amazons/Medusa"], ["Amazons/Soldier"] * 2)
    game.add_effect("Open Grave", "p2", "p2@frontier", UNTIL_YOUR_NEXT_TURN)
    attack(game, faces={a[0]: ["4 Stone"]})
    assert where(game, b) == ["dua", "dua"]


def test_counter_backlash_has_no_save_roll_so_open_grave_does_nothing():
    """Counter (V4.01c L1388-1391): in a save roll against melee, X damage back on the attacking army
    that only spell saves reduce (no save roll); Open Grave on the attackers does nothing
    (L2240-2245): the four Soldiers killed by the backlash go to the DUA."""
    from sai_arena import attack

    from companion.rules.core.state import UNTIL_YOUR_NEXT_TURN

    game, a, b = arena(["Amazons/Soldier"] * 4, ["Lava Elves/Lurker in the Deep"])
    game.add_effect("Open Grave", "p1", "p1@frontier", UNTIL_YOUR_NEXT_TURN)
    attack(game, faces={u: ["1 Melee"] for u in a} | {b[0]: ["4 Counter"]})
    assert where(game, a) == ["dua"] * 4
