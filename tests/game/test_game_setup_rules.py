"""Set-up, steps 1-5 (V4.01c L276-347, multi-player L2454-2489) and the set-up worked examples."""

from __future__ import annotations

import pytest
from game_support import choose, ids_then_zero, passive_policy, plain_setup, run_until, setup_done

from companion.rules.core.state import DieSpec, spec_for
from companion.rules.game import Game, IllegalSetup
from companion.rules.game import setup as su


def medium(n: int) -> list[DieSpec]:
    return [DieSpec(f"m{i}", "item", 0, size="Medium") for i in range(n)]


def test_v4_01_medium_equipment_pricing():
    """V4-01: 1 medium -> 2 points, 2 -> 3, [D] 3 -> 5."""
    assert su.item_points(medium(1)) == 2
    assert su.item_points(medium(2)) == 3
    assert su.item_points(medium(3)) == 5
    assert su.item_points(medium(4)) == 6


def test_item_point_values():
    sizes = {"Small": 1, "Large": 2, "Artifact": 3, "Medallion": 4, "Relic": 4}
    for size, points in sizes.items():
        assert su.item_points([DieSpec("x", "item", 0, size=size)]) == points
    real = spec_for("Items/Air Dawn Blade")  # a medium equipment of the catalogue
    assert su.force_points([real, real, spec_for("Dwarves/Footman")]) == 3 + 1


def test_dragons_required_per_24_points_or_part():
    assert [su.dragons_required(n) for n in (15, 24, 25, 36, 48, 49, 60)] == [1, 1, 2, 2, 2, 3, 3]
    white = spec_for("Dragons/White Drake")
    red = spec_for("Dragons/Red Drake")
    assert su.dragon_count([white]) == 2  # V4.01c L575
    assert su.dragon_count([red, red]) == 2


def test_r96_02_army_cap_is_half_the_force():
    """R96-02 (the same half-force rule in V4.01c L304-306): 24 points -> largest army 12."""
    assert su.army_cap(24) == 12
    assert su.army_cap(15) == 7


def test_force_validation_errors_cite_rules():
    good = plain_setup(force=15, shares=(5, 5, 5))
    Game(good)  # legal
    too_big = plain_setup(force=15, shares=(8, 4, 3))
    with pytest.raises(IllegalSetup, match="more than half") as err:
        Game(too_big)
    assert err.value.rule == "V4.01c L304-306"
    short = plain_setup(force=15, shares=(5, 5, 4))
    with pytest.raises(IllegalSetup, match="worth 14 points"):
        Game(short)
    empty = plain_setup(force=15, shares=(5, 5, 5))
    empty["players"][0]["armies"]["campaign"] = []
    with pytest.raises(IllegalSetup, match="at least one unit"):
        Game(empty)
    no_dragon = plain_setup(force=15)
    no_dragon["players"][1]["dragons"] = []
    with pytest.raises(IllegalSetup, match="needs exactly 1"):
        Game(no_dragon)
    two = plain_setup(force=15)
    two["players"][1]["dragons"] = ["Dragons/White Drake"]  # counts as two
    with pytest.raises(IllegalSetup, match="brings 2 dragon"):
        Game(two)
    advanced_home = plain_setup(force=15, homes=["Highland Castle", "Swampland Temple"])
    with pytest.raises(IllegalSetup, match="advanced terrain"):
        Game(advanced_home)
    with pytest.raises(IllegalSetup, match="unknown terrain"):
        Game(plain_setup(force=15, homes=["Moonland City", "Swampland Temple"]))


def test_r96_03_suggested_split_respects_the_half_cap():
    """R96-03: 7 + 4 + (3 + 1) units; the engine still checks the cap (15 points -> 7 per army)."""
    setup = plain_setup(force=15, shares=(7, 4, 4), species=["Lava Elves", "Dwarves"])
    Game(setup)
    setup = plain_setup(force=15, shares=(8, 4, 3), species=["Lava Elves", "Dwarves"])
    with pytest.raises(IllegalSetup, match="more than half"):
        Game(setup)


def test_starting_face_rules():
    """V4.01c L340-343: 8 re-rolled, 7 turned down to 6."""
    assert [su.starting_face(n) for n in range(1, 9)] == [1, 2, 3, 4, 5, 6, 6, None]


