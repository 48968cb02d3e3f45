"""Typed errors of the Battle Dice engine.  Raising any of them leaves the game unchanged.

They belong to the rules' one error hierarchy (``companion.rules.core.errors``): every Battle Dice
error is a ``GameRuleError``, an illegal action an ``IllegalAction`` and the end of the game a
``GameOver``, so the session and the page treat the three games' errors alike.
"""

from __future__ import annotations

from ..core.errors import GameOver, GameRuleError, IllegalAction


class BattleDiceError(GameRuleError):
    """Base class for every Battle Dice error."""


class SetupError(BattleDiceError):
    """An army list or option set that the rules do not allow."""


class IllegalBattleAction(BattleDiceError, IllegalAction):
    """An action that does not answer the pending decision."""


class WrongPlayer(IllegalBattleAction):
    """The action names a player who is not the one asked."""


class BadFaces(IllegalBattleAction):
    """Faces that cannot be on the dice asked for (count or value)."""


class BadChoice(IllegalBattleAction):
    """A choice outside the legal choices of the pending decision."""


class BattleOver(IllegalBattleAction, GameOver):
    """The game has ended; no action is expected."""


class ReplayMismatch(BattleDiceError):
    """A stored game whose snapshot differs from replaying its actions."""
