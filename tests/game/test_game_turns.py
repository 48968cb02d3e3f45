"""Turn sequence, marches, maneuver and counter-maneuver, actions and targeting (V4.01c L349-497).

Worked-example cases: V4-12, FAQ95-05, FAQ95-06, FAQ96-14, FAQ95-08, FAQ96-16, R96-36, R96-11.
"""

from __future__ import annotations

import pytest
from game_support import (
    choose,
    ids_then_zero,
    is_prompt,
    plain_setup,
    roll,
    run_until,
    setup_done,
)

from companion.rules.core.state import RESERVE, UNTIL_YOUR_NEXT_TURN
from companion.rules.game import Game, IllegalAction, IllegalChoice


def started(n_players: int = 2, faces=None, **kw) -> Game:
    game = Game(plain_setup(n_players=n_players, **kw))
    setup_done(game, faces)
    return game


def units(game: Game, pid: str, location: str) -> list[str]:
    return [u.uid for u in game.state.army(pid, location).units]


def move(game: Game, uids, location: str) -> None:
    for uid in uids:
        game.state.location[uid] = location


def to_second_march(game: Game) -> None:
    """From the marching player's first-march decision, pass it (state edits made before this
    are seen by the second march)."""
    d = game.pending
    assert "first march" in d.prompt
    choose(game, "pass")


def test_turn_phases_in_order_and_effects_expire_at_their_owners_turn():
    game = started()
    st = game.state
    assert st.phase == "first_march" and st.marching == "p1" and st.turn == 1
    mine = game.add_effect("Stone Skin", "p1", "p1@frontier", UNTIL_YOUR_NEXT_TURN)
    theirs = game.add_effect("Palsy", "p2", "p1@frontier", UNTIL_YOUR_NEXT_TURN)
    run_until(game, lambda d: d.player == "p2" and "first march" in d.prompt)
    # Bob's turn began: his Palsy expired (phase 1), Alice's Stone Skin lasts until her next turn.
    assert [e.id for e in st.effects] == [mine.id]
    assert any("Palsy" in line and "expires" in line for line in game.log)
    assert theirs.id not in [e.id for e in st.effects]
    run_until(game, lambda d: d.player == "p1" and "first march" in d.prompt)
    assert [e.name for e in st.effects] == []
    assert st.turn == 3


def test_v4_12_maneuver_must_move_the_terrain_one_step():
    """V4-12: a terrain on 4 must become 3 or 5."""
    game = started(faces={"frontier": 4})
    choose(game, "p1@frontier")
    choose(game, "maneuver")
    d = game.pending  # Bob may counter
    assert d.player == "p2" and "counter-maneuver" in d.prompt
    choose(game, "no")
    d = game.pending
    assert {c["value"] for c in d.choices} == {"up", "down"}
    assert sorted(c["label"][-1] for c in d.choices) == ["3", "5"]
    with pytest.raises(IllegalChoice):
        choose(game, "stay")
    choose(game, "down")
    assert game.state.terrains["frontier"].face == 3


def test_faq96_14_zero_against_zero_succeeds():
    game = started(faces={"frontier": 4})
    choose(game, "p1@frontier")
    choose(game, "maneuver")
    choose(game, "counter")
    roll(game, "zero")
    roll(game, "zero")
    assert game.pending.prompt.endswith("turn Coastland Tower up or down?")


@pytest.mark.parametrize(
    "mine,counters,succeeds", [((5,), (4, 5), True), ((4,), (4, 5), False), ((5,), (3, 3), True)]
)
def test_faq95_05_counter_maneuvers_compared_one_by_one(mine, counters, succeeds):
    """FAQ95-05: 5 vs 4 and 5 succeeds (tie to the marcher); 4 vs 4 and 5 fails; counters are
    never summed (5 vs 3 + 3 succeeds)."""
    game = started(n_players=3, faces={"frontier": 4})
    st = game.state
    # Every player's campaign army at the Frontier.
    for pid in ("p1", "p2", "p3"):
        camp = [a for a in st.armies(pid, include_reserve=False) if a.location not in ("home-" + pid,)]
        if not units(game, pid, "frontier"):
            move(game, [u.uid for u in camp[-1].units], "frontier")
        assert len(units(game, pid, "frontier")) >= 5
    to_second_march(game)
    choose(game, "p1@frontier")
    choose(game, "maneuver")
    assert game.pending.player == "p2"
    choose(game, "counter")
    assert game.pending.player == "p3"
    choose(game, "counter")
    totals = [mine[0], *counters]
    for total in totals:
        d = game.pending
        game.apply({"type": "roll", "faces": ids_then_zero(d, "maneuver", total)})
    if succeeds:
        assert "up or down" in game.pending.prompt
    else:
        assert game.state.terrains["frontier"].face == 4
        assert "action" in game.pending.prompt