def test_starting_distance_in_the_flow_rerolls_eight_and_turns_seven():
    game = Game(plain_setup())
    d = run_until(game, lambda d: d.data.get("roll") == "terrain")
    home = d.data["terrain"]
    game.apply({"type": "roll", "faces": ["8"]})
    assert game.pending.data.get("terrain") == home  # roll again
    game.apply({"type": "roll", "faces": ["7"]})
    assert game.state.terrains[home].face == 6
    with pytest.raises(Exception, match="faces 1-8|no face"):
        game.apply({"type": "roll", "faces": ["9"]})


def test_order_of_play_ties_reroll_and_winner_chooses():
    game = Game(plain_setup())
    # Both roll 2: a tie, so both roll again (V4.01c L316).
    for _ in range(2):
        game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "maneuver", 2)})
    assert game.pending.kind == "roll" and game.pending.player == "p1"
    game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "maneuver", 1)})
    game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "maneuver", 3)})
    d = game.pending
    assert d.player == "p2" and {c["value"] for c in d.choices} == {"first_turn", "select_frontier"}
    choose(game, "select_frontier")
    # Bob selects the Frontier, Alice goes first (V4.01c L318-322).
    assert game.state.turn_order == ["p1", "p2"]
    assert game.pending.player == "p2" and "Frontier" in game.pending.prompt


def test_faq95_04_order_roll_ignores_terrain_doubling():
    """FAQ95-04: the Horde is not at a terrain: no eighth-face or terrain effect on the order roll."""
    game = Game(plain_setup())
    d = game.pending
    assert d.data["roll"] == "maneuver" and "Horde" in d.prompt
    game.apply({"type": "roll", "faces": ids_then_zero(d, "maneuver", 2)})
    assert game.state.last_roll["total"] == 2


def test_faq95_02_two_player_placement_is_forced():
    """FAQ95-02: A's horde at B's home, both campaigns at the frontier, B's horde at A's home."""
    game = Game(plain_setup())
    setup_done(game)
    st = game.state
    where = {a.id: len(a.units) for a in st.armies()}
    assert set(where) == {
        "p1@home-p1",
        "p1@home-p2",
        "p1@frontier",
        "p2@home-p2",
        "p2@home-p1",
        "p2@frontier",
    }


def test_faq95_01_three_players_three_frontiers_and_start_state():
    """FAQ95-01: 3 players -> 3 proposed frontiers; each starts with exactly 3 armies, nothing in reserve,
    dragons apart (V4: in the Summoning Pool, V4.01c L290-292)."""
    game = Game(plain_setup(n_players=3))
    d = run_until(
        game,
        lambda d: (
            "Frontier Terrain" in d.prompt
            and d.kind == "choice"
            and len(d.choices) == 3
            and "first" not in d.prompt
        ),
    )
    assert len(d.choices) == 3
    setup_done(game)
    st = game.state
    for pid in st.player_ids:
        assert len(st.armies(pid, include_reserve=False)) == 3
        assert st.area(pid, "reserve") == []
        assert st.area(pid, "dua") == []
        assert [u.spec.kind for u in st.area(pid, "pool")] == ["dragon"]
    assert len(st.terrains) == 4  # three homes and the one Frontier kept


def test_faq95_03_campaign_placement_multiplayer():
    """FAQ95-03: not where 3 armies already are, not where you have an army; 2 enemy armies is fine."""
    assert su.legal_campaign_terrains(
        ["a", "b", "c"], own_armies=["c"], army_count={"a": 3, "b": 2, "c": 1}
    ) == ["b"]


def test_faq96_15_overflow_campaign_goes_to_reserve():
    """FAQ96-15: no legal terrain for the campaign -> it starts in the Reserve Area."""
    assert su.legal_campaign_terrains(["a", "b"], own_armies=["a"], army_count={"a": 1, "b": 3}) == []


