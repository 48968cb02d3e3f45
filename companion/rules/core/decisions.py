"""Decisions as data: who must decide what now, in plain words, with the legal choices.

A ``Decision`` is what the flow waits for.  ``kind`` says which answer it takes:

* ``"roll"``: dice to roll, listed in ``dice`` (uid, die, its faces); answer
  ``{"type": "roll", "faces": [...]}`` with one face per die, in order, as the face text ("2 Melee",
  "ID") or its 1-based number on the die; or ``{"type": "roll_for_me", "seed": 7}``.  Rule modules
  ask one with ``ask_roll`` (which reads the answer with ``faces_validator``).
* ``"choice"``: pick one of ``choices`` (each ``{"value", "label"}``); answer
  ``{"type": "choose", "choice": value}``.
* ``"allocate"``: which units die; ``choices`` lists legal sets of uids; answer
  ``{"type": "allocate", "units": [uid, ...]}`` (any set of equal dice to a listed one is legal).
* ``"cast"``: announce spells; answer ``{"type": "cast", "spells": [{"spell": name, "target": ref,
  "element": element}, ...]}`` (an empty list casts nothing).
* ``"reinforce"``: answer ``{"type": "reinforce", "moves": {uid: terrain_id}}`` (may be empty).
* ``"retreat"``: answer ``{"type": "retreat", "units": [uid, ...]}`` (may be empty).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .errors import IllegalAction, IllegalChoice, IllegalRoll

KINDS = ("roll", "choice", "allocate", "cast", "reinforce", "retreat")
# ``Decision.topic``: what is being asked, stable across wording changes of ``prompt``.
TOPICS = (
    "roll",  # an army roll (data: roll type, army)
    "reroll",  # dice whose face makes them roll again
    "terrain_roll",  # starting distance of a terrain
    "first_or_frontier",
    "select_frontier",
    "place_horde",
    "place_campaign",  # set-up
    "city",
    "temple",
    "temple_bury",  # eighth face phase
    "march",
    "maneuver",
    "counter_maneuver",
    "direction",
    "action",
    "target",
    "counter_attack",
    "allocate",
    "cast",
    "reinforce",
    "retreat",
    "penalty_split",  # a penalty placed between the types a combination roll counts (Palsy, Ash Storm)
    # optional components (companion.rules.game.advanced)
    "minor_terrain",
    "minor_terrain_roll",
    "minor_terrain_face",
    "item_sai",
    "dragonkin",
    # SAIs in play and species abilities (companion.rules.game.sai_*, species_play)
    "sai_target",
    "sai_option",
    "sai_move",
    "sai_roll",
    "species_ability",
    # spells (companion.rules.game.spells): Dispel Magic, rolls and choices a spell's effect asks for
    "dispel",
    "dispel_roll",
    "spell_roll",
    "spell_choice",
    "spell_order",
    # dragons (companion.rules.game.dragons, dragon_promotion, dragon_summoning)
    "dragon_order",
    "dragon_target",
    "dragon_roll",
    "dragon_reroll",
    "dragon_fire_roll",
    "dragon_treasure",
    "dragon_ids",
    "dragon_kills",
    "dragon_promotion",
    "dragon_promotion_units",
    "summon_dragon",
)
#: Rolls the odds are computed for (``companion.rules.odds``); ``odds_roll`` is one of these or None.
ODDS_ROLLS = ("maneuver", "melee", "missile", "magic", "save")
ANSWER_TYPE = {
    "roll": "roll",
    "choice": "choose",
    "allocate": "allocate",
    "cast": "cast",
    "reinforce": "reinforce",
    "retreat": "retreat",
}


@dataclass
class Decision:
    player: str
    kind: str
    prompt: str
    rule: str = ""
    choices: list[dict[str, Any]] = field(default_factory=list)
    dice: list[dict[str, Any]] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    validate: Callable[[dict[str, Any]], Any] | None = field(default=None, repr=False)
    topic: str = ""  # stable name of the question (TOPICS), for programs; prompts are for people

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "player": self.player,
            "kind": self.kind,
            "topic": self.topic,
            "prompt": self.prompt,
            "rule": self.rule,
        }
        out["choices"] = self.choices
        if (
            self.kind == "roll"
        ):  # each die with the icon kind of its faces (the page's fast entry picks by it)
            out["dice"] = [{**d, "icons": list(face_icons(d["die"], tuple(d["faces"])))} for d in self.dice]
        out.update(self.data)
        if "odds_army" not in out and isinstance(out.get("army"), str):
            out["odds_army"] = out["army"]  # the army the decision is about: the page's odds open on it
            out["odds_roll"] = out.get("roll") if out.get("roll") in ODDS_ROLLS else None
        out["answer"] = ANSWER_TYPE[self.kind]
        return out


@lru_cache(maxsize=4096)
def face_icons(die: str, faces: tuple[str, ...]) -> tuple[str, ...]:
    """The icon kind of each face of catalogue die `die`, its faces written `faces` ("6 Melee" -> "Melee",
    "Dwarves ID" -> "ID"): the catalogue's face names.  A die the catalogue does not hold (Battle Dice's
    d4-d20) keeps its face texts."""
    from ..catalogue import CatalogueError, load_catalogue

    try:
        spec = load_catalogue().get(die)
    except CatalogueError:
        return faces
    if len(spec.faces) != len(faces):
        return faces
    by_text = {f.text(): f.name for f in spec.faces}
    return tuple(by_text.get(text, text) for text in faces)


def choice(value: Any, label: str) -> dict[str, Any]:
    return {"value": value, "label": label}


def choose_validator(choices: list[dict[str, Any]], rule: str = "") -> Callable[[dict[str, Any]], Any]:
    values = [c["value"] for c in choices]

    def validate(action: dict[str, Any]) -> Any:
        if "choice" not in action:
            raise IllegalAction("a 'choose' answer needs a 'choice'")
        value = action["choice"]
        # ``True == 1`` in Python: a yes/no answer is no number, and a number is no yes/no answer
        same = [v for v in values if v == value and isinstance(v, bool) == isinstance(value, bool)]
        if not same:
            raise IllegalChoice(f"{value!r} is not a legal choice now; legal: {values}", rule or None)
        return same[0]

    return validate


def ask(topic: str, *args: Any, **kwargs: Any) -> Decision:
    """A ``Decision`` on `topic` (one of ``TOPICS``); the other arguments are ``Decision``'s."""
    decision = Decision(*args, **kwargs)
    decision.topic = topic
    return decision