def test_no_opponent_there_means_no_roll():
    game = started(faces={"home-p1": 4})
    st = game.state
    move(game, units(game, "p2", "home-p1"), "frontier")  # Bob's horde leaves Alice's home
    to_second_march(game)
    choose(game, "p1@home-p1")
    choose(game, "maneuver")
    assert "up or down" in game.pending.prompt
    assert st.last_roll["army"] != "p1@home-p1"


def test_faq95_06_one_march_per_army():
    """FAQ95-06: an army that marched in March 1 cannot march in March 2."""
    game = started()
    choose(game, "p1@frontier")
    run_until(game, is_prompt("second march"))
    d = game.pending
    values = [c["value"] for c in d.choices]
    assert "p1@frontier" not in values and "p1@home-p1" in values
    assert game.state.marched == {"p1@frontier"}


def test_faq95_06_single_army_gets_one_march():
    game = started()
    st = game.state
    for uid in [u.uid for a in st.armies("p1") for u in a.units if a.location != "frontier"]:
        st.location[uid] = "frontier"
    choose(game, "p1@frontier")  # first march
    choose(game, "skip")  # maneuver
    choose(game, "skip")  # action
    # No army left to march: the second march is skipped, the Reserves phase follows.
    assert game.pending.kind == "retreat" and game.state.phase == "reserves"


def test_r96_36_terrain_face_dictates_the_action():
    """R96-36: on a missile face only missile; melee face only melee; magic face only magic."""
    for face, action in ((2, "missile"), (6, "melee"), (1, "magic")):
        game = started(faces={"frontier": face})
        choose(game, "p1@frontier")
        choose(game, "skip")
        values = {c["value"] for c in game.pending.choices}
        assert values == {action, "skip"}, (face, values)


def test_eighth_face_controller_any_action_opponent_melee_only():
    game = started(faces={"frontier": 3})
    st = game.state
    st.terrains["frontier"].face, st.terrains["frontier"].controller = 8, "p1"
    to_second_march(game)
    choose(game, "p1@frontier")
    choose(game, "skip")
    assert {c["value"] for c in game.pending.choices} == {"melee", "missile", "magic", "skip"}
    run_until(game, lambda d: d.player == "p2" and "first march" in d.prompt)
    choose(game, "p2@frontier")
    choose(game, "skip")
    assert {c["value"] for c in game.pending.choices} == {"melee", "skip"}


def test_reserve_army_takes_magic_only_and_no_maneuver():
    game = started()
    move(game, units(game, "p1", "home-p1")[:2], RESERVE)
    to_second_march(game)
    choose(game, "p1@reserve")
    d = game.pending
    assert {c["value"] for c in d.choices} == {"magic", "skip"}


def missile_targets(game: Game, pid: str, location: str) -> set[str]:
    return {a.id for a in game._missile_targets(pid, location)}


def test_faq95_08_missile_range():
    """FAQ95-08: home -> other home out of range; home -> frontier and frontier -> home in range;
    reserves never (V4.01c L427-433)."""
    game = started(n_players=3)
    st = game.state
    move(game, units(game, "p2", "home-p2")[:1], RESERVE)
    move(game, units(game, "p2", "home-p2")[:1], "frontier")
    from_home = missile_targets(game, "p1", "home-p1")
    assert not any(t.endswith("@home-p2") or t.endswith("@home-p3") for t in from_home)
    assert any(t.endswith("@frontier") for t in from_home)
    assert "p2@reserve" not in from_home
    from_frontier = missile_targets(game, "p1", "frontier")
    assert "p2@home-p2" in from_frontier and "p2@reserve" not in from_frontier
    assert st.terrains["home-p1"].role == "home"


def test_faq96_16_tower_shoots_home_to_home_and_reserves():
    """FAQ96-16 / V4.01c L533-535: an army controlling a Tower may target any opponent army."""
    setup_homes = ["Coastland Tower", "Swampland Temple"]
    game = started(homes=setup_homes, frontiers=["Highland City", "Wasteland Temple"])
    st = game.state
    move(game, units(game, "p2", "home-p2")[:1], RESERVE)
    assert "p2@home-p2" not in missile_targets(game, "p1", "home-p1")
    st.terrains["home-p1"].face, st.terrains["home-p1"].controller = 8, "p1"
    assert {"p2@home-p2", "p2@reserve"} <= missile_targets(game, "p1", "home-p1")
    # Against the reserve army only non-ID missile results count.
    to_second_march(game)
    choose(game, "p1@home-p1")
    choose(game, "skip")
    choose(game, "missile")
    choose(game, "p2@reserve")
    d = game.pending
    game.apply({"type": "roll", "faces": ids_then_zero(d, "missile", len(d.dice))})
    assert st.last_roll["total"] == 0  # IDs, all of them: nothing counts against a Reserve army


