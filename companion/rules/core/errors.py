"""Typed errors of the game flow.

Every error says what is illegal, why, and which rule forbids it (``rule`` holds the citation,
e.g. ``"V4.01c L370-389"``).  The engine raises them *before* changing anything, so a caught
error leaves the game exactly as it was (python-chess style: an illegal move is refused, the
board is untouched).
"""

from __future__ import annotations


class GameRuleError(ValueError):
    """Base class: an input the rules do not allow.  ``rule`` cites the rule, if any."""

    def __init__(self, message: str, rule: str | None = None):
        self.rule = rule
        self.reason = message
        super().__init__(f"{message} ({rule})" if rule else message)


class IllegalSetup(GameRuleError):
    """A force, army, terrain or placement that the set-up rules (V4.01c L276-347) forbid."""


class IllegalAction(GameRuleError):
    """An action that does not answer the pending decision, or that the rules forbid now."""


class IllegalChoice(IllegalAction):
    """A choice that is not among the legal choices of the pending decision."""


class IllegalRoll(IllegalAction):
    """Faces that do not fit the dice that must be rolled (wrong count, impossible face)."""


class IllegalAllocation(IllegalAction):
    """A set of units to kill that does not follow the damage rule (V4.01c L1113)."""


class IllegalSpell(IllegalAction):
    """A spell announcement the magic rules forbid (element, species, reserve, cost, target)."""


class GameOver(IllegalAction):
    """The game has a winner; nothing more can be submitted."""
