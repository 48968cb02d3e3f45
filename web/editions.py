"""Which rule documents a game is played by: named on the page and searched first.

``rules_of(state)`` names the game's rule document from the engine's edition data
(``companion.rules.resolution.editions``: ``v4`` -> "V4.01c", ``r96`` -> "R96"); Battle Dice has its
own rule sheet ("BD").  ``search_order(state)`` is the document labels the rules search ranks first
for that game (the labels ``companion.rulesearch`` gives the indexed documents).
"""

from __future__ import annotations

#: The 1996 rules came with two FAQs of the same era; a 1996 game reads them next.
_COMPANIONS = {"R96": ("FAQ96", "FAQ95")}
_BATTLE_DICE = {"edition": "battle_dice", "document": "BD", "title": "Battle Dice rules"}


def rules_of(state: dict | None) -> dict | None:
    """``{"edition", "document", "title"}`` of the game in ``state`` (None without a game)."""
    if not isinstance(state, dict):
        return None
    if state.get("game") == "battle_dice":
        return dict(_BATTLE_DICE)
    from companion.rules.resolution.editions import get_edition

    edition = get_edition(state.get("edition") or "v4")
    return {"edition": edition.key, "document": edition.document, "title": edition.title}


def search_order(state: dict | None) -> tuple[str, ...]:
    """Document labels to rank first in a rules search for this game, best first."""
    rules = rules_of(state)
    if rules is None:
        return ()
    return (rules["document"], *_COMPANIONS.get(rules["document"], ()))
