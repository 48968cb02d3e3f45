"""Helpers for the spell and DUA tests: a game at Alice's first march, dice put where a test wants
them, and a driver that casts spells through the real flow (march, magic roll, announcement)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "game"))

from game_support import faces_for, passive_policy, plain_setup, run_until, setup_done  # noqa: E402

from companion.rules.game import Game  # noqa: E402
from companion.rules.game.state import Unit, spec_for  # noqa: E402

RULEBOOK = "V4.01c"

__all__ = ["add_die", "answer", "cast_spells", "faces_for", "new_game", "passive_policy", "run_until", "units_at"]


def new_game(species=("Undead", "Treefolk"), force: int = 24) -> Game:
    """Alice (p1) and Bob (p2), 8 small units per army; Alice's first march is pending.
    Terrains: home-p1 Highland City (face 3: magic), home-p2 Swampland Temple, frontier Coastland Tower."""
    game = Game(plain_setup(force=force, shares=(8, 8, 8), species=list(species)))
    setup_done(game)
    return game


def add_die(game: Game, owner: str, name: str, location: str) -> str:
    """Put one more die of `owner` at `location` (terrain id, 'reserve', 'dua', 'bua', 'pool')."""
    st = game.state
    uid = f"x{len(st.units) + 1}"
    while uid in st.units:
        uid += "x"
    st.units[uid] = Unit(uid, owner, spec_for(name))
    st.location[uid] = location
    return uid


def units_at(game: Game, owner: str, location: str) -> list[str]:
    return [u.uid for u in game.state.dice_at(owner, location) if u.is_unit]


def clear_army(game: Game, owner: str, location: str, keep: int = 0, to: str = "bua") -> None:
    """Move all but `keep` units of an army out of play (to the BUA by default)."""
    for uid in units_at(game, owner, location)[keep:]:
        game.state.location[uid] = to


def answer(game: Game, value) -> dict:
    d = game.pending
    if d.kind == "choice":
        return game.apply({"type": "choose", "choice": value})
    if d.kind == "roll":
        return game.apply({"type": "roll", "faces": value})
    if d.kind == "allocate":
        return game.apply({"type": "allocate", "units": value})
    raise AssertionError(f"cannot answer {d.kind}")


def cast_spells(game: Game, spells: list[dict], location: str = "home-p1", faces: list[str] | None = None) -> dict:
    """From Alice's pending first march: march with her army at `location`, skip the maneuver, take
    the magic action (the terrain is set to a magic face), roll `faces` (default: most magic) and
    announce `spells`.  Returns the accepted cast action."""
    st = game.state
    pid = "p1"
    if location in st.terrains:
        st.terrains[location].face = next(i for i in range(1, 8) if st.terrains[location].kind.action_at(i) == "magic")
    d = game.pending
    assert d.topic == "march", d.prompt
    game.apply({"type": "choose", "choice": f"{pid}@{location}"})
    if location in st.terrains:
        game.apply({"type": "choose", "choice": "skip"})
    d = game.pending
    if d.topic == "action":
        game.apply({"type": "choose", "choice": "magic"})
    d = game.pending
    assert d.kind == "roll" and d.data["roll"] == "magic", d.prompt
    game.apply({"type": "roll", "faces": faces or faces_for(d, "magic", "max")})
    d = game.pending
    assert d.topic == "cast", d.prompt
    return game.apply({"type": "cast", "spells": spells})
