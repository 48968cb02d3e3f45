"""Ids of the things a game talks about, as small value types (python-chess style).

An army is one player's dice at one place: ``ArmyId("p1", "frontier")``, written ``"p1@frontier"``
(``str(army_id)``) and read back with ``ArmyId.parse(text)``, which raises ``InvalidId`` (naming the
text and the form it should have) on anything else.  The place is a terrain id, ``reserve``, ``dua``,
``bua``, ``pool`` or ``unplaced`` (``UNPLACED``: an army revealed but not yet placed, set-up step 4 in
V4.01c and the order-of-play roll in the 1996 rules), in both editions.  Decisions, effects and
answers carry the text form; rule code parses it once and works with the value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .errors import GameRuleError

UNPLACED = "unplaced"  # an army before it is placed (both editions spell it so)
SEPARATOR = "@"


def army_text(owner: str, location: str) -> str:
    """The text form of an army id (what ``str(ArmyId(owner, location))`` gives, without building one)."""
    return f"{owner}{SEPARATOR}{location}"


class InvalidId(GameRuleError):
    """Text that is not an id of the kind asked for."""


@dataclass(frozen=True, slots=True)
class ArmyId:
    """One player's army at one place: ``owner`` (a player id) and ``location`` (see the module doc)."""

    owner: str
    location: str

    @classmethod
    def parse(cls, text: object) -> ArmyId:
        """``"p1@frontier"`` -> ``ArmyId("p1", "frontier")``; ``InvalidId`` on anything else."""
        return cls(*split_army_id(text))

    @classmethod
    def at(cls, owner: str, location: str | None) -> ArmyId:
        """The army of `owner` at `location`; None is an army not yet placed (``UNPLACED``)."""
        return cls(owner, UNPLACED if location is None else location)

    def __iter__(self) -> Iterator[str]:
        """``owner, location = army_id``."""
        return iter((self.owner, self.location))

    @property
    def placed(self) -> bool:
        return self.location != UNPLACED

    def __str__(self) -> str:
        return army_text(self.owner, self.location)


def split_army_id(text: object) -> tuple[str, str]:
    """``"p1@frontier"`` -> ``("p1", "frontier")`` (what ``ArmyId.parse`` reads, without building the
    value: the flows read army ids on every clean-up); ``InvalidId`` on anything else."""
    if isinstance(text, str):
        owner, sep, location = text.partition(SEPARATOR)
        if sep and owner and location:
            return owner, location
        if sep:
            raise InvalidId(f"{text!r} is not an army id: the player and the place must both be named")
    raise InvalidId(f"{text!r} is not an army id ('<player>@<terrain, reserve or unplaced>')")


def is_army_id(text: object) -> bool:
    """Whether `text` reads as an army id (``ArmyId.parse`` would accept it)."""
    if not isinstance(text, str):
        return False
    owner, sep, location = text.partition(SEPARATOR)
    return bool(sep and owner and location)
