"""Session-friendly API of the Battle Dice engine.

A game is rebuilt by replaying its actions: ``BattleGame.from_dict(game.to_dict())`` gives the
same game.  Functional helpers mirror the methods for a session layer::

    state = new_game(setup)                    # setup: {"armies": {...}, "options": {...}}
    pending(state)                             # {"player", "kind", "prompt", "choices", ...} or None
    state, events = apply(state, action)       # raises IllegalBattleAction, changing nothing
    state_to_dict(state) / state_from_dict(d)  # JSON-able, replayable

Randomness enters only as faces in actions, or as a ``seed`` in a roll action (``{"kind": "roll",
"seed": 7}``), or through :func:`roll_for_me` with a ``random.Random`` the caller owns.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from .board import Board
from .decisions import BattleDecision
from .errors import BattleDiceError, BattleOver, IllegalBattleAction, ReplayMismatch, SetupError
from .phases import play
from .rulings import resolve_options
from .setup import normalise_setup

GAME_TYPE = "battle_dice"
FORMAT_VERSION = 1


class BattleGame:
    """One Battle Dice game: setup, options, the list of actions taken, and the table state."""

    def __init__(self, setup: dict[str, Any]):
        norm = normalise_setup(setup)
        self.options = resolve_options(norm["options"])
        self.setup = {"armies": norm["armies"], "options": dict(norm["options"])}
        self.actions: list[dict[str, Any]] = []
        self.board = Board(norm, self.options)
        self._flow = play(self.board)
        self._pending: BattleDecision | None = None
        self._advance(None)

    # ------------------------------------------------------------------ reading
    @property
    def data(self) -> dict[str, Any]:
        return self.board.data

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.board.events

    @property
    def is_over(self) -> bool:
        return self.board.data["result"] is not None

    @property
    def result(self) -> dict[str, Any] | None:
        result: dict[str, Any] | None = copy.deepcopy(self.board.data["result"])
        return result

    def pending(self) -> dict[str, Any] | None:
        if self._pending is None:
            return None
        out = self._pending.to_dict()
        out["turn"] = self.data["turn"]
        out["phase"] = self.data["phase"]
        return out

    def pending_decision(self) -> BattleDecision | None:
        return self._pending

    # ------------------------------------------------------------------ acting
    def check(self, action: object) -> dict[str, Any]:
        """The normalised form of ``action`` if it answers the pending decision; raises otherwise."""
        if self._pending is None:
            raise BattleOver("the game is over; no action is expected")
        return self._pending.check(action)

    def apply(self, action: object) -> list[dict[str, Any]]:
        """Answer the pending decision; returns the events it caused.  Illegal: raises, changes nothing."""
        normalised = self.check(action)
        start = len(self.board.events)
        try:
            self._advance(normalised)
        except Exception as exc:  # an engine fault: rebuild the previous state, then report it
            self._rebuild(self.actions)
            raise BattleDiceError(f"engine fault on {normalised}: {exc!r}") from exc
        self.actions.append(normalised)
        return copy.deepcopy(self.board.events[start:])

    def undo(self) -> dict[str, Any]:
        """Take back the last action (replaying the rest); returns it."""
        if not self.actions:
            raise IllegalBattleAction("nothing to undo")
        last = self.actions[-1]
        self._rebuild(self.actions[:-1])
        return last

    def copy(self) -> BattleGame:
        return BattleGame.replay(self.setup, self.actions)

    # ------------------------------------------------------------------ storing
    def to_dict(self) -> dict[str, Any]:
        return {
            "game": GAME_TYPE,
            "version": FORMAT_VERSION,
            "setup": copy.deepcopy(self.setup),
            "actions": copy.deepcopy(self.actions),
            "state": self.board.snapshot(),
            "pending": self.pending(),
        }

    @classmethod
    def replay(cls, setup: dict[str, Any], actions: list[dict[str, Any]]) -> BattleGame:
        game = cls(setup)
        for i, action in enumerate(actions):
            try:
                game.apply(action)
            except IllegalBattleAction as exc:
                raise ReplayMismatch(f"action {i} cannot be replayed: {exc}") from exc
        return game

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BattleGame:
        if not isinstance(d, dict) or d.get("game") != GAME_TYPE:
            raise SetupError(f"not a stored {GAME_TYPE} game")
        if d.get("version") != FORMAT_VERSION:
            raise SetupError(f"unsupported {GAME_TYPE} format version {d.get('version')!r}")
        game = cls.replay(d["setup"], d.get("actions") or [])
        if "state" in d and d["state"] != game.data:
            raise ReplayMismatch("the stored state differs from the replay of the stored actions")
        return game

    # ------------------------------------------------------------------ internals
    def _advance(self, answer: dict[str, Any] | None) -> None:
        try:
            self._pending = next(self._flow) if answer is None else self._flow.send(answer)
        except StopIteration:
            self._pending = None

    def _rebuild(self, actions: list[dict[str, Any]]) -> None:
        fresh = BattleGame.replay(self.setup, actions)
        self.__dict__.update(fresh.__dict__)


# ---------------------------------------------------------------------------------- functional API


def new_game(setup: dict[str, Any]) -> BattleGame:
    return BattleGame(setup)


def pending(state: BattleGame) -> dict[str, Any] | None:
    return state.pending()


def apply(state: BattleGame, action: object) -> tuple[BattleGame, list[dict[str, Any]]]:
    """Apply ``action`` in place and return ``(state, events)``; illegal actions raise and change nothing."""
    events = state.apply(action)
    return state, events


def undo(state: BattleGame) -> BattleGame:
    state.undo()
    return state


def state_to_dict(state: BattleGame) -> dict[str, Any]:
    return state.to_dict()


def state_from_dict(d: dict[str, Any]) -> BattleGame:
    return BattleGame.from_dict(d)


def roll_for_me(state: BattleGame, rng: random.Random, source: str = "rng") -> dict[str, Any]:
    """A roll action for the pending roll decision, with faces drawn from ``rng``."""
    decision = state.pending_decision()
    if decision is None or decision.kind != "roll":
        raise IllegalBattleAction("no roll is pending")
    faces = [rng.randint(1, d["sides"]) for d in decision.dice]
    return {"kind": "roll", "player": decision.player, "faces": faces, "source": source}


def random_action(state: BattleGame, rng: random.Random) -> dict[str, Any]:
    """Any legal action for the pending decision, drawn from ``rng`` (rolls and choices alike)."""
    decision = state.pending_decision()
    if decision is None:
        raise BattleOver("the game is over; no action is expected")
    if decision.kind == "roll":
        return roll_for_me(state, rng)
    if decision.kind == "choose_dice":
        ids = [c["id"] for c in decision.candidates]
        return {"kind": "choose", "player": decision.player, "dice": rng.sample(ids, decision.count)}
    return {"kind": "choose", "player": decision.player, "option": rng.choice(decision.options)}
