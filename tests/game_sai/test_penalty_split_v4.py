"""A penalty on results in a combination roll (Palsy L2196-2199, Ash Storm L2297-2301) is placed by
the army's owner between the result types the roll counts, all of it where possible (V4.01c
L1076-1084): the V4.01c game asks (topic ``penalty_split``), as the 1996 game does (R96 L934-951)."""

from __future__ import annotations

from sai_arena import arena, roll


def split_decisions(driver):
    return [d for d in driver.decisions if d.topic == "penalty_split"]


def dragon_response(game, faces, answers=None):
    return roll(game, "p1", "dragon", faces=faces, answers=answers, against="dragon", choices={})


def test_palsy_in_a_dragon_response_is_placed_by_the_owner():
    game, (sergeant, footman), _ = arena(["Dwarves/Sergeant", "Dwarves/Footman"], ["Goblins/Thug"])
    game.add_effect("Palsy", "p2", "p1@frontier", castings=2)
    faces = {sergeant: ["3 Melee"], footman: ["1 Save"]}
    d = dragon_response(game, faces, answers=[("penalty_split", {"melee": 2})])
    (asked,) = split_decisions(d)
    assert asked.player == "p1" and "Palsy" in asked.prompt and "L1076" in asked.rule
    offered = [c["value"] for c in asked.choices]
    # 3 melee and 1 save: no missile to take a point, so no split wastes part of the penalty
    assert sorted(map(lambda v: sorted(v.items()), offered)) == [[("melee", 1), ("save", 1)], [("melee", 2)]]
    assert d.result.totals["melee"] == 1 and d.result.totals["save"] == 1


def test_the_owner_may_put_it_on_saves():
    game, (sergeant, footman), _ = arena(["Dwarves/Sergeant", "Dwarves/Footman"], ["Goblins/Thug"])
    game.add_effect("Palsy", "p2", "p1@frontier", castings=2)
    d = dragon_response(
        game,
        {sergeant: ["3 Melee"], footman: ["1 Save"]},
        answers=[("penalty_split", {"melee": 1, "save": 1})],
    )
    assert split_decisions(d)
    assert d.result.totals["melee"] == 2 and d.result.totals["save"] == 0


def test_ash_storm_at_the_terrain_is_asked_too():
    game, (sergeant, footman), _ = arena(["Dwarves/Sergeant", "Dwarves/Footman"], ["Goblins/Thug"])
    game.add_effect("Ash Storm", "p2", "frontier", castings=1)
    d = dragon_response(
        game, {sergeant: ["3 Melee"], footman: ["1 Save"]}, answers=[("penalty_split", {"save": 1})]
    )
    (asked,) = split_decisions(d)
    assert "Ash Storm" in asked.prompt
    assert d.result.totals["melee"] == 3 and d.result.totals["save"] == 0


def test_no_question_when_only_one_placement_applies_it_all():
    """All on melee is the only way when no other counted type has results (L1083: all if possible)."""
    game, (sergeant, footman), _ = arena(["Dwarves/Sergeant", "Dwarves/Footman"], ["Goblins/Thug"])
    game.add_effect("Palsy", "p2", "p1@frontier", castings=1)
    d = dragon_response(game, {sergeant: ["3 Melee"], footman: ["2 Melee"]})
    assert not split_decisions(d)
    assert d.result.totals["melee"] == 4


def test_a_single_type_roll_asks_nothing():
    game, (sergeant, footman), _ = arena(["Dwarves/Sergeant", "Dwarves/Footman"], ["Goblins/Thug"])
    game.add_effect("Palsy", "p2", "p1@frontier", castings=1)
    d = roll(game, "p1", "melee", faces={sergeant: ["3 Melee"], footman: ["1 Save"]})
    assert not split_decisions(d)
    assert d.result.total == 2


def test_an_ash_storm_of_ones_own_is_placed_too():
    """Ash Storm subtracts from all army rolls at its terrain (L2297-2301), its caster's included."""
    game, (sergeant, footman), _ = arena(["Dwarves/Sergeant", "Dwarves/Footman"], ["Goblins/Thug"])
    game.add_effect("Ash Storm", "p1", "frontier", castings=1)
    d = dragon_response(
        game, {sergeant: ["3 Melee"], footman: ["1 Save"]}, answers=[("penalty_split", {"save": 1})]
    )
    assert split_decisions(d) and d.result.totals["save"] == 0 and d.result.totals["melee"] == 3
