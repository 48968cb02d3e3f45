"""The games the companion referees, behind one declared interface: ``TableGame`` and ``GAMES``.

    >>> from companion.rules.games import game_for
    >>> kind = game_for({"edition": "r96"})
    >>> kind.key, kind.document
    ('r96', 'R96')

Three games: Dragon Dice by the V4.01c rules (``companion.rules.game``), by the 1996 rules
(``companion.rules.r96.game``) and Battle Dice (``companion.rules.battle_dice``).  Each is a
``GameKind`` of the registry (as the resolution engine's editions are, ``resolution.editions``): its
key, title, rule document, how a short set-up is filled in and how a game starts.  Every game it starts
is a ``TableGame``: the session (``companion.session``) and the page use that interface and nothing
else, so no caller branches on which game it holds.

A set-up names its game with ``"game": "battle_dice"`` or ``"edition": "r96"``; any other set-up is a
V4.01c game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .core.errors import GameRuleError, IllegalSetup


class PlayerView(Protocol):
    """A player as the session reads one: the name they play under."""

    @property
    def name(self) -> str: ...


class StateView(Protocol):
    """A game's state as the session reads it: the page's JSON view and the players' names."""

    def to_dict(self) -> dict[str, Any]: ...

    def player(self, pid: str) -> PlayerView: ...


class DecisionView(Protocol):
    """A pending decision as the session reads it: whose it is."""

    @property
    def player(self) -> str: ...


@runtime_checkable
class TableGame(Protocol):
    """One game in play, as the session drives it.

    * ``pending`` / ``pending_dict()``: the decision the game waits for (None when it is over), the
      latter as JSON data for the page: who, what kind, the prompt, the rule, the legal choices or the
      dice to roll, and the answer type it takes;
    * ``apply(action, rng)``: validate one answer and apply it, returning its canonical form with the
      log lines it caused under ``"log"``; a ``{"type": "roll_for_me", "seed": n}`` answer rolls the
      pending dice (seeded, the faces logged); an illegal answer raises a ``GameRuleError`` and
      changes nothing;
    * ``roll_so_far(faces)``: what the dice set so far (``{uid: face text}``, some of the pending
      roll's dice) add up to by this game's rules, the dice not set yet not counting: totals by result
      type (``{"maneuver": 3}``; Battle Dice: points of each phase), or None where the game cannot say
      before every die has a face (no roll pending, a face that makes dice roll again).  It may give
      the roll to this game to find out (V4.01c): call it on a copy (the page replays one from the log);
      an unknown die or face raises a ``GameRuleError``;
    * ``state`` (``to_dict()``, ``player(pid).name``), ``log``, ``over`` and the ``setup`` it started from.
    """

    log: list[str]

    @property
    def setup(self) -> Mapping[str, Any]: ...

    @property
    def state(self) -> StateView: ...

    @property
    def pending(self) -> DecisionView | None: ...

    @property
    def over(self) -> bool: ...

    def pending_dict(self) -> dict[str, Any] | None: ...

    def apply(self, action: Mapping[str, Any], rng: random.Random | None = None) -> dict[str, Any]: ...

    def roll_so_far(self, faces: Mapping[str, str]) -> dict[str, int] | None: ...

    def same_results(self, options: Sequence[Mapping[str, str]]) -> bool: ...


@dataclass(frozen=True)
class ForceRules:
    """How a player's force is built for one game, for the force-building page: ``die_points(spec)``
    (what one die adds: points or health; None for a die the game's forces cannot hold) and
    ``report(force_size, armies, dragons)`` (the force checked line by line without raising, see
    ``game.setup.force_report`` and ``r96.game.setup.force_report``)."""

    die_points: Callable[[Any], int | None]
    report: Callable[[int, Mapping[str, Sequence[Any]], Sequence[Any]], dict[str, Any]]


def _v4_forces() -> ForceRules:
    from .game import setup

    return ForceRules(setup.die_points, setup.force_report)


def _r96_forces() -> ForceRules:
    from .r96.game import setup

    return ForceRules(setup.die_points, setup.force_report)


@dataclass(frozen=True)
class GameKind:
    """One game of the registry.  A Dragon Dice game's title and rule document are its resolution
    edition's (``resolution.editions``, one place); Battle Dice names its own (``own_rules``)."""

    key: str  # "v4", "r96", "battle_dice"
    start: Callable[[dict[str, Any]], TableGame]  # a game from a full set-up; raises IllegalSetup
    fill_setup: Callable[
        [dict[str, Any]], dict[str, Any]
    ]  # a full set-up from a short one (players by name/species)
    own_rules: tuple[str, str] | None = None  # (document, title) of a game without a resolution edition
    forces: Callable[[], ForceRules] | None = None  # how its forces are built (None: no force building)
    quick: Callable[[dict[str, Any]], dict[str, Any]] = (
        dict  # a full set-up from a short one, whatever the players brought filled in
    )
    components: Callable[[], tuple[str, ...]] = tuple  # optional components a set-up may name ("advanced")
    game: str = "dragon_dice"  # the game a set-up names with "game", and the board the page draws for it

    @property
    def edition(self) -> str | None:
        """The ``"edition"`` a set-up names for this game (None: a game without resolution editions)."""
        return self.key if self.own_rules is None else None

    def _rules(self) -> tuple[str, str]:
        if self.own_rules is not None:
            return self.own_rules
        from .resolution.editions import get_edition

        edition = get_edition(self.key)
        return edition.document, edition.title

    @property
    def document(self) -> str:
        """The rule document's label ("V4.01c", "R96", "BD")."""
        return self._rules()[0]

    @property
    def title(self) -> str:
        return self._rules()[1]


def _needs_quick(setup: dict[str, Any]) -> bool:
    players = setup.get("players")
    return players is None or any(isinstance(p, dict) and "armies" not in p for p in players or [])


