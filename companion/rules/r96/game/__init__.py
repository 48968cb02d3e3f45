"""Edition ``r96`` as a playable game flow: the 1996 TSR rules with the 1995 and 1996 FAQ rulings.

    >>> from companion.rules.r96.game import R96Game, quick_setup
    >>> game = R96Game(quick_setup({"force_size": 24, "players": [{"name": "Ann", "species": "Dwarves"},
    ...                                                          {"name": "Bo", "species": "Goblins"}]}))
    >>> game.pending.kind, game.pending.player
    ('roll', 'p1')

Modules: ``setup`` (battle size, dragons, armies), ``options`` (routing and the FAQ-vs-rulebook
switches), ``spellbook`` (the 25 spells), ``dragons`` (1996 dragon faces), ``rolls`` (rolls through the
resolution engine), ``asking`` (decisions), ``state`` (the game state the page shows), ``flow`` (the
game: set-up, turns, combat, reserves), with its parts ``magic_actions`` (magic and spells) and
``dragon_attacks`` (the dragon phase). ``RULINGS.md`` lists every FAQ ruling and how it is played.
``companion.session.new_game`` starts this flow for a set-up with ``"edition": "r96"``.
"""

from .flow import R96Game
from .options import CONFLICT_OPTIONS, OPTIONS, game_options
from .setup import quick_setup

EDITION = "r96"

__all__ = ["CONFLICT_OPTIONS", "EDITION", "OPTIONS", "R96Game", "game_options", "quick_setup"]
