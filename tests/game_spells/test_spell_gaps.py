"""Closing gaps of issue 7 in the spell rules: the caster picks the order of resolution, player
choices of Wilding and Fiery Weapon, a Cantrip's spells and its own roll."""

from __future__ import annotations

from spell_support import cast_spells, clear_army, faces_for, new_game, units_at

from companion.rules.game.state import RESERVE


def _announce(g, spells):
    """Alice's magic action at the Frontier announces `spells`; the answers stop at the first question."""
    st = g.state
    st.terrains["frontier"].face = next(i for i in range(1, 8) if st.terrains["frontier"].kind.action_at(i) == "magic")
    g.apply({"type": "choose", "choice": "p1@frontier"})
    g.apply({"type": "choose", "choice": "skip"})
    if g.pending.topic == "action":
        g.apply({"type": "choose", "choice": "magic"})
    g.apply({"type": "roll", "faces": faces_for(g.pending, "magic", "max")})
    return g.apply({"type": "cast", "spells": spells})


def test_caster_picks_which_announced_spell_resolves_next():
    """V4.01c L470-473: once all spells and targets are announced, they are cast and resolved one at
    a time in any order the caster wishes.  Scent of Fear sends Bob's last three units at the Frontier
    to his Reserve Area; Palsy on that army resolves first when Alice picks it, and is lost when it
    comes second (L478-480)."""
    for first, palsy_lost in (("Palsy", False), ("Scent of Fear", True)):
        g = new_game(species=("Goblins", "Dwarves"))
        clear_army(g, "p2", "frontier", keep=3)
        three = units_at(g, "p2", "frontier")
        _announce(g, [{"spell": "Scent of Fear", "target": "frontier", "units": three},
                      {"spell": "Palsy", "target": "p2@frontier"}])
        d = g.pending
        assert d.topic == "spell_order" and d.player == "p1" and d.kind == "choice"
        assert [c["label"].split(" on ")[0] for c in d.choices] == ["Scent of Fear", "Palsy"]  # announced order
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
    out = _announce(g, [{"spell": "Hailstorm", "target": "p2@frontier"}, {"spell": "Hailstorm", "target": "p2@frontier"}])
    assert g.pending.topic != "spell_order", out["log"]
    assert g.pending.data.get("roll") == "save"  # straight to the first Hailstorm's save roll
