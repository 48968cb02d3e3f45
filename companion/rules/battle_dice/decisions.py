"""Decisions as data: who must decide what, the legal choices, and checking an answer.

Three kinds of decision exist:

``roll``
    faces for a list of dice (``choices["dice"]``: ``{"id", "sides", "read_as"}``).  The answer is
    ``{"kind": "roll", "faces": ...}`` where faces is a list in the order asked, a dict by die id, or
    a dict by die size (``{"d6": [5, 2], "d8": [7]}``, the way a camera or smart die reports them);
    or ``{"kind": "roll", "seed": N}`` to roll for the player with ``random.Random(N)``.
``choose_dice``
    exactly ``count`` distinct dice out of ``choices["candidates"]``: ``{"kind": "choose", "dice": [ids]}``.
``choose_option``
    one of ``choices["options"]``: ``{"kind": "choose", "option": name}``.

Any action may name ``player`` (it must be the one asked) and ``source`` (typed, camera, smart,
rng...; it is copied to the log).  :meth:`BattleDecision.check` turns a valid action into the normalised
action stored in the game log, or raises an :class:`~.errors.IllegalAction`.
"""

from __future__ import annotations

import random
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..text_numbers import is_whole_number
from .errors import BadChoice, BadFaces, IllegalBattleAction, WrongPlayer

ACTION_KINDS = {"roll": "roll", "choose_dice": "choose", "choose_option": "choose"}

_R = TypeVar("_R")
#: A step of the game written as a generator: it yields the decisions it needs, receives each checked
#: answer (``BattleDecision.check``) and returns what it found (``Flow[int]``: a rolled amount ...).
Flow = Generator["BattleDecision", dict[str, Any], _R]


def parse_face(value: object, sides: int) -> int:
    """One die face as an int in 1..sides; a d10's 0 is its 10 (ruling R02)."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and is_whole_number(value.strip()):
            value = int(value.strip())
        else:
            raise BadFaces(f"a face must be a whole number, not {value!r}")
    if sides == 10 and value == 0:
        return 10
    if not 1 <= value <= sides:
        raise BadFaces(f"face {value} is impossible on a d{sides} (1-{sides})")
    return value


def d3_from_d6(face: int) -> int:
    """1D3 read from a d6: 1-2 -> 1, 3-4 -> 2, 5-6 -> 3 (ruling R14)."""
    return (face + 1) // 2


@dataclass
class BattleDecision:
    player: str
    kind: str
    prompt: str
    purpose: str
    dice: list[dict[str, Any]] = field(default_factory=list)
    count: int = 0
    candidates: list[dict[str, Any]] = field(default_factory=list)
    options: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        choices: dict[str, Any]
        if self.kind == "roll":
            choices = {"dice": [dict(d) for d in self.dice]}
        elif self.kind == "choose_dice":
            choices = {"count": self.count, "candidates": [dict(c) for c in self.candidates]}
        else:
            choices = {"options": list(self.options)}
        return {
            "player": self.player,
            "kind": self.kind,
            "action": ACTION_KINDS[self.kind],
            "prompt": self.prompt,
            "purpose": self.purpose,
            "choices": choices,
        }

    # ------------------------------------------------------------------ checking answers
    def check(self, action: object) -> dict[str, Any]:
        if not isinstance(action, dict):
            raise IllegalBattleAction(f"an action must be a JSON object, not {type(action).__name__}")
        player = action.get("player", self.player)
        if player != self.player:
            raise WrongPlayer(f"player {self.player} must decide now ({self.prompt}), not {player!r}")
        kind = action.get("kind")
        if kind != ACTION_KINDS[self.kind]:
            raise IllegalBattleAction(
                f"expected a {ACTION_KINDS[self.kind]!r} action ({self.prompt}), got {kind!r}"
            )
        source = action.get("source", "typed")
        if not isinstance(source, str):
            raise IllegalBattleAction(f"source must be a string, not {source!r}")
        out = {"kind": kind, "player": self.player, "source": source}
        if self.kind == "roll":
            if "seed" in action and "faces" not in action:
                out["faces"] = self._roll_seeded(action["seed"])
                out["source"] = action.get("source", "rng")
            else:
                out["faces"] = self._check_faces(action.get("faces"))
        elif self.kind == "choose_dice":
            out["dice"] = self._check_dice(action.get("dice"))
        else:
            option = action.get("option")
            if option not in self.options:
                raise BadChoice(f"option {option!r} is not one of {self.options} ({self.prompt})")
            out["option"] = option
        return out

    def _roll_seeded(self, seed: object) -> list[int]:
        if isinstance(seed, bool) or not isinstance(seed, int | str):
            raise IllegalBattleAction(f"seed must be an integer or string, not {seed!r}")
        rng = random.Random(seed)
        return [rng.randint(1, d["sides"]) for d in self.dice]

    def _check_faces(self, faces: object) -> list[int]:
        n = len(self.dice)
        if isinstance(faces, int) and not isinstance(faces, bool) and n == 1:
            faces = [faces]
        if isinstance(faces, list):
            if len(faces) != n:
                raise BadFaces(f"expected {n} face(s) ({self._sizes()}), got {len(faces)}")
            return [parse_face(f, d["sides"]) for f, d in zip(faces, self.dice, strict=True)]
        if isinstance(faces, dict) and faces:
            if all(
                isinstance(k, str) and k.lower().startswith("d") and is_whole_number(k[1:]) for k in faces
            ):
                return self._faces_by_size(faces)
            ids = [d["id"] for d in self.dice]
            if set(faces) != set(ids) or None in ids:
                raise BadFaces(
                    f"faces by die id must name exactly the dice {ids}, got {sorted(map(str, faces))}"
                )
            return [parse_face(faces[d["id"]], d["sides"]) for d in self.dice]
        raise BadFaces(f"faces missing or malformed for {self._sizes()}: {faces!r}")

    def _faces_by_size(self, faces: dict[str, Any]) -> list[int]:
        wanted: dict[int, int] = {}
        for d in self.dice:
            wanted[d["sides"]] = wanted.get(d["sides"], 0) + 1
        given = {int(k[1:]): v for k, v in faces.items()}
        for sides, values in given.items():
            if not isinstance(values, list):
                raise BadFaces(f"faces for d{sides} must be a list, not {values!r}")
            if len(values) != wanted.get(sides, 0):
                raise BadFaces(f"expected {wanted.get(sides, 0)} d{sides} face(s), got {len(values)}")
        for sides, count in wanted.items():
            if count and sides not in given:
                raise BadFaces(f"missing faces for {count} d{sides}")
        queues = {s: [parse_face(v, s) for v in vals] for s, vals in given.items()}
        return [queues[d["sides"]].pop(0) for d in self.dice]

    def _check_dice(self, dice: object) -> list[str]:
        if not isinstance(dice, list) or not all(isinstance(x, str) for x in dice):
            raise BadChoice(f"dice must be a list of die ids ({self.prompt})")
        legal = [c["id"] for c in self.candidates]
        if len(set(dice)) != len(dice):
            raise BadChoice(f"a die is named twice in {dice}")
        if len(dice) != self.count:
            raise BadChoice(f"choose exactly {self.count} dice ({self.prompt}), got {len(dice)}")
        bad = [x for x in dice if x not in legal]
        if bad:
            raise BadChoice(f"dice {bad} are not among the legal choices {legal}")
        return list(dice)

    def _sizes(self) -> str:
        return ", ".join(f"d{d['sides']}" for d in self.dice)
