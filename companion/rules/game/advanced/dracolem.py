"""Dracolem (V4.01c L225-226, L1157, L1609-1617, L2512-2514, L2752-2753): alloys instead of elements.

V4.01c gives Dracolem no species page (inventory A13.3); what it does say:

* they have no element but one of three alloys, Bronze, Silver or Gold (L225-226), read here from
  the die's name; the alloy decides which Dracolem a Gate moves;
* they are never promoted nor recruited (L1157): ``dua.promote`` / ``dua.recruit`` refuse them and
  the flow's City skips them; ``may_be_promoted`` says so for the other modules;
* they may carry equipment of any element (L2752-2753; ``items.can_carry``);
* their health does not count toward the Dragonkin allowance (L2512-2514; ``setup.dragonkin_allowance``);
* Gate (L1609-1617): in a non-maneuver roll the unit may move up to four health-worth of *other*
  Dracolem of its alloy from its army to any terrain or the Reserve Area.  The move itself is made
  by the flow's SAI module (``sai_general``); ``gate_movers`` lists who may go.
* Their magic is of their alloy, never an element nor ivory (L2091-2101): it pays for spells of
  that alloy and for "Alloy" spells, never for elemental ones (``after_roll`` sets it for the
  spell payment).  Their alloy spell cards are not printed in V4.01c: the resolution engine accepts
  them by name with no effect (``v4.spells.UNDOCUMENTED_SPELLS``).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any

from ...core.state import Unit
from .options import DRACOLEM, is_on

if TYPE_CHECKING:
    from ...core.state import Army
    from ..context import RuleContext
    from ..rolling import RollOutcome

ALLOYS = ("Bronze", "Silver", "Gold")


def is_dracolem(unit: Unit) -> bool:
    return unit.is_unit and "Dracolem" in unit.spec.species


def alloy_of(unit: Unit) -> str | None:
    """The alloy of a Dracolem die ("Dracolem/Bronze Draco-Tank" -> "Bronze"), else None."""
    if not is_dracolem(unit):
        return None
    short = unit.name.split("/")[-1]
    return next((a for a in ALLOYS if short.startswith(a)), None)


def may_be_promoted(unit: Unit) -> bool:
    """Dracolem can never be promoted or recruited (L1157)."""
    return unit.is_unit and not is_dracolem(unit)


def gate_movers(gate: Unit, army: Sequence[Unit], budget: int = 4) -> list[Unit]:
    """Dracolem a Gate may move: other Dracolem of the Gate unit's alloy in its army, at most
    `budget` health-worth each (L1609-1617)."""
    alloy = alloy_of(gate)
    return [
        u
        for u in army
        if u.uid != gate.uid and alloy is not None and alloy_of(u) == alloy and u.health <= budget
    ]


def after_roll(
    game: RuleContext, army: Army, roll: str, outcome: RollOutcome, ctx: dict[str, Any]
) -> Generator[Any, Any, None]:
    """A Dracolem's magic is of its alloy (L2091-2101)."""
    if roll != "magic" or not is_on(game, DRACOLEM):
        return
    yield from ()
    for uid in list(outcome.magic_kinds) + list(outcome.magic_by_die):
        unit = game.state.units.get(uid)
        alloy = alloy_of(unit) if unit is not None else None
        if alloy is not None and outcome.magic_by_die.get(uid, 0) > 0:
            outcome.magic_kinds[uid] = (alloy,)