def _v4_start(setup: dict[str, Any]) -> TableGame:
    from .game import Game

    return Game(setup)


def _v4_fill(setup: dict[str, Any]) -> dict[str, Any]:
    from .game import quick_setup

    return quick_setup(setup) if _needs_quick(setup) else dict(setup)


def _v4_quick(setup: dict[str, Any]) -> dict[str, Any]:
    from .game import quick_setup

    return quick_setup(setup)


def _v4_components() -> tuple[str, ...]:
    from .game.advanced.options import COMPONENTS  # V4.01c L2506-2508: chosen per game

    return COMPONENTS


def _r96_quick(setup: dict[str, Any]) -> dict[str, Any]:
    from .r96.game import quick_setup

    return quick_setup(setup)


def _battle_quick(setup: dict[str, Any]) -> dict[str, Any]:
    from .battle_dice.setup import quick_setup

    return quick_setup(setup)


def _r96_start(setup: dict[str, Any]) -> TableGame:
    from .r96.game import R96Game

    return R96Game(setup)


def _r96_fill(setup: dict[str, Any]) -> dict[str, Any]:
    from .r96.game import quick_setup

    return quick_setup(setup) if _needs_quick(setup) else dict(setup)


def _battle_start(setup: dict[str, Any]) -> TableGame:
    from .battle_dice.session_game import BattleDiceSessionGame

    return BattleDiceSessionGame(setup)


GAMES: dict[str, GameKind] = {
    kind.key: kind
    for kind in (
        GameKind("v4", _v4_start, _v4_fill, forces=_v4_forces, quick=_v4_quick, components=_v4_components),
        GameKind("r96", _r96_start, _r96_fill, forces=_r96_forces, quick=_r96_quick),
        GameKind(
            "battle_dice",
            _battle_start,
            dict,
            own_rules=("BD", "Battle Dice rules"),
            quick=_battle_quick,
            game="battle_dice",
        ),
    )
}


def game_key(setup: Mapping[str, Any]) -> str:
    """Which game a set-up is for (see the module docstring)."""
    if setup.get("game") == "battle_dice":
        return "battle_dice"
    return "r96" if setup.get("edition") == "r96" else "v4"


def game_for(setup: Any) -> GameKind:
    """The registry's game for a set-up; ``IllegalSetup`` when the set-up is not a JSON object."""
    if not isinstance(setup, Mapping):
        raise IllegalSetup("the set-up must be a JSON object")
    return GAMES[game_key(setup)]


def full_setup(setup: Any) -> dict[str, Any]:
    """A set-up as its game takes it; players given only by name/species are filled in (quick start)."""
    return game_for(setup).fill_setup(setup)


def quick_setup(setup: Any) -> dict[str, Any]:
    """A full set-up from a short one, by its game's quick start: players given by name (and species)
    get ready-made forces; players who brought armies keep them and get what they left out (dragons,
    terrains).  Battle Dice: ``{"game": "battle_dice", "players": [name, name]}``."""
    kind = game_for(setup)
    try:
        return kind.quick(dict(setup))
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, GameRuleError):
            raise
        raise IllegalSetup(f"a {kind.title} set-up the quick start cannot fill in: {exc}") from None


def start_game(setup: Any) -> TableGame:
    """The game a full set-up starts (``IllegalSetup`` for one its rules refuse)."""
    return game_for(setup).start(setup)


def _force_rules(setup: Any) -> ForceRules:
    kind = game_for(setup)
    if kind.forces is None:
        raise IllegalSetup(
            f"{kind.title}: forces are not built die by die (the game starts with a quick start)"
        )
    return kind.forces()


def _spec(name: Any) -> Any:
    from .core.state import spec_for

    if not isinstance(name, str):
        raise IllegalSetup(f"a die is named by its catalogue name, not {name!r}")
    return spec_for(name)


def die_points(setup: Any, name: str) -> int | None:
    """What catalogue die `name` adds to a force of the game of `setup` (points in V4.01c, health in
    the 1996 rules); None for a die that game's forces cannot hold (a terrain, a 1996 item).
    ``IllegalSetup`` for an unknown die."""
    from .catalogue import CatalogueError, DieKind, load_catalogue

    rules = _force_rules(setup)
    try:
        die = load_catalogue().get(str(name))
    except CatalogueError:
        raise IllegalSetup(f"unknown die {name!r}") from None
    if not (die.is_unit or die.is_item or die.kind is DieKind.DRAGON):
        return None
    return rules.die_points(_spec(name))


def force_report(setup: Any, force_size: Any, armies: Any, dragons: Any = ()) -> dict[str, Any]:
    """One player's force while it is built, checked by the rules of the game of `setup`, every rule a
    line with whether it is met (``{"total", "armies", "army_cap", "dragons", "dragons_required",
    "checks": [{"ok", "text", "rule"}], ...}``).  `armies` maps army names to lists of catalogue die
    names, `dragons` is a list of names.  ``IllegalSetup`` names what is malformed (an unknown die, a
    force size that is not a positive number)."""
    rules = _force_rules(setup)
    if not isinstance(force_size, int) or isinstance(force_size, bool) or not 1 <= force_size <= 1000:
        raise IllegalSetup(f"the force size must be a whole number from 1 to 1000, not {force_size!r}")
    if not isinstance(armies, Mapping) or not all(isinstance(v, list) for v in armies.values()):
        raise IllegalSetup("armies must map each army's name to a list of die names")
    if not isinstance(dragons, list | tuple):
        raise IllegalSetup("dragons must be a list of die names")
    specs = {str(name): [_spec(d) for d in dice] for name, dice in armies.items()}
    return rules.report(force_size, specs, [_spec(d) for d in dragons])
