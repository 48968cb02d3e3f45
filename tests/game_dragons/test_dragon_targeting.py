"""The dragon targeting table, cell by cell (V4.01c L589-636), on the catalogue's real dragons, and
worked example V4-37."""

from __future__ import annotations

import pytest

from companion.rules.core.state import spec_for
from companion.rules.game.dragon_targeting import (
    ELEMENTAL,
    HYBRID,
    IVORY,
    IVORY_HYBRID,
    WHITE,
    dragon_targets,
    dragon_type,
    target_table,
)


def D(name: str):
    return spec_for(f"Dragons/{name}")


def attacks(a: str, b: str) -> bool:
    """Does dragon `a` attack dragon `b` when both stand at one terrain?"""
    sa, sb = D(a), D(b)
    return sb in dragon_targets(sa, [sa, sb])


def test_types_of_all_44_catalogue_dragons():
    """Make-up decides the type (V4.01c L547-576): 10 Elemental (drake and wyrm of 5 elements), 20
    Hybrid, 2 Ivory, 10 Ivory Hybrid, 2 White."""
    from companion.rules.catalogue import DieKind, load_catalogue

    kinds = [dragon_type(d) for d in load_catalogue().of_kind(DieKind.DRAGON)]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        ELEMENTAL: 10,
        HYBRID: 20,
        IVORY: 2,
        IVORY_HYBRID: 10,
        WHITE: 2,
    }
    assert dragon_type(D("Ivory Drake")) == IVORY  # recorded as "Elemental Dragon" with no element
    assert dragon_type(D("Red / Ivory Wyrm")) == IVORY_HYBRID


# (attacker, target, expected, rulebook line of the row) — every cell of the table, each
# conditional cell both ways.
CELLS = [
    # Elemental row, V4.01c L593-608
    ("Red Drake", "Blue Drake", True, "L595-598 yes unless same element: different"),
    ("Red Drake", "Red Wyrm", False, "L595-598 same element"),
    ("Red Drake", "Green / Red Drake", True, "L600 Elemental vs Hybrid: yes (even sharing fire)"),
    ("Red Drake", "Blue / Green Drake", True, "L600 Elemental vs Hybrid: yes"),
    ("Red Drake", "Ivory Drake", False, "L600 Elemental vs Ivory: no"),
    ("Red Drake", "Green / Ivory Drake", True, "L600-603 vs Ivory Hybrid: element differs"),
    ("Red Drake", "Red / Ivory Drake", False, "L600-603 vs Ivory Hybrid: element matches"),
    ("Red Drake", "White Drake", True, "L605 Elemental vs White: yes"),
    # Hybrid row, V4.01c L610-626
    ("Green / Red Drake", "Yellow Drake", True, "L612 Hybrid vs Elemental: yes"),
    ("Green / Red Drake", "Red Drake", True, "L612 Hybrid vs Elemental: yes, even matching"),
    ("Green / Red Drake", "Blue / Red Drake", True, "L612-616 vs Hybrid matching one element: yes"),
    ("Green / Red Drake", "Green / Red Wyrm", False, "L612-616 vs Hybrid matching both: no"),
    ("Green / Red Drake", "Ivory Wyrm", False, "L618 Hybrid vs Ivory: no"),
    ("Green / Red Drake", "Red / Ivory Drake", False, "L618-621 vs Ivory Hybrid matching one: no"),
    ("Green / Red Drake", "Blue / Ivory Drake", True, "L618-621 vs Ivory Hybrid matching none: yes"),
    ("Green / Red Drake", "White Wyrm", True, "L623 Hybrid vs White: yes"),
    # Ivory row, V4.01c L628
    ("Ivory Drake", "Red Drake", False, "L628"),
    ("Ivory Drake", "Green / Red Drake", False, "L628"),
    ("Ivory Drake", "Ivory Wyrm", False, "L628"),
    ("Ivory Drake", "Red / Ivory Drake", False, "L628"),
    ("Ivory Drake", "White Drake", False, "L628"),
    # Ivory Hybrid row, V4.01c L630
    ("Red / Ivory Drake", "Blue Drake", False, "L630"),
    ("Red / Ivory Drake", "Blue / Green Drake", False, "L630"),
    ("Red / Ivory Drake", "Ivory Drake", False, "L630"),
    ("Red / Ivory Drake", "Blue / Ivory Drake", False, "L630"),
    ("Red / Ivory Drake", "White Drake", False, "L630"),
    # White row, V4.01c L632-636
    ("White Drake", "Red Drake", True, "L633 White vs Elemental: yes"),
    ("White Drake", "Blue / Green Drake", True, "L633 White vs Hybrid: yes"),
    ("White Drake", "Ivory Drake", False, "L633 White vs Ivory: no"),
    ("White Drake", "Red / Ivory Drake", True, "L633 White vs Ivory Hybrid: yes"),
    ("White Drake", "White Wyrm", False, "L633 White vs White: no"),
]


