"""r96 set-up: battle size, dragons, armies, frontier, placement, starting distances.  Each test
names its case of ../shared/rules/worked-examples.md (or the rule line it checks)."""

from __future__ import annotations

import pytest
from r96_helpers import DUA, RESERVE, choose, go, roll, setup, started, until

from companion.rules.core.errors import IllegalSetup
from companion.rules.core.state import spec_for
from companion.rules.r96.game import R96Game
from companion.rules.r96.game import setup as su


def specs(*names):
    return [spec_for(n) for n in names]


def test_r96_02_army_cap_is_half_the_forces():
    """R96-02: a 24-health battle: no starting army over 12 health."""
    assert su.army_cap(24) == 12
    ok = {
        "home": specs(*["Dwarves/Footman"] * 12),
        "campaign": specs(*["Dwarves/Sergeant"] * 3 + ["Dwarves/Footman"] * 2),
        "horde": specs("Goblins/Thug", "Goblins/Marauder"),
    }
    assert su.validate_force(24, ok, specs("Dragons/Red Drake")) == 24
    too_big = {
        "home": specs(*["Dwarves/Footman"] * 13),
        "campaign": specs("Dwarves/Sergeant", "Dwarves/Sergeant", "Dwarves/Footman"),
        "horde": specs(*["Goblins/Thug"] * 6),
    }
    with pytest.raises(IllegalSetup, match="more than half"):
        su.validate_force(24, too_big, specs("Dragons/Red Drake"))


def test_dragons_one_plus_one_per_25_health_and_the_3_health_penalty():
    """R96 L146-150: 24 health -> 1 dragon; 35 -> 2; each dragon not brought costs 3 health."""
    assert su.dragons_required(24) == 1 and su.dragons_required(35) == 2 and su.dragons_required(50) == 3
    assert (
        su.fielded_health(35, 2) == 35 and su.fielded_health(35, 1) == 32 and su.fielded_health(24, 0) == 21
    )
    with pytest.raises(IllegalSetup, match="takes 1 dragon"):
        su.fielded_health(24, 2)
    armies = {
        "home": specs(*["Dwarves/Footman"] * 7),
        "campaign": specs(*["Dwarves/Footman"] * 7),
        "horde": specs(*["Goblins/Thug"] * 7),
    }
    assert su.validate_force(24, armies, []) == 21  # no dragon: 21 health of units
    with pytest.raises(IllegalSetup, match="fields 24"):
        su.validate_force(24, armies, specs("Dragons/Red Drake"))
    with pytest.raises(IllegalSetup, match="not a 1996 dragon"):
        su.validate_force(24, armies, specs("Dragons/Blue / Green Drake"))


def test_home_and_campaign_of_one_race_by_default():
    """FAQ95 SET-UP 2.A, FAQ96 SET-UP B.1 (option single_race_home_campaign)."""
    mixed = {
        "home": specs("Dwarves/Footman", "Goblins/Thug"),
        "campaign": specs("Dwarves/Footman", "Dwarves/Footman"),
        "horde": specs("Goblins/Thug", "Dwarves/Footman"),
    }
    with pytest.raises(IllegalSetup, match="one race"):
        su.validate_force(6, mixed, specs("Dragons/Red Drake"))
    assert su.validate_force(6, mixed, specs("Dragons/Red Drake"), single_race=False) == 6
    base = setup()
    base["players"][0]["armies"] = {k: [s.name for s in v] for k, v in mixed.items()}
    with pytest.raises(IllegalSetup, match="one race"):
        R96Game(base)
    base["options"] = {"single_race_home_campaign": False}
    assert R96Game(base).pending.topic == "roll"


def test_r96_03_first_game_split():
    """R96-03: 7 lava elves home, 4 dwarves campaign, 3 coral elves + 1 goblin horde."""
    units = (
        specs(*["Lava Elves/Bladesman"] * 7)
        + specs(*["Dwarves/Footman"] * 4)
        + specs(*["Coral Elves/Fighter"] * 3)
        + specs("Goblins/Thug")
    )
    split = su.first_game_split(units)
    assert [u.species for u in split["home"]] == ["Lava Elves"] * 7
    assert [u.species for u in split["campaign"]] == ["Dwarves"] * 4
    assert sorted(u.species for u in split["horde"]) == ["Coral Elves"] * 3 + ["Goblins"]
    # the engine still checks the half-size cap: 7 of 15 health is legal, a home of 8 would not be
    assert su.validate_force(15, split, specs("Dragons/Red Drake"), single_race=True) == 15


