"""Which target a dragon attacks (V4.01c L578-641), and what a dragon is made of (L540-576).

A dragon attacks another dragon at the same terrain where the table allows it; only when it has no
such dragon to attack does it attack the marching player's army (L584-587).  The table is not
symmetric: a dragon may attack one that does not attack it back (L638-641).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

_D = TypeVar("_D")  # a die of the flow (Unit) or of the catalogue

ELEMENTAL = "elemental"
HYBRID = "hybrid"
IVORY = "ivory"
IVORY_HYBRID = "ivory_hybrid"
WHITE = "white"
DRAGON_TYPES = (ELEMENTAL, HYBRID, IVORY, IVORY_HYBRID, WHITE)
ARMY = "army"

CITE_TABLE = "V4.01c L589-636"
CITE_TYPES = "V4.01c L540-576"


def dragon_type(die: object) -> str:
    """The type of a dragon die (a catalogue ``Die`` or the flow's ``DieSpec``), from its elements.

    Types by make-up (V4.01c L547-576): one element = Elemental; two = Hybrid; no element = Ivory;
    one element and ivory = Ivory Hybrid; White = all five elements, ten health.  The catalogue
    records the Ivory dragons as "Elemental Dragon" with no element, so the elements decide."""
    label = str(
        getattr(getattr(die, "die", None), "dragon_type", None) or getattr(die, "dragon_type", "") or ""
    )
    elements = tuple(getattr(die, "elements", ()))
    if "White" in label or len(elements) >= 5:
        return WHITE
    if "Ivory Hybrid" in label:
        return IVORY_HYBRID
    if not elements:
        return IVORY
    if len(elements) == 2:
        return HYBRID
    if len(elements) == 1:
        return ELEMENTAL
    raise ValueError(f"{getattr(die, 'name', die)!r} has elements {elements}: not a dragon make-up of V4.01c")


def will_attack(
    attacker_type: str, attacker_elements: Sequence[str], target_type: str, target_elements: Sequence[str]
) -> bool:
    """Would a dragon of `attacker_type` attack a dragon of `target_type` (V4.01c L589-636)?"""
    a, t = set(map(str, attacker_elements)), set(map(str, target_elements))
    if attacker_type in (IVORY, IVORY_HYBRID):
        return False  # Ivory and Ivory Hybrid rows: armies only (V4.01c L628-630)
    if target_type == IVORY:
        return False  # the Ivory column is 'No' in every row (V4.01c L600, L618, L633)
    if attacker_type == ELEMENTAL:  # V4.01c L593-608
        if target_type == ELEMENTAL:
            return not a & t  # unless the same element
        if target_type == IVORY_HYBRID:
            return not a & t  # unless the element matches
        return target_type in (HYBRID, WHITE)
    if attacker_type == HYBRID:  # V4.01c L610-626
        if target_type == HYBRID:
            return a != t  # unless matching both elements
        if target_type == IVORY_HYBRID:
            return not a & t  # unless matching one element
        return target_type in (ELEMENTAL, WHITE)
    if attacker_type == WHITE:  # V4.01c L632-636
        return target_type in (ELEMENTAL, HYBRID, IVORY_HYBRID)  # never Ivory, never another White
    raise ValueError(f"unknown dragon type {attacker_type!r}; one of {DRAGON_TYPES}")


def dragon_targets(dragon: object, others: Sequence[_D]) -> list[_D]:
    """The dragons among `others` (at the same terrain) that `dragon` may attack; empty means it
    attacks the marching player's army (V4.01c L584-587).  Dice are ``DieSpec``/``Unit``-like:
    anything with ``elements`` (a ``Unit`` is read through its ``spec``)."""
    spec: Any = getattr(dragon, "spec", dragon)  # duck-typed: a Unit's DieSpec or a catalogue die
    mine = dragon_type(spec)
    out: list[_D] = []
    for other in others:
        if other is dragon:
            continue
        ospec: Any = getattr(other, "spec", other)
        if will_attack(mine, spec.elements, dragon_type(ospec), ospec.elements):
            out.append(other)
    return out


def target_table() -> dict[tuple[str, str], str]:
    """The printed table as data, for the page: (attacker type, target type) -> condition."""
    return {
        (ELEMENTAL, ELEMENTAL): "yes, unless the same element",
        (ELEMENTAL, HYBRID): "yes",
        (ELEMENTAL, IVORY): "no",
        (ELEMENTAL, IVORY_HYBRID): "yes, unless the element matches",
        (ELEMENTAL, WHITE): "yes",
        (HYBRID, ELEMENTAL): "yes",
        (HYBRID, HYBRID): "yes, unless matching both elements",
        (HYBRID, IVORY): "no",
        (HYBRID, IVORY_HYBRID): "yes, unless matching one element",
        (HYBRID, WHITE): "yes",
        **{(IVORY, t): "no" for t in DRAGON_TYPES},
        **{(IVORY_HYBRID, t): "no" for t in DRAGON_TYPES},
        (WHITE, ELEMENTAL): "yes",
        (WHITE, HYBRID): "yes",
        (WHITE, IVORY): "no",
        (WHITE, IVORY_HYBRID): "yes",
        (WHITE, WHITE): "no",
        **{
            (t, ARMY): "yes, if no valid dragon target" if t not in (IVORY, IVORY_HYBRID) else "yes"
            for t in DRAGON_TYPES
        },
    }
