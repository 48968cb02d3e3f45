"""Closing gaps of issue 7 in the spell rules: the caster picks the order of resolution, player
choices of Wilding and Fiery Weapon, a Cantrip's spells and its own roll."""

from __future__ import annotations

import pytest
from spell_support import (
    cast_spells,
    faces_for,
    new_game,
    scent_of_fear_then_palsy,
    show_action,
)

from companion.rules.core.state import RESERVE


def _announce(g, spells):
    """Alice's magic action at the Frontier announces `spells`; the answers stop at the first question."""
    show_action(g, "frontier", "magic")
    g.apply({"type": "choose", "choice": "p1@frontier"})
    g.apply({"type": "choose", "choice": "skip"})
    if g.pending.topic == "action":
        g.apply({"type": "choose", "choice": "magic"})
    g.apply({"type": "roll", "faces": faces_for(g.pending, "magic", "max")})
    return g.apply({"type": "cast", "spells": spells})


@pytest.mark.parametrize(
    ("first", "palsy_lost"), [("Palsy", False), ("Scent of Fear", True)], ids=["palsy_first", "scent_first"]
)
def test_caster_picks_which_announced_spell_resolves_next(first, palsy_lost):
    """V4.01c L470-473: once all spells and targets are announced, they are cast and resolved one at
    a time in any order the caster wishes.  Scent of Fear sends Bob's last three units at the Frontier
    to his Reserve Area; Palsy on that army resolves first when Alice picks it, and is lost when it
    comes second (L478-480)."""
    g = new_game(species=("Goblins", "Dwarves"))
    three, spells = scent_of_fear_then_palsy(g)
    _announce(g, spells)
    d = g.pending
    assert d.topic == "spell_order" and d.player == "p1" and d.kind == "choice"
    assert [c["label"].split(" on ")[0] for c in d.choices] == [
        "Scent of Fear",
        "Palsy",
    ]  # announced order
    pick = next(c["value"] for c in d.choices if c["label"].startswith(first))
    g.apply({"type": "choose", "choice": pick})
    assert all(g.state.location[u] == RESERVE for u in three)
    palsy = next(e for e in g.state.spells_announced if e["spell"] == "Palsy")
    assert bool(palsy.get("lost")) is palsy_lost
    assert bool(palsy.get("resolved")) is not palsy_lost


def test_no_order_question_for_lasting_effects_only():
    """Lasting effects alone commute (each only puts an effect in force), so the order of two Palsies
    on two armies is not asked: both are in force (V4.01c L470-473, L2196-2199)."""
    g = new_game(species=("Undead", "Dwarves"))
    cast_spells(g, [{"spell": "Palsy", "target": "p2@home-p1"}, {"spell": "Palsy", "target": "p2@frontier"}])
    assert g.pending.topic != "spell_order"
    assert sorted(e.target for e in g.state.effects if e.name == "Palsy") == ["p2@frontier", "p2@home-p1"]


def test_identical_spells_are_not_ordered():
    """Two identical announcements (same spell, same target) have no order to pick."""
    g = new_game(species=("Coral Elves", "Dwarves"))
    out = _announce(
        g, [{"spell": "Hailstorm", "target": "p2@frontier"}, {"spell": "Hailstorm", "target": "p2@frontier"}]
    )
    assert g.pending.topic != "spell_order", out["log"]
    assert g.pending.data.get("roll") == "save"  # straight to the first Hailstorm's save roll


# ------------------------------------------------------------------ Rise from the Ashes on spell burials
RISE = "4 Rise from the Ashes"


def test_exhume_burial_lets_rise_from_the_ashes_roll():
    """V4.01c L1774-1778: a unit with Rise from the Ashes that is buried rolls; on that SAI it goes to
    the Reserve Area.  Exhume buries a Phoenix in Bob's DUA that fails its save (L2234-2239): it
    rises instead, and is not counted as buried."""
    from spell_support import add_die

    g = new_game(species=("Undead", "Dwarves"))
    add_die(g, "p1", "Undead/Lich", "home-p1")  # magic enough for two combined castings
    phoenix = add_die(g, "p2", "Firewalkers/Phoenix", "dua")
    cast_spells(g, [{"spell": "Exhume", "target": "dua:p2", "units": [phoenix], "castings": 2}])
    g.apply({"type": "roll", "faces": ["4 Seize"]})  # no save in the DUA (L1215-1216)
    d = g.pending
    assert d.topic == "sai_roll" and d.dice[0]["uid"] == phoenix and "buried" in d.prompt
    g.apply({"type": "roll", "faces": [RISE]})
    assert g.state.location[phoenix] == RESERVE


def test_swamp_fever_burial_lets_rise_from_the_ashes_roll():
    """Swamp Fever (L2216-2220) kills on an ID and buries on a second ID; the killed Phoenix rolls
    when killed (no Rise), then when buried (Rise): it goes to the Reserve Area (L1774-1778)."""
    from spell_support import add_die, id_face, zero_face

    g = new_game(species=("Swamp Stalkers", "Firewalkers"))
    phoenix = add_die(g, "p2", "Firewalkers/Phoenix", "home-p1")
    small = [add_die(g, "p2", "Firewalkers/Guardian", "home-p1") for _ in range(2)]
    cast_spells(
        g, [{"spell": "Swamp Fever", "target": "p2@home-p1", "units": [phoenix, *small], "castings": 2}]
    )
    g.apply({"type": "roll", "faces": [id_face(g, phoenix)] + [zero_face(g, u) for u in small]})  # killed
    d = g.pending
    assert d.topic == "sai_roll" and "killed" in d.prompt
    g.apply({"type": "roll", "faces": ["4 Seize"]})  # no Rise when killed
    g.apply({"type": "roll", "faces": [id_face(g, phoenix)]})  # Swamp Fever buries
    d = g.pending
    assert d.topic == "sai_roll" and "buried" in d.prompt
    g.apply({"type": "roll", "faces": [RISE]})
    assert g.state.location[phoenix] == RESERVE


def test_soiled_ground_burial_lets_rise_from_the_ashes_roll():
    """Soiled Ground (L2247-2250) buries a killed unit that fails its save; a Phoenix rolls on that
    burial and rises to the Reserve Area (L1774-1778)."""
    from spell_support import add_die, drive

    from companion.rules.game.dua import kill_flow

    g = new_game(species=("Undead", "Firewalkers"))
    cast_spells(g, [{"spell": "Soiled Ground", "target": "home-p1"}])
    phoenix = add_die(g, "p2", "Firewalkers/Phoenix", "home-p1")
    drive(
        g,
        kill_flow(g, [phoenix]),
        [
            {"type": "roll", "faces": ["4 Seize"]},  # Rise when killed: no
            {"type": "roll", "faces": ["4 Seize"]},  # Soiled Ground save: none
            {"type": "roll", "faces": [RISE]},
        ],
    )  # Rise when buried: yes
    assert g.state.location[phoenix] == RESERVE
