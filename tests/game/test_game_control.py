"""Capture, loss of control, eighth-face icons, elimination (V4.01c L499-535, L11-14, L2490-2505)."""

from __future__ import annotations

import pytest
from game_support import choose, ids_then_zero, plain_setup, roll, run_until, setup_done

from companion.rules.core.state import DUA, RESERVE
from companion.rules.game import Game, GameOver


def started(faces=None, n_players: int = 2, **kw) -> Game:
    game = Game(plain_setup(n_players=n_players, **kw))
    setup_done(game, faces)
    return game


def control(game: Game, tid: str, pid: str) -> None:
    game.state.terrains[tid].face = 8
    game.state.terrains[tid].controller = pid


def test_capture_on_the_eighth_face():
    game = started({"frontier": 6})
    game.state.terrains["frontier"].face = 7
    choose(game, "p1@frontier")
    choose(game, "maneuver")
    choose(game, "no")
    choose(game, "up")
    t = game.state.terrains["frontier"]
    assert t.face == 8 and t.controller == "p1"
    assert any("captures Coastland Tower" in line for line in game.log)
    # The capturing army may now take any action (V4.01c L508-510).
    assert {c["value"] for c in game.pending.choices} == {"melee", "missile", "magic", "skip"}


def test_out_maneuvered_controller_loses_control():
    game = started({"frontier": 3})
    control(game, "frontier", "p1")
    run_until(game, lambda d: d.player == "p2" and "first march" in d.prompt)
    choose(game, "p2@frontier")
    choose(game, "maneuver")
    choose(game, "counter")  # Alice counter-maneuvers and loses
    roll(game, "max")
    game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "maneuver", 0)})
    d = game.pending
    assert [c["value"] for c in d.choices] == ["down"]
    choose(game, "down")
    t = game.state.terrains["frontier"]
    assert t.face == 7 and t.controller is None
    assert any("out-maneuvered" in line for line in game.log)


def test_abandoned_terrain_turns_back_to_seven():
    game = started({"frontier": 3})
    control(game, "frontier", "p1")
    d = run_until(game, lambda d: d.kind == "retreat" and d.player == "p1")
    mine = [u.uid for u in game.state.army("p1", "frontier").units]
    game.apply({"type": "retreat", "units": mine})
    t = game.state.terrains["frontier"]
    assert t.face == 7 and t.controller is None
    assert d.rule == "V4.01c L489-491"


def test_destroyed_controlling_army_loses_control():
    game = started({"frontier": 3, "home-p2": 6})
    st = game.state
    control(game, "frontier", "p2")
    # Alice's campaign fights Bob's army that controls the frontier: melee is the only action there.
    choose(game, "p1@frontier")
    choose(game, "skip")
    assert {c["value"] for c in game.pending.choices} == {"melee", "skip"}
    choose(game, "melee")
    game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "melee", 5)})
    # Bob's controlling army doubles its IDs (V4.01c L507): zero faces still give zero saves.
    game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "save", 0)})
    assert st.army("p2", "frontier").units == ()
    t = st.terrains["frontier"]
    assert t.face == 7 and t.controller is None


def test_controller_ids_are_doubled():
    game = started({"frontier": 3})
    control(game, "frontier", "p1")
    choose(game, "p1@frontier")
    choose(game, "maneuver")
    choose(game, "counter")
    game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "maneuver", 2)})
    assert game.state.last_roll["total"] == 4  # two 1-health IDs, doubled at the eighth face


def test_second_capture_wins_at_once_and_nothing_more_is_accepted():
    game = started({"frontier": 6})
    game.state.terrains["frontier"].face = 7
    control(game, "home-p2", "p1")
    choose(game, "p1@frontier")
    choose(game, "maneuver")
    choose(game, "no")
    choose(game, "up")
    st = game.state
    assert st.winner == "p1" and game.pending is None
    with pytest.raises(GameOver):
        game.apply({"type": "choose", "choice": "skip"})


def test_city_recruits_or_promotes_in_the_eighth_face_phase():
    game = started({"frontier": 3})
    st = game.state
    control(game, "home-p1", "p1")  # Highland City
    small = [u for u in st.army("p1", "frontier").units][:1]
    st.location[small[0].uid] = DUA
    d = run_until(game, lambda d: d.player == "p1" and "City" in d.prompt)
    values = [c["value"] for c in d.choices]
    assert "none" in values and f"recruit:{small[0].uid}" in values
    choose(game, f"recruit:{small[0].uid}")
    assert st.location[small[0].uid] == "home-p1"


def test_temple_forces_another_player_to_bury():
    game = started({"frontier": 3})
    st = game.state
    control(game, "home-p2", "p1")  # Swampland Temple
    dead = [u.uid for u in st.army("p2", "frontier").units][:2]
    for uid in dead:
        st.location[uid] = DUA
    d = run_until(game, lambda d: d.player == "p1" and "Temple" in d.prompt)
    choose(game, "p2")
    d = game.pending
    assert d.player == "p2" and "bury" in d.prompt
    choose(game, d.choices[0]["value"])
    assert len(st.area("p2", "bua")) == 1 and len(st.area("p2", DUA)) == 1


def test_eliminated_player_turns_are_skipped_and_spells_expire():
    game = started({"frontier": 6, "home-p1": 6, "home-p2": 6, "home-p3": 6}, n_players=3)
    st = game.state
    carol_units = [u.uid for a in st.armies("p3") for u in a.units]
    keep = carol_units[0]
    where = st.location[keep]
    for uid in carol_units[1:]:
        st.location[uid] = DUA
    effect = game.add_effect("Stone Skin", "p3", f"p3@{where}")
    theirs = next(a for a in st.armies("p1") if a.location == where)
    choose(game, "pass")
    choose(game, theirs.id)
    choose(game, "skip")
    choose(game, "melee")
    if game.pending.kind == "choice":
        choose(game, "p3@" + where)
    game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "melee", 3)})
    game.apply({"type": "roll", "faces": ids_then_zero(game.pending, "save", 0)})
    assert st.player("p3").eliminated
    assert effect not in st.effects  # its army is gone: the spell ends (V4.01c L1068-1074)
    assert st.winner is None
    # Bob plays, then Alice: Carol's turn is skipped.
    run_until(game, lambda d: d.player == "p2" and "first march" in d.prompt)
    run_until(game, lambda d: d.player == "p1" and "first march" in d.prompt)
    assert st.marching == "p1"
    assert not any(d for d in [game.pending] if d.player == "p3")


def test_reserve_units_keep_a_player_alive():
    game = started({"frontier": 6})
    st = game.state
    bob = [u.uid for a in st.armies("p2") for u in a.units]
    for uid in bob[1:]:
        st.location[uid] = DUA
    st.location[bob[0]] = RESERVE
    game.check_control_and_elimination()
    assert not st.player("p2").eliminated and st.winner is None