def test_melee_attack_save_damage_and_counter_attack():
    game = started(faces={"frontier": 6})
    st = game.state
    choose(game, "p1@frontier")
    choose(game, "skip")
    choose(game, "melee")
    d = game.pending
    assert d.player == "p1" and d.data["roll"] == "melee"
    game.apply({"type": "roll", "faces": ids_then_zero(d, "melee", 3)})  # 3 melee
    d = game.pending
    assert d.player == "p2" and d.data["roll"] == "save"
    game.apply({"type": "roll", "faces": ids_then_zero(d, "save", 1)})  # 1 save -> 2 damage
    d = game.pending
    assert d.kind == "allocate" and d.data["damage"] == 2 and d.data["health_to_kill"] == 2
    with pytest.raises(IllegalAction, match="does not cover"):
        game.apply({"type": "allocate", "units": d.choices[0]["value"][:1]})
    game.apply({"type": "allocate", "units": d.choices[0]["value"]})
    assert len(st.area("p2", "dua")) == 2
    d = game.pending
    assert d.player == "p2" and "counter-attack" in d.prompt
    choose(game, "counter")
    d = game.pending
    assert d.player == "p2" and d.data["roll"] == "melee"
    roll(game, "zero")
    # No melee results: no save roll, no damage; the action ends (second march next).
    assert "second march" in game.pending.prompt


def test_damage_that_cannot_be_covered_kills_nothing():
    """R96-12 / V4.01c L1113 in the flow: 1 damage against 2-health units kills nothing."""
    setup = plain_setup()
    setup["players"][1]["armies"]["campaign"] = ["Goblins/Cutthroat", "Goblins/Ambusher", "Goblins/Thug"]
    game = Game(setup)
    setup_done(game, {"frontier": 6})
    st = game.state
    thug = next(u.uid for u in st.army("p2", "frontier").units if u.health == 1)
    st.location[thug] = RESERVE
    to_second_march(game)
    choose(game, "p1@frontier")
    choose(game, "skip")
    choose(game, "melee")
    game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "melee", 5)})
    game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "save", 2)})  # two 2-health IDs: 4 saves
    assert st.last_roll["total"] == 4
    assert any("5 melee - 4 saves = 1 damage" in line for line in game.log)
    assert any("cannot kill any unit without excess" in line for line in game.log)
    assert st.area("p2", "dua") == []
    assert "counter-attack" in game.pending.prompt


def test_r96_11_reserves_phase_reinforce_then_retreat():
    """R96-11: 2 reserve units to home, 1 to campaign; the whole horde retreats to reserve."""
    game = started()
    st = game.state
    reserve = units(game, "p1", "home-p1")[:3]
    move(game, reserve, RESERVE)
    home_before = len(units(game, "p1", "home-p1"))
    camp_before = len(units(game, "p1", "frontier"))
    horde = units(game, "p1", "home-p2")
    d = run_until(game, lambda d: d.kind == "reinforce")
    assert set(d.data["units"]) == set(reserve)
    with pytest.raises(IllegalAction, match="not one of your units in the Reserve"):
        game.apply({"type": "reinforce", "moves": {horde[0]: "frontier"}})
    game.apply(
        {"type": "reinforce", "moves": {reserve[0]: "home-p1", reserve[1]: "home-p1", reserve[2]: "frontier"}}
    )
    d = game.pending
    assert d.kind == "retreat"
    game.apply({"type": "retreat", "units": horde})
    assert len(units(game, "p1", "home-p1")) == home_before + 2
    assert len(units(game, "p1", "frontier")) == camp_before + 1
    assert units(game, "p1", "home-p2") == []
    assert sorted(units(game, "p1", RESERVE)) == sorted(horde)
    assert st.marching == "p2"


def test_wrong_answer_type_and_wrong_player_change_nothing():
    game = started()
    before = game.state.to_dict()
    d = game.pending
    with pytest.raises(IllegalAction, match="must answer"):
        game.apply({"type": "roll", "faces": []})
    with pytest.raises(IllegalAction, match="decision, not"):
        game.apply({"type": "choose", "choice": "pass", "player": "p2"})
    with pytest.raises(IllegalAction):
        game.apply("pass")
    assert game.state.to_dict() == before and game.pending is d


def test_roll_faces_validation():
    game = Game(plain_setup())
    d = game.pending
    with pytest.raises(IllegalAction, match="5 dice must be rolled"):
        game.apply({"type": "roll", "faces": ["ID"]})
    with pytest.raises(IllegalAction, match="has no face"):
        game.apply({"type": "roll", "faces": ["7 Melee"] * 5})
    with pytest.raises(IllegalAction, match="faces 1-6"):
        game.apply({"type": "roll", "faces": [7] * 5})
    game.apply({"type": "roll", "faces": [1, "id", "ID", 1, 1]})  # numbers and texts, case-insensitive
    assert game.state.last_roll["total"] == 5
    assert game.pending is not d
