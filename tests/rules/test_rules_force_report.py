"""Force building as the page shows it (``companion.rules.games.force_report`` / ``die_points``): every
line comes from the game's own set-up rules, and a force the report passes is one its game starts with."""

from __future__ import annotations

import pytest

from companion.rules.core.errors import IllegalSetup
from companion.rules.game import quick_setup
from companion.rules.games import die_points, force_report, start_game
from companion.rules.r96.game import quick_setup as r96_quick_setup

V4, R96 = {}, {"edition": "r96"}


def _failing(report: dict) -> list[str]:
    return [c["text"] for c in report["checks"] if not c["ok"]]


@pytest.mark.parametrize("size", [15, 24, 30, 36, 60])
def test_a_quick_start_force_passes_every_check_and_starts_its_game(size):
    for setup, fill in ((V4, quick_setup), (R96, r96_quick_setup)):
        full = fill({**setup, "force_size": size, "players": [{"name": "Ann"}, {"name": "Bob"}]})
        for p in full["players"]:
            report = force_report(setup, size, p["armies"], p["dragons"])
            assert _failing(report) == [], (setup, size, p)
        start_game(full)  # and the game takes it


def test_the_dragons_required_differ_by_edition():
    """V4.01c: one per 24 points or part thereof (L290-292); 1996: one plus one per 25 health (R96 L146-149)."""
    assert force_report(V4, 49, {}, [])["dragons_required"] == 3
    assert force_report(R96, 49, {}, [])["dragons_required"] == 2
    assert force_report(R96, 35, {}, [])["dragons_required"] == 2  # the rule's own example


def test_a_1996_force_short_of_dragons_fields_3_health_less_per_dragon():
    """R96 L149-150: a 30-health battle needs 2 dragons; one brought fields 27 health, capped at 13 an army."""
    report = force_report(R96, 30, {}, ["Dragons/Red Drake"])
    assert report["fielded"] == 27 and report["army_cap"] == 13
    assert report["checks"][0]["text"].startswith("0 of 27 health")


def test_1996_forces_hold_no_items_and_no_white_dragon():
    unit, item = "Dwarves/Footman", "Items/Air Blade Golem"
    assert die_points(R96, item) is None and die_points(V4, item) is not None
    assert die_points(R96, "Dragons/White Drake") is None and die_points(R96, "Dragons/Red Drake") == 0
    report = force_report(
        R96, 24, {"home": [unit, item], "campaign": [unit], "horde": [unit]}, ["Dragons/White Drake"]
    )
    failing = _failing(report)
    assert any(t.startswith("home:") for t in failing) and any("dragon" in t for t in failing)
    assert not any(t.startswith("campaign:") for t in failing)


def test_the_v4_army_cap():
    """No army over half the force, rounded down (V4.01c L304-306)."""
    report = force_report(V4, 10, {"home": ["Dwarves/Footman"] * 6}, [])
    assert report["army_cap"] == 5 and report["armies"]["home"] == 6
    assert any(t.startswith("home: 6 pts, at most 5") for t in _failing(report))


def test_malformed_forces_are_refused_by_name():
    with pytest.raises(IllegalSetup, match="Nobody/Nothing"):
        force_report(V4, 24, {"home": ["Nobody/Nothing"]}, [])
    with pytest.raises(IllegalSetup, match="force size"):
        force_report(V4, 0, {}, [])
    with pytest.raises(IllegalSetup, match="not built die by die"):
        force_report({"game": "battle_dice"}, 24, {}, [])


@pytest.mark.parametrize(
    ("setup", "rule"), [({"edition": "v4"}, "V4.01c L296-302"), ({"edition": "r96"}, "R96 L157-163")]
)
def test_an_army_the_game_does_not_have_is_refused_not_left_out(setup, rule):
    with pytest.raises(IllegalSetup, match="'hoard' is not an army") as err:
        force_report(setup, 24, {"home": ["Dwarves/Footman"], "hoard": ["Dwarves/Footman"]})
    assert err.value.rule == rule
