"""Game flow, V4.01c: state value types, set-up steps 1-5, the seven-phase turn, decisions as data.

    >>> from companion.rules.game import Game, quick_setup
    >>> game = Game(quick_setup({"force_size": 24, "players": [{"name": "Alice"}, {"name": "Bob"}]}))
    >>> game.pending.kind, game.pending.player
    ('roll', 'p1')

Pure: no I/O, no clock; randomness only from a ``random.Random`` passed in (``roll_for_me``).
"""

from ..core.decisions import Decision
from ..core.errors import (
    GameOver,
    GameRuleError,
    IllegalAction,
    IllegalAllocation,
    IllegalChoice,
    IllegalRoll,
    IllegalSetup,
    IllegalSpell,
)
from ..core.state import Army, DieSpec, Effect, GameState, TerrainState, Unit
from .flow import Game, play_random, random_answer
from .quickstart import quick_setup

__all__ = [
    "Army",
    "Decision",
    "DieSpec",
    "Effect",
    "Game",
    "GameOver",
    "GameRuleError",
    "GameState",
    "IllegalAction",
    "IllegalAllocation",
    "IllegalChoice",
    "IllegalRoll",
    "IllegalSetup",
    "IllegalSpell",
    "TerrainState",
    "Unit",
    "play_random",
    "quick_setup",
    "random_answer",
]