def test_campaign_choices_in_a_four_player_game_respect_the_cap():
    """FAQ95-03 in the flow: a Campaign army is never offered a terrain holding 3 armies or one of
    the player's own armies."""
    game = Game(plain_setup(n_players=4, force=15))
    seen = 0
    while game.state.phase == "setup":
        d = game.pending
        if d.kind == "choice" and "Campaign army" in d.prompt:
            seen += 1
            counts: dict[str, int] = {}
            for a in game.state.armies(include_reserve=False):
                counts[a.location] = counts.get(a.location, 0) + 1
            own = {a.location for a in game.state.armies(d.player, include_reserve=False)}
            for c in d.choices:
                assert counts.get(c["value"], 0) < 3 and c["value"] not in own
            # Pile the hordes and campaigns up on Alice's home to push the cap.
            values = [c["value"] for c in d.choices]
            choose(game, "home-p1" if "home-p1" in values else values[0])
        elif d.kind == "choice" and "Horde army" in d.prompt:
            values = [c["value"] for c in d.choices]
            choose(game, "home-p1" if "home-p1" in values else values[0])
        else:
            game.apply(passive_policy(d))
    assert seen >= 3


def test_multiplayer_order_first_turn_gives_frontier_to_next_highest():
    order, selector = su.turn_order_after_choice(["c", "a", "b"], winner_takes_first=True)
    assert order == ["c", "a", "b"] and selector == "a"
    order, selector = su.turn_order_after_choice(["c", "a", "b"], winner_takes_first=False)
    assert order == ["a", "c", "b"] and selector == "c"


def test_multiplayer_horde_placement_is_a_choice_of_other_homes():
    game = Game(plain_setup(n_players=3))
    d = run_until(game, lambda d: "Horde army at another player's Home" in d.prompt)
    homes = {c["value"] for c in d.choices}
    assert d.player not in {h.removeprefix("home-") for h in homes}
    assert len(homes) == 2
    with pytest.raises(Exception, match="not a legal choice"):
        choose(game, f"home-{d.player}")


def test_unknown_dice_and_bad_shapes_are_refused():
    setup = plain_setup()
    setup["players"][0]["armies"]["home"][0] = "Dwarves/Nobody"
    with pytest.raises(IllegalSetup, match="unknown die"):
        Game(setup)
    with pytest.raises(IllegalSetup, match="at least two players"):
        Game({"force_size": 15, "players": [plain_setup()["players"][0]]})
    with pytest.raises(IllegalSetup, match="force_size"):
        Game({"force_size": "many", "players": []})


def test_passive_policy_is_legal_for_every_setup_decision():
    game = Game(plain_setup(n_players=3))
    setup_done(game)
    assert game.state.phase != "setup"
    d = game.pending
    assert d.topic == "march" and passive_policy(d) == {"type": "choose", "choice": "pass"}


def test_v4_08_dragonkin_allowance():
    """V4-08: 36 points -> 12 health; 35 -> 11; 36 with 6 of Dracolem -> 10."""
    assert su.dragonkin_allowance(36) == 12
    assert su.dragonkin_allowance(35) == 11
    assert su.dragonkin_allowance(36, dracolem_points=6) == 10


def test_v4_09_minor_terrain_allowance():
    """V4-09: 2-player game (3 terrains) -> 4; 3-player game (4 terrains) -> 5."""
    assert su.minor_terrain_allowance(2) == 4
    assert su.minor_terrain_allowance(3) == 5


def test_dragonkin_and_minor_terrains_start_in_the_summoning_pool():
    setup = plain_setup(force=15)
    setup["players"][0]["dragonkin"] = ["Dragonkin/Dragontroop (Death)"] * 5  # 5 health: 15 // 3 allows 5
    setup["players"][0]["minor_terrains"] = [
        "Deadland Bridge",
        "Coastland Bridge",
        "Deadland Knoll",
        "Deadland Woods",
    ]
    game = Game(setup)
    pool = game.state.area("p1", "pool")
    assert sorted({u.spec.kind for u in pool}) == ["dragon", "minor_terrain", "unit"]
    setup["players"][0]["dragonkin"] = ["Dragonkin/Dragontroop (Death)"] * 4 + [
        "Dragonkin/Dragonmount (Death)"
    ]
    with pytest.raises(IllegalSetup, match="6 health of Dragonkin.*allows 5"):
        Game(setup)
    setup["players"][0]["dragonkin"] = []
    setup["players"][0]["minor_terrains"] = ["Deadland Bridge"] * 5
    with pytest.raises(IllegalSetup, match="allows 4"):
        Game(setup)
    setup["players"][0]["minor_terrains"] = ["Dwarves/Footman"]
    with pytest.raises(IllegalSetup, match="not a minor terrain"):
        Game(setup)
