"""The rules engine's public interface: what the session, the page and the command line use.

    >>> from companion.rules import game_for
    >>> game_for({"edition": "r96"}).document
    'R96'

* the games (``games``): ``TableGame``, ``GAMES``, ``game_for``, ``game_key``, ``full_setup``,
  ``quick_setup``, ``start_game``; force building: ``force_report``, ``die_points``;
* errors: ``GameRuleError`` (every refusal of the rules), ``IllegalSetup``, ``IllegalRoll``;
* faces: ``match_face(die, face)``, the face of a roll's die that a text or number names;
* odds of a roll in a game in play: ``odds_in_game``, ``OddsError``, ``OddsQueryError``, ``ODDS_ROLLS``;
* terrains: ``terrain_action(name, face)``, the action a terrain's face allows; army ids: ``ArmyId``
  (``ArmyId.parse("p1@frontier").owner``), ``InvalidId``;
* text: ``is_whole_number(text)``, whether a typed number is ASCII digits ``int`` reads as written;
* the dice catalogue is ``companion.rules.catalogue``.

Everything else under ``companion/rules`` is the engine's inside (each edition's flow, the resolution
engine, the rule tables); callers outside the rules do not import it (``tests/web/test_web_imports.py``
checks the page).  The names load on first use, so importing ``companion.rules.catalogue`` alone stays
light.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_PUBLIC = {
    "TableGame": ".games",
    "GameKind": ".games",
    "GAMES": ".games",
    "game_for": ".games",
    "game_key": ".games",
    "full_setup": ".games",
    "quick_setup": ".games",
    "start_game": ".games",
    "force_report": ".games",
    "die_points": ".games",
    "GameRuleError": ".core.errors",
    "IllegalSetup": ".core.errors",
    "odds_in_game": ".odds_in_play",
    "OddsError": ".odds_in_play",
    "OddsQueryError": ".odds_in_play",
    "ODDS_ROLLS": ".core.decisions",
    "match_face": ".core.decisions",
    "IllegalRoll": ".core.errors",
    "terrain_action": ".core.terrains",
    "ArmyId": ".core.ids",
    "InvalidId": ".core.ids",
    "is_whole_number": ".text_numbers",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'companion.rules' has no attribute {name!r}")
    value = getattr(import_module(_PUBLIC[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