@pytest.mark.parametrize("attacker,target,expected,why", CELLS, ids=[f"{a}->{t}" for a, t, _, _ in CELLS])
def test_table_cell(attacker, target, expected, why):
    """One cell of the 'Will attack?' table (V4.01c L589-636)."""
    assert attacks(attacker, target) is expected, why


def test_every_type_pair_and_the_army_column_are_in_the_table():
    """25 dragon cells plus the army column (V4.01c L589-636): 30 cells, the Ivory and Ivory Hybrid
    rows attack the army always, the others only with no valid dragon target."""
    table = target_table()
    assert len(table) == 30
    assert table[(IVORY, "army")] == "yes" and table[(IVORY_HYBRID, "army")] == "yes"
    assert table[(WHITE, "army")] == "yes, if no valid dragon target"
    types = (ELEMENTAL, HYBRID, IVORY, IVORY_HYBRID, WHITE)
    # Attackers and targets chosen so that no "unless" condition holds: every cell reads yes or no.
    attacker = {
        ELEMENTAL: "Black Drake",
        HYBRID: "Blue / Green Drake",
        IVORY: "Ivory Drake",
        IVORY_HYBRID: "Green / Ivory Drake",
        WHITE: "White Wyrm",
    }
    target = {
        ELEMENTAL: "Red Wyrm",
        HYBRID: "Red / Yellow Wyrm",
        IVORY: "Ivory Wyrm",
        IVORY_HYBRID: "Yellow / Ivory Wyrm",
        WHITE: "White Drake",
    }
    for a in types:
        for t in types:
            assert attacks(attacker[a], target[t]) is (table[(a, t)] != "no"), (a, t)


def test_no_valid_dragon_target_means_the_army():
    """With no dragon it may attack, a dragon attacks the army (V4.01c L584-587)."""
    red = D("Red Drake")
    assert dragon_targets(red, [red]) == []
    assert dragon_targets(red, [red, D("Ivory Drake")]) == []


class TestV4_37:
    """V4-37 [W/R] Dragon targeting — V4 L589-641."""

    def test_red_and_blue_attack_each_other(self):
        assert attacks("Red Drake", "Blue Drake") and attacks("Blue Drake", "Red Drake")

    def test_two_reds_attack_the_army(self):
        assert not attacks("Red Drake", "Red Wyrm") and not attacks("Red Wyrm", "Red Drake")

    def test_red_attacks_water_ivory_hybrid_which_attacks_the_army(self):
        """L639-641: dragons do not always fight back."""
        assert attacks("Red Drake", "Green / Ivory Drake")
        assert not attacks("Green / Ivory Drake", "Red Drake")

    def test_red_and_fire_ivory_hybrid_do_not_fight(self):
        assert not attacks("Red Drake", "Red / Ivory Drake") and not attacks("Red / Ivory Drake", "Red Drake")

    def test_same_hybrids_attack_the_army(self):
        assert not attacks("Green / Red Drake", "Green / Red Wyrm")

    def test_fire_water_and_fire_air_hybrids_fight(self):
        assert attacks("Green / Red Drake", "Blue / Red Drake") and attacks(
            "Blue / Red Drake", "Green / Red Drake"
        )

    def test_hybrid_spares_ivory_hybrid_of_one_of_its_elements(self):
        assert not attacks("Green / Red Drake", "Red / Ivory Drake")

    def test_ivory_is_never_attacked_and_attacks_the_army(self):
        for other in ("Red Drake", "Green / Red Drake", "White Drake", "Red / Ivory Drake"):
            assert not attacks(other, "Ivory Drake")
            assert not attacks("Ivory Drake", other)

    def test_white_and_white_attack_the_army_white_attacks_elemental(self):
        assert not attacks("White Drake", "White Wyrm") and not attacks("White Wyrm", "White Drake")
        assert attacks("White Drake", "Red Drake")