def test_faq95_01_three_players_three_proposed_frontiers_and_starting_areas():
    """FAQ95-01: 3 players -> 3 proposed frontier dice; 3 armies each, nothing in reserve, only dragons dead."""
    game = R96Game(setup(players=3))
    until(game, "select_frontier")
    assert len(game.pending.choices) == 3
    until(game, "march", "p1")
    st = game.state
    for p in st.player_ids:
        assert len(st.armies(p, include_reserve=False)) == 3
        assert not [u for u in st.area(p, RESERVE)]
        assert [u.spec.kind for u in st.area(p, DUA)] == ["dragon"]


def test_faq95_02_two_player_placement_is_forced():
    """FAQ95-02: A's horde at B's home, both campaigns at the frontier, B's horde at A's home; nothing asked."""
    game = R96Game(setup())
    asked = []
    for _ in range(60):
        if game.pending.topic == "march":
            break
        asked.append(game.pending.topic)
        from r96_helpers import default_answer

        game.apply(default_answer(game))
    assert not [t for t in asked if t.startswith("place_")]
    st = game.state
    armies = {(a.owner, a.location) for a in st.armies()}
    assert armies == {
        ("p1", "home-p1"),
        ("p1", "home-p2"),
        ("p1", "frontier"),
        ("p2", "home-p2"),
        ("p2", "home-p1"),
        ("p2", "frontier"),
    }


def test_faq95_03_campaign_placement_rules():
    """FAQ95-03: a terrain with 3 armies or a friendly army is illegal; 2 enemy armies are fine."""
    terrains = ["a", "b", "c"]
    assert su.legal_campaign_terrains(terrains, {"c"}, {"a": 3, "b": 2, "c": 1}) == ["b"]
    assert su.legal_campaign_terrains(terrains, {"a", "b", "c"}, {}) == []


def test_faq96_15_no_legal_terrain_starts_in_reserve():
    """FAQ96-15: with four players the last one may find no legal terrain: that army starts in reserve."""
    game = R96Game(setup(players=4))
    until(game, "march")
    st = game.state
    # 5 terrains, 12 armies: the cap of three armies per terrain leaves some army in reserve
    assert max(len(st.armies_at(t)) for t in st.terrains) <= 3
    assert any(st.army(p, RESERVE).units for p in st.player_ids)


def test_order_of_play_and_the_first_player_picks_the_frontier():
    """R96 L208-231; FAQ96 SET-UP D.2: ties re-roll; the highest roller goes first and picks the frontier."""
    game = R96Game(setup())
    roll(game, "1 Maneuver", "1 Maneuver")  # Ann: pony rider and sentry -> 2
    roll(game, "1 Maneuver", "1 Magic")  # Bo: pelter and trickster -> 1 + 0... a tie? no: 1
    assert game.state.turn_order == ["p1", "p2"] and game.pending.topic == "select_frontier"
    game = R96Game(setup())
    roll(game, "1 Maneuver", "1 Melee")
    log = roll(game, "1 Maneuver", "1 Magic")
    assert any("roll again" in line for line in log)
    roll(game, "1 Melee", "1 Melee")
    roll(game, "1 Maneuver", "1 Magic")
    assert game.state.turn_order == ["p2", "p1"] and game.pending.player == "p2"


def test_starting_distances_reroll_eight_keep_seven():
    """R96 L251-255: an 8 is rolled again; a 7 stays (unlike V4)."""
    game = R96Game(setup())
    until(game, "terrain_roll")
    log = roll(game, "8")
    assert any("roll again" in line for line in log)
    roll(game, "7")
    assert game.state.terrains["home-p1"].face == 7


def test_started_game_is_at_first_march():
    game = go(started())
    assert game.pending.topic == "march" and game.state.phase == "first_march"
    choose(game, "pass")
    assert game.pending.topic == "march" and game.state.march == 2


def test_package_docstring_example():
    import doctest

    import companion.rules.r96.game as package

    result = doctest.testmod(package)
    assert result.attempted > 0 and result.failed == 0
