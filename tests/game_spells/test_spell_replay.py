"""Spells are decisions as data: replaying the accepted actions rebuilds the same game (the session
log replays events), spell rolls, Dispel Magic and death-hook choices included."""

from __future__ import annotations

from spell_support import cast_spells, faces_for, new_game, run_until, units_at

from companion.rules.game import Game


def _recording(game: Game) -> list[dict]:
    actions: list[dict] = []
    original = game.apply

    def apply(action, rng=None):
        out = original(action, rng=rng)
        actions.append({k: v for k, v in out.items() if k != "log"})
        return out

    game.apply = apply
    return actions


def test_replaying_a_turn_of_spells_gives_the_same_state():
    """V4.01c L470-480: the same announcements and rolls give the same game."""
    g = new_game(species=("Coral Elves", "Dwarves"))
    g.state.terrains["home-p1"].face = 1  # a magic face (the helper would set it)
    actions = _recording(g)
    target = units_at(g, "p2", "home-p1")[0]
    cast_spells(
        g, [{"spell": "Hailstorm", "target": "p2@home-p1"}, {"spell": "Lightning Strike", "target": target}]
    )
    d = g.pending
    g.apply({"type": "roll", "faces": faces_for(d, "save", "zero")})
    run_until(g, lambda d: g.state.marching == "p1" and g.state.turn == 3)
    # Replay from the start: the set-up answers, then the recorded ones.
    fresh = new_game(species=("Coral Elves", "Dwarves"))
    fresh.state.terrains["home-p1"].face = 1
    for action in actions:
        fresh.apply(action)
    assert fresh.state.to_dict() == g.state.to_dict()
    assert fresh.log[-5:] == g.log[-5:]
