"""Battle Dice: a second dice war game (d4-d20), played with the same companion.

Rules source: the Battle Dice document ("BD", ``004_5d0afb5f0f94fc9d.txt``), cited by line.
Pure: no I/O, no clock; randomness only as faces or a seed passed in with an action.

- :mod:`.tables`    unit types, the Tactics/Spell/Maneuver tables and the 14 monster tables, as data
- :mod:`.rulings`   how the document's gaps are settled, and the options that override them
- :mod:`.setup`     army lists (equal dice counts, one monster type)
- :mod:`.decisions` decisions as data and checking the answers
- :mod:`.board`     the table state; :mod:`.effects` and :mod:`.phases` the rules
- :mod:`.game`      the session-facing API (``new_game``, ``pending``, ``apply``, ``state_to_dict``)
"""

from .errors import (
    BadChoice,
    BadFaces,
    BattleDiceError,
    BattleOver,
    IllegalBattleAction,
    ReplayMismatch,
    SetupError,
    WrongPlayer,
)
from .game import (
    BattleGame,
    apply,
    new_game,
    pending,
    random_action,
    roll_for_me,
    state_from_dict,
    state_to_dict,
    undo,
)
from .rulings import RULINGS, resolve_options

__all__ = [
    "RULINGS",
    "BadChoice",
    "BadFaces",
    "BattleDiceError",
    "BattleGame",
    "BattleOver",
    "IllegalBattleAction",
    "ReplayMismatch",
    "SetupError",
    "WrongPlayer",
    "apply",
    "new_game",
    "pending",
    "random_action",
    "resolve_options",
    "roll_for_me",
    "state_from_dict",
    "state_to_dict",
    "undo",
]
