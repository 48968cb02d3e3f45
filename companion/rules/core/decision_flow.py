"""A game written as one generator of decisions: ``DecisionFlow``, the part both Dragon Dice flows share.

An edition's game (``game.flow.Game``, ``r96.game.flow.R96Game``) sets ``self._flow`` (a generator that
yields ``Decision``s and receives validated answers), ``self._pending`` (the decision it waits for),
``self.log`` and ``self.state``, and names the rule that ends a game (``GAME_OVER_RULE``).  This class
answers the pending decision (``apply``): it checks the answer's type and player, rolls for the player
when asked (``roll_for_me``, seeded, the faces logged), runs the decision's validator and sends the
answer on.  Replaying the accepted answers in order rebuilds exactly the same game.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Mapping
from typing import Any

from .decisions import ANSWER_TYPE, Decision
from .errors import GameOver, GameRuleError, IllegalAction

#: The keys an answer may carry (others are dropped from its canonical form).
ANSWER_KEYS = ("type", "faces", "choice", "units", "spells", "moves", "seed", "player")


class DecisionFlow:
    """Pending decision, roll-for-me, validation and apply, for a flow of decisions (see the module doc)."""

    GAME_OVER_RULE = ""  # the edition's citation for the end of a game
    _pending: Decision | None
    _flow: Generator[Decision, Any, Any]
    log: list[str]
    state: Any

    @property
    def pending(self) -> Decision | None:
        return self._pending

    @property
    def over(self) -> bool:
        return self.state.winner is not None

    def pending_dict(self) -> dict[str, Any] | None:
        return None if self._pending is None else self._pending.to_dict()

    def apply(self, action: Mapping[str, Any], rng: random.Random | None = None) -> dict[str, Any]:
        """Validate and apply one answer to the pending decision.

        Returns the canonical form of the accepted action (a ``roll_for_me`` becomes the ``roll``
        with the faces drawn, plus its seed) and the log lines it caused under ``"log"``.
        Raises ``GameRuleError`` (and changes nothing) when the answer is not legal.
        """
        decision = self._pending
        if decision is None:
            raise GameOver(f"the game is over: {self.state.win_reason}", self.GAME_OVER_RULE)
        if not isinstance(action, Mapping):
            raise IllegalAction(f"an action must be a JSON object, not {type(action).__name__}")
        kind = action.get("type")
        canonical = {k: v for k, v in action.items() if k in ANSWER_KEYS}
        if kind == "roll_for_me" and decision.kind == "roll":
            seed = action.get("seed")
            if seed is not None or rng is None:
                if not isinstance(seed, int) or isinstance(seed, bool):
                    raise IllegalAction("'roll_for_me' needs an integer 'seed'")
                rng = random.Random(seed)
            faces = [d["faces"][rng.randrange(len(d["faces"]))] for d in decision.dice]
            canonical = {"type": "roll", "faces": faces, "rolled_for_me": True}
            if seed is not None:
                canonical["seed"] = seed
        elif kind != ANSWER_TYPE[decision.kind]:
            raise IllegalAction(
                f"{decision.player} must answer {decision.prompt!r} with a '{ANSWER_TYPE[decision.kind]}' action"
                + (" (or 'roll_for_me')" if decision.kind == "roll" else "")
                + f", not {kind!r}"
            )
        if "player" in action and action["player"] not in (None, decision.player):
            raise IllegalAction(f"it is {decision.player}'s decision, not {action['player']}'s")
        try:
            answer = decision.validate(canonical) if decision.validate else canonical
        except GameRuleError:
            raise
        except (TypeError, KeyError, AttributeError, IndexError, ValueError) as exc:
            raise IllegalAction(f"malformed answer to {decision.prompt!r}: {exc}") from None
        if decision.kind == "roll":
            canonical["faces"] = answer
        mark = len(self.log)
        try:
            self._pending = self._flow.send(answer)
        except StopIteration:
            self._pending = None
        canonical["log"] = self.log[mark:]
        return canonical
