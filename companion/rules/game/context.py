"""What a rule module may use of the game it plays in: ``RuleContext``.

Rule modules (SAIs, spells, species abilities, dragons, the Advanced Rules' components) receive the game
as their first argument.  They read and change its ``state``, write what happened with ``say``, name
players and armies in words, ask for decisions by yielding ``decisions.ask(...)`` and run the flow's
shared steps (a roll, damage with its save roll, the clean-up after a consequence).  ``flow.Game`` is the
one implementation; modules import this protocol, never the flow, so no rule module depends on it.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..core.decisions import Decision
    from ..core.state import Army, Effect, GameState
    from ..resolution import EffectInForce
    from .extensions import Extensions
    from .magic import AnnouncedSpell
    from .rolling import RollOutcome

Flow = Generator["Decision", Any, Any]


class RuleContext(Protocol):
    """The public context of one V4.01c game, as rule modules see it."""

    setup: Mapping[str, Any]
    state: GameState
    log: list[str]
    extensions: Extensions  # the hooks, phases and spell effects of this game (``rulebook``)
    # what rule modules remember between steps of this game, by a name each module owns ("mire",
    # "sai_march", "advanced_components" ...): not state (a replay rebuilds it), never read across modules
    notes: dict[str, Any]

    @property
    def armies_at_setup(self) -> Mapping[str, Mapping[str, list[str]]]:
        """Each player's armies as set up (uids)."""

    @property
    def over(self) -> bool:
        """Whether the game has ended (a winner)."""

    # -- words --------------------------------------------------------------------------------------
    def say(self, text: str) -> None:
        """Write one line of what happened to the game's log."""

    def player_name(self, pid: str) -> str:
        """The name player `pid` plays under."""

    def army_label(self, army: Army | str) -> str:
        """The army (or its id) in words."""

    # -- the flow's shared steps (generators: ``yield from`` them) ------------------------------------
    def roll(self, army: Army, roll: str, prompt: str, rule: str, **ctx: Any) -> Flow:
        """Ask the owner to roll `army` for `roll` results; resolve; return the ``RollOutcome``."""

    def attack(self, attacker: Army, target: Army, kind: str, counter: bool, ids_count: bool = True) -> Flow:
        """An attack (melee or missile) of `attacker` on `target`, with the SAIs of both rolls."""

    def inflict(self, target: Army, damage: int, save_roll: bool = True) -> Flow:
        """Damage on an army: its save roll (unless `save_roll` is False), then the owner's kills."""

    def effects_on(self, army: Army, aimed_at: str | None = None) -> tuple[EffectInForce, ...]:
        """Spells in force on this army or its terrain, as the resolution engine takes them."""

    def add_effect(self, name: str, owner: str, target: str, expiry: str = ..., **detail: Any) -> Effect:
        """Put a lasting effect in force."""

    def cleanup(self) -> None:
        """Every consequence after a step (the components' clean-ups, control, elimination)."""

    def check_control_and_elimination(self) -> None:
        """Terrain control (eighth face) and players eliminated, after dice moved."""

    def opponents_in_turn_order(self, pid: str) -> list[str]:
        """The other players still in the game, from `pid`'s left."""

    def check_target(self, pid: str, card: Any, target: Any) -> None:
        """Raise ``IllegalSpell`` when `target` may not be the target of spell `card` now."""

    def validate_casts(
        self, pid: str, army: Army, out: RollOutcome, extra: tuple[str, ...], action: dict[str, Any]
    ) -> list[AnnouncedSpell]:
        """The spells of a ``cast`` answer, checked against the magic rolled."""
