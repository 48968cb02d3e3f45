"""Battle Dice behind the interface that ``companion.session.GameSession`` drives.

``GameSession`` replays a log of actions through an object shaped like the Dragon Dice
``companion.rules.game.Game``: ``Game(setup)``, ``.apply(action) -> canonical action with "log"``,
``.pending`` (has ``.player``), ``.pending_dict()``, ``.over``, ``.log`` and ``.state`` (with
``.to_dict()`` and ``.player(pid).name``).  :class:`BattleDiceSessionGame` is that object for a
Battle Dice set-up ``{"game": "battle_dice", "armies": {...}, "options": {...}}``.

Pending decisions use the session's vocabulary so the tablet can show them:

* ``roll``: ``dice`` = ``[{"uid", "die": "d6", "faces": ["1", ..., "6"], "read_as"}]``; answer
  ``{"type": "roll", "faces": [...]}`` (numbers or their texts, a d10's 0 is 10) or
  ``{"type": "roll_for_me", "seed": 7}``;
* ``choice``: ``choices`` = ``[{"value", "label"}]``; answer ``{"type": "choose", "choice": value}``;
* ``allocate`` (casualties, dice to set to 1, control, restore): ``count`` dice out of ``candidates``;
  ``choices`` lists distinct legal sets (dice of the same size and face are interchangeable);
  answer ``{"type": "allocate", "units": [ids]}`` (any ``count`` distinct candidates are legal).

Errors are re-raised as the session's ``GameRuleError`` family (with the Battle Dice error chained),
so the web layer answers them as rule errors.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..core.errors import GameOver as SessionGameOver
from ..core.errors import IllegalAction as SessionIllegalAction
from ..core.errors import IllegalSetup as SessionIllegalSetup
from .decisions import BattleDecision, parse_face
from .errors import BadFaces, BattleDiceError, BattleOver, SetupError
from .game import GAME_TYPE, BattleGame
from .phases import CONTESTS, contest_points, morale_total, strike_hits
from .setup import PLAYERS

RULE = "Battle Dice"
MAX_LISTED_SETS = 24

PURPOSE_VERB = {
    "casualties": "Lose",
    "set_to_one": "Set to 1:",
    "control": "Take",
    "restore": "Restore",
}


class _Player:
    def __init__(self, pid: str, name: str):
        self.id = pid
        self.name = name


class _BattleState:
    """The view of the table ``GameSession.state_dict`` starts from."""

    def __init__(self, game: BattleGame):
        self._game = game

    def player(self, pid: str) -> _Player:
        return _Player(pid, self._game.data["armies"][pid]["name"])

    def to_dict(self) -> dict[str, Any]:
        data = self._game.data
        result = data["result"]
        over = result is not None
        return {
            "game": GAME_TYPE,
            "turn": data["turn"],
            "phase": "game_over" if over else data["phase"],
            "winner": result["winner"] if over else None,
            "result": result,
            "players": [
                {"id": p, "name": data["armies"][p]["name"], "monster": data["armies"][p]["monster"]}
                for p in PLAYERS
            ],
            "armies": [
                {
                    "id": f"{p}@battle",
                    "owner": p,
                    "location": "battle",
                    "units": [_unit(d) for d in data["armies"][p]["dice"]],
                    "destroyed": [_unit(d) for d in data["armies"][p]["destroyed"]],
                }
                for p in PLAYERS
            ],
            "this_turn": data["this_turn"],
            "carry": data["carry"],
            "options": dict(self._game.options),
        }


def _unit(d: dict[str, Any]) -> dict[str, Any]:
    name = d["monster"].replace("_", " ") if d["monster"] else d["unit"]
    return {"uid": d["id"], "die": f"d{d['sides']}", "name": name, "unit": d["unit"], "face": d["face"]}


class BattleDiceSessionGame:
    """A :class:`BattleGame` with the Dragon Dice ``Game`` interface that ``GameSession`` uses."""

    def __init__(self, setup: dict[str, Any]):
        body = {k: v for k, v in dict(setup).items() if k != "game"}
        try:
            self._game = BattleGame(body)
        except SetupError as exc:
            raise SessionIllegalSetup(str(exc), RULE) from exc
        self.setup = setup
        self.state = _BattleState(self._game)
        self.log: list[str] = [e["text"] for e in self._game.events]

    # -- the interface GameSession uses ------------------------------------------------------------
    @property
    def pending(self) -> BattleDecision | None:
        return self._game.pending_decision()

    @property
    def over(self) -> bool:
        return self._game.is_over

    @property
    def battle(self) -> BattleGame:
        return self._game

    def pending_dict(self) -> dict[str, Any] | None:
        decision = self._game.pending_decision()
        if decision is None:
            return None
        base = {
            "player": decision.player,
            "prompt": decision.prompt,
            "rule": RULE,
            "purpose": decision.purpose,
            "game": GAME_TYPE,
            "turn": self._game.data["turn"],
            "phase": self._game.data["phase"],
        }
        if decision.kind == "roll":
            dice = [
                {
                    "uid": d["id"] or f"roll-{i + 1}",
                    "die": f"d{d['sides']}",
                    "faces": [str(f) for f in range(1, d["sides"] + 1)],
                    "read_as": d.get("read_as"),
                    "icons": [str(f) for f in range(1, d["sides"] + 1)],
                }  # a standard die's icon is its number
                for i, d in enumerate(decision.dice)
            ]
            return {**base, "kind": "roll", "dice": dice, "choices": [], "answer": "roll"}
        if decision.kind == "choose_option":
            choices = [
                {"value": o, "label": o.replace("_", " ").title() if o.islower() else o}
                for o in decision.options
            ]
            return {**base, "kind": "choice", "choices": choices, "answer": "choose"}
        return {
            **base,
            "kind": "allocate",
            "count": decision.count,
            "candidates": decision.candidates,
            "choices": _distinct_sets(decision),
            "answer": "allocate",
        }

    def same_results(self, options: Sequence[Mapping[str, str]]) -> bool:
        """``TableGame.same_results``: never, here.  A camera reads each standard die by its own numeral, so
        it never has look-alike dice whose faces it would read together; a roll is read die by die."""
        return False

    def roll_so_far(self, faces: Mapping[str, str]) -> dict[str, int] | None:
        """What the dice set so far add up to (``TableGame.roll_so_far``), for the Roll phase's roll of
        all of a player's dice (BD L94-96): the points and hits each later phase counts from those faces,
        counted by that phase's own function on a copy of the table where the dice not set show no face
        (``phases.contest_points``: tactics BD L116-128, spell L163-175, maneuver L224-237;
        ``phases.strike_hits``: missile L267-271, melee L273-276; ``phases.morale_total``: L284).  The
        Monster phase's d20 faces (BD L98-114) make no count (a monster leaves, duels, rolls on its
        table), so they are not listed.  None for the other rolls: one die on a table, nothing to add."""
        decision = self._game.pending_decision()
        if decision is None or decision.kind != "roll" or decision.purpose != "roll_phase":
            return None
        sides = {d["id"]: d["sides"] for d in decision.dice}
        try:
            parsed = {uid: parse_face(face, sides[uid]) for uid, face in faces.items() if uid in sides}
        except BadFaces as exc:
            raise SessionIllegalAction(str(exc), RULE) from exc
        if len(parsed) != len(faces):
            raise SessionIllegalAction(f"not dice of this roll: {sorted(set(faces) - set(sides))}", RULE)
        board = copy.deepcopy(self._game.board)
        p = decision.player
        for d in board.alive(p):
            if d["id"] in sides:
                d["face"] = parsed.get(d["id"])
        out = {
            CONTESTS[phase][0]: contest_points(board, phase)[p] for phase in ("general", "magic", "maneuver")
        }
        out.update({phase: strike_hits(board, p, phase) for phase in ("missile", "melee")})
        out["morale"] = morale_total(board, p)
        return out

    def apply(self, action: Mapping[str, Any], rng: random.Random | None = None) -> dict[str, Any]:
        decision = self._game.pending_decision()
        if decision is None:
            raise SessionGameOver("the game is over", RULE)
        if not isinstance(action, dict):
            raise SessionIllegalAction(f"an action must be a JSON object, not {type(action).__name__}", RULE)
        inner, canonical = self._translate(decision, action, rng)
        mark = len(self._game.events)
        try:
            self._game.apply(inner)
        except BattleOver as exc:
            raise SessionGameOver(str(exc), RULE) from exc
        except BattleDiceError as exc:
            raise SessionIllegalAction(str(exc), RULE) from exc
        if canonical["type"] == "roll":
            canonical["faces"] = self._game.actions[-1]["faces"]
            canonical["source"] = self._game.actions[-1]["source"]
        new = [e["text"] for e in self._game.events[mark:]]
        self.log.extend(new)
        canonical["log"] = new
        return canonical

    # -- internals ---------------------------------------------------------------------------------
    def _translate(
        self, decision: BattleDecision, action: dict[str, Any], rng: random.Random | None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        kind = action.get("type")
        inner: dict[str, Any] = {}
        if "player" in action and action["player"] is not None:
            inner["player"] = action["player"]
        canonical: dict[str, Any] = {"type": kind}
        if kind == "roll_for_me":
            if decision.kind != "roll":
                raise SessionIllegalAction(f"nothing to roll now: {decision.prompt}", RULE)
            seed = action.get("seed")
            if rng is not None:
                inner.update(
                    kind="roll", faces=[rng.randint(1, d["sides"]) for d in decision.dice], source="rng"
                )
            elif isinstance(seed, int) and not isinstance(seed, bool):
                inner.update(kind="roll", seed=seed, source="rng")
            else:
                raise SessionIllegalAction("'roll_for_me' needs an integer 'seed'", RULE)
            canonical = {"type": "roll", "rolled_for_me": True}
            if seed is not None:
                canonical["seed"] = seed
        elif kind == "roll":
            inner.update(kind="roll", faces=action.get("faces"), source=str(action.get("source", "typed")))
        elif kind == "choose":
            if decision.kind == "choose_dice" and isinstance(action.get("choice"), list):
                inner.update(kind="choose", dice=action["choice"])
                canonical = {"type": "allocate", "units": action["choice"]}
            else:
                inner.update(kind="choose", option=action.get("choice"))
                canonical["choice"] = action.get("choice")
        elif kind == "allocate":
            inner.update(kind="choose", dice=action.get("units"))
            canonical["units"] = action.get("units")
        else:
            expected = {"roll": "roll' or 'roll_for_me", "choose_option": "choose", "choose_dice": "allocate"}
            raise SessionIllegalAction(
                f"{decision.player} must answer {decision.prompt!r} with a '{expected[decision.kind]}' action, "
                f"not {kind!r}",
                RULE,
            )
        if "player" in inner:
            canonical["player"] = inner["player"]
        return inner, canonical


def _multiset_picks(caps: list[int], k: int, start: int = 0) -> Iterator[tuple[tuple[int, int], ...]]:
    """Ways to take ``k`` items from classes of sizes ``caps`` (as ``((class, n), ...)``), lazily."""
    if k == 0:
        yield ()
        return
    for i in range(start, len(caps)):
        if sum(caps[i:]) < k:
            return
        for take in range(min(caps[i], k), 0, -1):
            if sum(caps[i + 1 :]) < k - take:
                break
            for rest in _multiset_picks(caps, k - take, i + 1):
                yield ((i, take), *rest)


def _distinct_sets(decision: BattleDecision) -> list[dict[str, Any]]:
    """Legal sets of ``count`` dice, one per mix of (size, face) classes, at most ``MAX_LISTED_SETS``."""
    classes: dict[tuple[Any, ...], list[str]] = {}
    for c in decision.candidates:
        classes.setdefault((c["owner"], c["sides"], c["face"], c.get("monster")), []).append(c["id"])
    groups = list(classes.values())
    labels = {c["id"]: c["label"] for c in decision.candidates}
    verb = PURPOSE_VERB.get(decision.purpose, "Choose")
    picks = _multiset_picks([len(g) for g in groups], decision.count)
    out = []
    for pick in itertools.islice(picks, MAX_LISTED_SETS):
        ids = [i for cls, n in pick for i in groups[cls][:n]]
        out.append({"value": ids, "label": f"{verb} " + " + ".join(labels[i] for i in ids)})
    return out
