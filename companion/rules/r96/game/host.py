"""What the parts of the 1996 flow written as mixins (``MagicActions``, ``DragonAttacks``) use of the game
they are mixed into: ``R96Host`` declares it for the type checker, and ``R96Game`` defines each member.
Nothing here runs: the declarations exist only while type checking."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ...core.decisions import Decision

Flow = Generator[Decision, Any, Any]

if TYPE_CHECKING:
    from ...core.state import Effect, TerrainState, Unit
    from .rolls import Rolled
    from .state import R96State


class R96Host:
    """The game's state, options and helpers a mixin of ``R96Game`` calls (see the module doc)."""

    if TYPE_CHECKING:
        state: R96State
        options: dict[str, Any]

        def say(self, text: str) -> None: ...

        def player_name(self, pid: str) -> str: ...

        def _label(self, owner: str, loc: str) -> str: ...

        def _units(self, owner: str, loc: str) -> list[Unit]: ...

        def _dragons_at(self, tid: str) -> list[Unit]: ...

        def _dead(self, pid: str) -> list[Unit]: ...

        def add_effect(
            self, name: str, owner: str, target: str, ends: str, of: str, **detail: Any
        ) -> Effect: ...

        def _resolve(
            self, rolled: Rolled, choices: dict[str, Any] | None = None, skip: set[int] | None = None
        ) -> Rolled: ...

        def _roll(
            self,
            owner: str,
            units: list[Unit],
            purpose: str,
            loc: str | None,
            prompt: str,
            rule: str,
            **ctx: Any,
        ) -> Flow: ...

        def _promotions(
            self, units: list[Unit], pid: str, taken: set[str] | None = None
        ) -> list[tuple[Unit, Unit]]: ...

        def _swap(self, live: str, dead: str) -> None: ...

        def _turn_terrain(self, t: TerrainState, step: int, by: str | None = None) -> None: ...

        def _paralysed(self, owner: str, loc: str) -> bool: ...

        def _penalty_split(self, rolled: Rolled) -> Flow: ...

        def _save_roll(
            self,
            owner: str,
            loc: str,
            damage: int,
            against: str,
            attacker: str | None,
            can_rout: bool,
            counters: bool = False,
        ) -> Flow: ...

        def _cantrips(self, rolled: Rolled) -> Flow: ...

        def _inflict(self, owner: str, loc: str, damage: int, rule: str, bury: bool = False) -> Flow: ...

        def _kill(self, uids: list[str], bury: bool = False) -> None: ...

        def _check(self) -> None: ...
