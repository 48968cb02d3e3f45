"""Decisions of the r96 flow: ``_ask`` builds one (a choice validates against its listed values) and
``_faces_validator`` reads a roll's faces (text or 1-based number per die)."""

from __future__ import annotations

from typing import Any

from ...game.decisions import Decision, choose_validator
from ...game.errors import IllegalRoll


def ask(topic: str, player: str, kind: str, prompt: str, rule: str = "", choices: list | None = None,
         **kw: Any) -> Decision:
    d = Decision(player, kind, prompt, rule, choices or [], **kw)
    d.topic = topic
    if d.validate is None and kind == "choice":
        d.validate = choose_validator(d.choices, rule)
    return d


def faces_validator(dice: list[dict]):
    def validate(action: dict) -> list[str]:
        faces = action.get("faces")
        if not isinstance(faces, list) or len(faces) != len(dice):
            raise IllegalRoll(f"give one face per die: {len(dice)} dice are rolled")
        out = []
        for die, face in zip(dice, faces, strict=True):
            options = die["faces"]
            if isinstance(face, int) and not isinstance(face, bool):
                if not 1 <= face <= len(options):
                    raise IllegalRoll(f"{die['die']} has faces 1-{len(options)}, not {face}")
                out.append(options[face - 1])
                continue
            text = " ".join(str(face).split()).lower()
            hit = [o for o in options if o.lower() == text or (text == "id" and o.lower().endswith(" id"))]
            if not hit:
                raise IllegalRoll(f"{die['die']} has no face {face!r}; its faces: {options}")
            out.append(hit[0])
        return out

    return validate

