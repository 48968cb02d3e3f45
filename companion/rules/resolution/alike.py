"""Rolls that differ only in which die shows which face: do they come out the same?

A camera can be sure of the faces an army rolled and still not know which of two look-alike dice shows
which (two die types of one species share their faces' art).  Such a roll can be used as read when
every way of giving the faces to the dice gives the same results: :func:`same_outcome` resolves each
way and compares what the game goes on with.  A unit whose face differs between the ways must show no
SAI in any of them: an SAI can act on the very unit that rolled it (Vanish moves it, V4.01c
L2019-2023; re-rolling SAIs make that unit roll again, L1013-1015), so which die showed it matters
even when the totals agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .editions import Edition
from .engine import resolve
from .model import ResolutionError, RollRequest


def _what_counts(request: RollRequest, edition: Edition | None) -> tuple[Any, ...]:
    """What the game goes on with from one resolved request: totals, magic by element, other results,
    and the reports (their unit left out: the units are the ones being swapped)."""
    res = resolve(request, edition)
    reports = sorted((r.source, r.text, r.amount, r.kind) for r in res.reports)
    return (
        sorted(res.totals.items()),
        sorted(res.magic.items()),
        sorted(res.other.items()),
        reports,
    )


def same_outcome(requests: Sequence[RollRequest], edition: Edition | None = None) -> bool:
    """True when every request resolves to the same results (totals, magic by element, other results,
    reports), and no unit whose faces differ between them shows an SAI in any (module docstring).

    The requests must be one roll given in different ways: the same dice in the same order, each
    counting or not alike, and the same circumstances; otherwise ``ResolutionError`` names the first
    difference.  One request is trivially the same as itself."""
    if not requests:
        raise ResolutionError("no roll to compare", key="requests")
    first = requests[0]
    for n, req in enumerate(requests[1:], 1):
        if len(req.units) != len(first.units):
            raise ResolutionError(
                f"{len(req.units)} dice against {len(first.units)} in the first", key=f"requests[{n}].units"
            )
        for i, (a, b) in enumerate(zip(first.units, req.units, strict=True)):
            if a.die.name != b.die.name or a.counts != b.counts:
                raise ResolutionError(
                    f"{b.die.name} against {a.die.name} in the first", key=f"requests[{n}].units[{i}]"
                )
        if (req.purpose, req.against, req.terrain, req.effects, req.edition) != (
            first.purpose,
            first.against,
            first.terrain,
            first.effects,
            first.edition,
        ):
            raise ResolutionError("another roll, not the same roll given another way", key=f"requests[{n}]")
    for i in range(len(first.units)):
        shown = {tuple(f.text() for f in req.units[i].faces) for req in requests}
        if len(shown) > 1 and any(f.is_sai for req in requests for f in req.units[i].faces):
            return False
    kept = _what_counts(first, edition)
    return all(_what_counts(req, edition) == kept for req in requests[1:])
