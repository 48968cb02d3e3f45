"""Which rule documents a game is played by: named on the page and searched first.

``rules_of(state)`` names the game's rule document from the engine's registry of games
(``companion.rules.game_for``: ``v4`` -> "V4.01c", ``r96`` -> "R96", Battle Dice -> "BD").
``search_order(state)`` is the document labels the rules search ranks first for that game (the labels
``companion.rulesearch`` gives the indexed documents).
"""

from __future__ import annotations

#: The 1996 rules came with two FAQs of the same era; a 1996 game reads them next.
_COMPANIONS = {"R96": ("FAQ96", "FAQ95")}


def rules_of(state: dict | None) -> dict | None:
    """``{"edition", "document", "title", "view", "odds_rolls"}`` of the game in ``state`` (None without a
    game); ``view`` is the board the page draws (the registry's ``GameKind.game``); ``odds_rolls`` the
    rolls the engine's odds answer for (``companion.rules.ODDS_ROLLS``)."""
    if not isinstance(state, dict):
        return None
    from companion.rules import ODDS_ROLLS, game_for

    kind = game_for(state)
    return {
        "edition": kind.key,
        "document": kind.document,
        "title": kind.title,
        "view": kind.game,
        "odds_rolls": list(ODDS_ROLLS),
    }


def search_order(state: dict | None) -> tuple[str, ...]:
    """Document labels to rank first in a rules search for this game, best first."""
    rules = rules_of(state)
    if rules is None:
        return ()
    return (rules["document"], *_COMPANIONS.get(rules["document"], ()))
