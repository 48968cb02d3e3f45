"""Typed errors of the Battle Dice engine.  Raising any of them leaves the game unchanged."""

from __future__ import annotations


class BattleDiceError(ValueError):
    """Base class for every Battle Dice error."""


class SetupError(BattleDiceError):
    """An army list or option set that the rules do not allow."""


class IllegalAction(BattleDiceError):
    """An action that does not answer the pending decision."""


class WrongPlayer(IllegalAction):
    """The action names a player who is not the one asked."""


class BadFaces(IllegalAction):
    """Faces that cannot be on the dice asked for (count or value)."""


class BadChoice(IllegalAction):
    """A choice outside the legal choices of the pending decision."""


class GameOver(IllegalAction):
    """The game has ended; no action is expected."""


class ReplayMismatch(BattleDiceError):
    """A stored game whose snapshot differs from replaying its actions."""
