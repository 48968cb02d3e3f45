"""Species abilities without an in-play test before issue 7's closing: Kukri Charge."""

from __future__ import annotations

from species_script import Script, amazons_with_a_knoll


def _kukri_script(answers) -> Script:
    """Alice's War Chief (4 melee) and two Runners (2 maneuvers each) by her Flatland Knoll (face 5)."""
    game, a, b = amazons_with_a_knoll("Amazons/War Chief", face=5)
    return Script(game, {a[0]: ["4 Melee"], a[1]: ["2 Maneuver"], a[2]: ["2 Maneuver"]}, answers)


def test_amazons_kukri_charge_counts_maneuver_as_melee_after_burying_a_minor_terrain():
    """V4.01c L792-796: instead of the maneuver step the marching army buries a minor terrain it
    controls; its Amazons may then count maneuver results as melee results in a melee action this
    turn.  War Chief 4 melee + two Runners' 2 maneuvers each: 8 melee."""
    s = _kukri_script(
        [
            ("p1:march", "p1@frontier"),
            (lambda d: d.player == "p1" and any(c["value"] == "bury" for c in d.choices), "bury"),
            ("p1:action", "melee"),
            ("p1:target", "p2@frontier"),
        ],
    )
    s.play(until_turn=1)
    log = s.log()
    assert "Alice's army at Flatland City rolled 8 melee" in log


def test_without_burying_the_maneuvers_are_not_melee():
    """The same roll when Alice maneuvers (or skips) instead: Kukri Charge is not active, 4 melee."""
    s = _kukri_script(
        [("p1:march", "p1@frontier"), ("p1:action", "melee"), ("p1:target", "p2@frontier")],
    )
    s.play(until_turn=1)
    assert "Alice's army at Flatland City rolled 4 melee" in s.log()
