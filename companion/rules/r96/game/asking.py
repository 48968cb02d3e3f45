"""Decisions of the r96 flow: ``ask`` builds one (a choice validates against its listed values);
``ask_roll`` (a roll of some dice) and ``faces_validator`` (reading a roll's faces, as text or 1-based
number per die) are the ones both editions share (``companion.rules.core.decisions``)."""

from __future__ import annotations

from typing import Any

from ...core.decisions import Decision, ask_roll, choose_validator, faces_validator
from ...core.decisions import ask as _ask

__all__ = ["ask", "ask_roll", "faces_validator"]


def ask(
    topic: str,
    player: str,
    kind: str,
    prompt: str,
    rule: str = "",
    choices: list[dict[str, Any]] | None = None,
    **kw: Any,
) -> Decision:
    d = _ask(topic, player, kind, prompt, rule, choices or [], **kw)
    if d.validate is None and kind == "choice":
        d.validate = choose_validator(d.choices, rule)
    return d