def match_face(die: dict[str, Any], face: Any) -> str:
    """The face of `die` (``{"die", "faces", ...}``) that `face` names: the face text (case and spacing
    free; "ID" for the die's ID face) or its 1-based number on the die; :class:`IllegalRoll` otherwise.
    The one face matcher: roll answers, camera and typed readings and a player's corrections use it."""
    options = die["faces"]
    if isinstance(face, bool):
        face = str(face)
    if isinstance(face, int):
        if not 1 <= face <= len(options):
            raise IllegalRoll(f"{die['die']} has faces 1-{len(options)}, not {face}")
        return str(options[face - 1])
    text = " ".join(str(face).split())
    match = [o for o in options if o.lower() == text.lower()]
    if not match and text.upper() == "ID":
        match = [o for o in options if o.upper().endswith(" ID")]
    if not match:
        raise IllegalRoll(f"{die['die']} has no face {face!r} (faces: {', '.join(options)})")
    return str(match[0])


def faces_validator(dice: list[dict[str, Any]]) -> Callable[[dict[str, Any]], list[str]]:
    """Validator of a ``roll`` answer: one face per die of `dice` (each ``{"die", "faces", ...}``), as the
    face text (case and spacing free; "ID" for the die's ID face) or its 1-based number on the die."""

    def validate(action: dict[str, Any]) -> list[str]:
        faces = action.get("faces")
        if not isinstance(faces, list):
            raise IllegalRoll("'faces' must be a list with one face per die")
        if len(faces) != len(dice):
            raise IllegalRoll(f"{len(dice)} dice must be rolled, but {len(faces)} faces were given")
        return [match_face(die, face) for die, face in zip(dice, faces, strict=True)]

    return validate


def ask_roll(
    topic: str, player: str, prompt: str, rule: str, *, dice: list[dict[str, Any]], data: dict[str, Any]
) -> Decision:
    """A ``roll`` decision on `topic`: `player` rolls `dice` (each ``{"uid", "die", "faces"}``), asked with
    `prompt` under `rule` (the citation, written at the call site), with `data`; its answer is read by
    :func:`faces_validator` of those dice (the flow receives one face text per die, in order).
    The one shape of "roll these dice and tell me the faces" that rule modules ask."""
    return ask(topic, player, "roll", prompt, rule, dice=dice, data=data, validate=faces_validator(dice))
