"""Complete scripted games, from set-up to a winner: 2 and 3 players, by capture and by elimination.

Every decision is answered through ``Game.apply``: no state is edited by hand.  Alice plays to
win; the others answer passively (no counter-maneuvers, no counter-attacks, zero rolls).
"""

from __future__ import annotations

from game_support import faces_for, ids_then_zero, passive_policy, plain_setup

from companion.rules.game import Game


def scripted(game: Game, goal: str, starting: dict[str, int], attacker: str = "p1"):
    def policy(d):
        st = game.state
        if d.kind == "roll":
            roll = d.data["roll"]
            if roll == "terrain":
                return {"type": "roll", "faces": [str(starting.get(d.data["terrain"], 3))]}
            if "order of play" in d.prompt:
                k = st.player_ids.index(d.player)
                return {"type": "roll", "faces": ids_then_zero(d, "maneuver", len(st.players) - k)}
            mode = "max" if d.player == attacker else "zero"
            return {"type": "roll", "faces": faces_for(d, roll, mode)}
        if d.player != attacker or d.kind != "choice":
            return passive_policy(d)
        values = [c["value"] for c in d.choices]
        if "first_turn" in values:
            return {"type": "choose", "choice": "first_turn"}
        if "march: which army" in d.prompt:
            for v in values:
                loc = v.split("@", 1)[1] if "@" in v else None
                if loc is None or loc == "reserve":
                    continue
                t = st.terrains[loc]
                enemies = [a for a in st.armies_at(loc) if a.owner != attacker]
                if (
                    goal == "capture"
                    and not (t.face == 8 and t.controller == attacker)
                    and loc != f"home-{attacker}"
                ):
                    return {"type": "choose", "choice": v}
                if goal == "eliminate" and enemies and t.action() in ("melee", None):
                    return {"type": "choose", "choice": v}
            return {"type": "choose", "choice": "pass"}
        if "maneuver at" in d.prompt:
            return {"type": "choose", "choice": "maneuver" if goal == "capture" else "skip"}
        if "up or down" in d.prompt:
            return {"type": "choose", "choice": "up"}
        if "action with" in d.prompt:
            return {
                "type": "choose",
                "choice": "melee" if goal == "eliminate" and "melee" in values else "skip",
            }
        return {"type": "choose", "choice": values[0]}

    events = 0
    while game.pending is not None:
        game.apply(policy(game.pending))
        events += 1
        assert events < 5000
    return events


def test_two_player_game_won_by_capture():
    game = Game(plain_setup())
    n = scripted(game, "capture", {"home-p1": 3, "home-p2": 4, "frontier": 4})
    st = game.state
    assert st.winner == "p1" and "second terrain" in st.win_reason
    assert sorted(t.id for t in st.captured_by("p1")) == ["frontier", "home-p2"]
    assert st.phase == "game_over"
    # The game ends at once, mid-march: the capturing march never reached its action step.
    assert game.log[-1].endswith("Alice wins (V4.01c L11-14)")
    assert st.turn == 7  # four of Alice's turns (4 -> 8 on both terrains), three of Bob's
    assert n > 50


def test_two_player_game_won_by_elimination():
    game = Game(plain_setup())
    scripted(game, "eliminate", {"home-p1": 6, "home-p2": 5, "frontier": 6})
    st = game.state
    assert st.winner == "p1" and "last surviving" in st.win_reason
    assert st.player("p2").eliminated
    assert st.units_in_play("p2") == []
    assert len([u for u in st.area("p2", "dua") if u.is_unit]) == 15
    assert all(len(a.units) for a in st.armies("p1"))


def test_three_player_game_won_by_capture():
    game = Game(plain_setup(n_players=3))
    scripted(game, "capture", {"home-p1": 3, "home-p2": 5, "home-p3": 5, "frontier": 5})
    st = game.state
    assert st.winner == "p1" and len(st.captured_by("p1")) == 2
    assert not st.player("p2").eliminated and not st.player("p3").eliminated


def test_three_player_game_won_by_elimination_skips_eliminated_players():
    game = Game(plain_setup(n_players=3))
    # A spell of Bob's: it must expire when Bob's skipped turn comes round (V4.01c L2504-2505).
    scripted_until_first_march(game, {"home-p1": 6, "home-p2": 6, "home-p3": 6, "frontier": 6})
    game.add_effect("Palsy", "p2", "p1@home-p1")
    scripted(game, "eliminate", {})
    st = game.state
    assert st.winner == "p1"
    assert st.player("p2").eliminated and st.player("p3").eliminated
    assert not any(e.owner == "p2" for e in st.effects)
    eliminated_at = [i for i, line in enumerate(game.log) if "is eliminated" in line and "no units" in line]
    assert len(eliminated_at) == 2
    # After Bob's elimination he never marches again.
    first_out = min(eliminated_at)
    who = game.log[first_out].split(" ")[0]
    assert not any(
        line.startswith(f"{who}'s army") and "rolled" in line for line in game.log[first_out + 1 :]
    )


def scripted_until_first_march(game: Game, starting: dict[str, int]) -> None:
    while game.state.phase == "setup":
        d = game.pending
        if d.kind == "roll" and d.data["roll"] == "terrain":
            game.apply({"type": "roll", "faces": [str(starting[d.data["terrain"]])]})
        elif d.kind == "choice" and "first_turn" in [c["value"] for c in d.choices]:
            game.apply({"type": "choose", "choice": "first_turn"})
        else:
            game.apply(passive_policy(d))
