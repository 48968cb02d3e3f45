"""Wild Growth promotes X health-worth: several units one size each, or one unit several sizes, or
any mix (V4.01c L1153-1156), all at once (L2075-2079, L1145-1147); in a roll counting saves its X
may be split between saves and promotions (L2075-2078) whenever a promotion of any size is possible."""

from __future__ import annotations

from sai_arena import arena, roll, where, wild_growth_roll

D = ["Amazons/Soldier"]


def promote_question(d):
    return next(x for x in d.decisions if "Wild Growth: promote up to" in x.prompt)


def option(ask, *names):
    """The value of the option whose label names every one of ``names``."""
    return next(c["value"] for c in ask.choices if all(n in c["label"] for n in names))


def test_one_unit_promoted_two_sizes_in_a_melee_roll():
    game, a, _ = arena(["Treefolk/Noble Willow", "Treefolk/Oakling"], D, p1_dua=["Treefolk/Oak Lord"])
    lord = game.state.area("p1", "dua")[0].uid
    labels = []

    def to_lord(d):
        if "Wild Growth: promote up to" not in d.prompt:
            return False
        labels.extend(c["label"] for c in d.choices)
        return True

    d = roll(game, "p1", "melee", faces={a[0]: ["4 Wild Growth"]}, answers=[(to_lord, "p0")])
    ask = promote_question(d)
    assert any("Oakling" in x and "Oak Lord" in x for x in labels), labels
    assert option(ask, "Oakling", "Oak Lord") == "p0"
    assert where(game, [a[1], lord]) == ["dua", "frontier"]


def test_health_worth_is_a_budget_several_units_or_one_unit_several_sizes():
    game, a, _ = arena(
        ["Treefolk/Noble Willow", "Treefolk/Oakling", "Treefolk/Willowing"],
        D,
        p1_dua=["Treefolk/Oak", "Treefolk/Willow", "Treefolk/Oak Lord"],
    )
    d = roll(game, "p1", "melee", faces={a[0]: ["4 Wild Growth"]}, answers=[("Wild Growth: promote", "none")])
    labels = [c["label"] for c in promote_question(d).choices]
    both = [x for x in labels if "Oakling to Treefolk/Oak Lord" in x and "Willowing to Treefolk/Willow" in x]
    assert both, labels  # 2 + 1 = 3 health-worth: within X = 4
    assert not any("Noble Willow to" in x for x in labels)  # no 4-health Treefolk to become


def test_budget_is_not_exceeded():
    _, _, _, d = wild_growth_roll(
        ["Treefolk/Oak Lord", "Treefolk/Eldar Dryad"],
        "Save:1,promote:3",
        "none",
        p1=("Treefolk/Noble Willow", "Treefolk/Oakling", "Treefolk/Willowing"),
    )
    labels = [c["label"] for c in promote_question(d).choices]
    assert labels and not any(x.count(" to ") > 1 for x in labels), labels  # 2 + 2 > 3


def test_the_split_is_asked_when_only_a_larger_promotion_is_possible():
    """Only a two-size promotion is possible (no 2-health Treefolk in the DUA): still X saves or promotions."""
    game, a, (lord,), d = wild_growth_roll(["Treefolk/Oak Lord"], "Save:2,promote:2")
    assert any("split its" in x.prompt for x in d.decisions)
    assert d.result.total == 2 and where(game, [a[1], lord]) == ["dua", "frontier"]


def test_two_wild_growths_promote_all_at_once():
    """Two dice show Wild Growth: their health-worth adds up and one promotion happens (all at once)."""
    game, a, _ = arena(
        ["Treefolk/Noble Willow", "Treefolk/Noble Willow", "Treefolk/Oakling"], D, p1_dua=["Treefolk/Oak"]
    )
    d = roll(
        game,
        "p1",
        "melee",
        faces={a[0]: ["4 Wild Growth"], a[1]: ["4 Wild Growth"]},
        answers=[("Wild Growth: promote", "p0")],
    )
    asked = [x for x in d.decisions if "Wild Growth: promote up to" in x.prompt]
    assert len(asked) == 1 and "up to 8 health-worth" in asked[0].prompt
    assert where(game, [a[2]]) == ["dua"]  # the Oakling was promoted (it went to the DUA for an Oak)


def test_equal_dice_in_the_dua_are_each_usable():
    """Three Oaklings, three Oaks in the DUA, X = 4: all three can be promoted at once."""
    game, a, _ = arena(
        ["Treefolk/Noble Willow", "Treefolk/Oakling", "Treefolk/Oakling", "Treefolk/Oakling"],
        D,
        p1_dua=["Treefolk/Oak"] * 3,
    )
    d = roll(game, "p1", "melee", faces={a[0]: ["4 Wild Growth"]}, answers=[("Wild Growth: promote", "p0")])
    assert promote_question(d).choices[1]["label"].count("Oakling to Treefolk/Oak") == 3
    assert [where(game, [u])[0] for u in a[1:]] == ["dua"] * 3
