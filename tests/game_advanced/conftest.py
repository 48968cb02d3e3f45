"""The advanced-components tests reuse the game-flow test helpers (tests/game/game_support.py)."""

from __future__ import annotations

import sys
from pathlib import Path

_GAME_TESTS = Path(__file__).resolve().parent.parent / "game"
if str(_GAME_TESTS) not in sys.path:
    sys.path.insert(0, str(_GAME_TESTS))
