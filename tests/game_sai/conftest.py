"""Test helpers of the game-flow tests (tests/game) and the SAI arena (this folder) are importable."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (HERE, HERE.parent / "game"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
