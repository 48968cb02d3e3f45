"""Rise from the Ashes (SAI, V4.01c L1767-1781), the one place of its rule.

A unit with the SAI that is killed or buried rolls; if the SAI comes up it goes to its owner's Reserve
Area instead (L1772-1778).  Kills go through ``death_hook`` (a death hook of every game, ``rulebook``);
burials (the Temple, spells that bury, dragon breath, Soiled Ground) call ``rises`` or
``rise_from_the_ashes``; SAI and species effects that kill (and may bury) call ``kill_units``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ..core.state import RESERVE, Unit
from .dua import kill_flow
from .sai_targeting import plain_roll

if TYPE_CHECKING:
    from .context import RuleContext
    from .dua import Death

SAI = "Rise from the Ashes"
RULE = "V4.01c L1767-1781"
Flow = Generator[Any, Any, Any]


def rises(game: RuleContext, unit: Unit, when: str) -> Flow:
    """Whether `unit`, being `when` ("killed" or "buried"), rises: a unit with the SAI rolls and the SAI
    comes up.  A unit without it does not roll."""
    if SAI not in unit.spec.catalogue_die.sai_names:
        return False
    face = yield from plain_roll(game, unit, f"{SAI}: roll {unit.name} ({when})", RULE)
    return unit.spec.find_face(face).sai == SAI


def rise_from_the_ashes(game: RuleContext, uids: list[str], when: str) -> Flow:
    """Each unit of `uids` that rises goes to the Reserve Area now.  Returns the uids saved (moved)."""
    st = game.state
    saved = []
    for uid in uids:
        unit = st.units[uid]
        if (yield from rises(game, unit, when)):
            st.location[uid] = RESERVE
            saved.append(uid)
            game.say(f"{SAI}: {unit.name} goes to the Reserve Area instead of being {when} ({RULE})")
    return saved


def kill_units(game: RuleContext, uids: list[str], *, cause: str, bury: bool = False) -> Flow:
    """Kill units in play through the death hooks (``dua.kill_flow``); an effect that kills and
    buries lets Rise from the Ashes roll first (L1767-1781)."""
    st = game.state
    uids = [u for u in uids if st.location.get(u) in st.terrains or st.location.get(u) == RESERVE]
    if not uids:
        return
    if bury:
        keep = yield from rise_from_the_ashes(game, uids, "killed")
        uids = [u for u in uids if u not in keep]
        yield from kill_flow(game, uids, save_roll=False, cause=cause, bury_too=True)
        return
    yield from kill_flow(game, uids, save_roll=False, cause=cause)


def death_hook(game: RuleContext, deaths: list[Death]) -> Flow:
    """Death hook: a unit killed on its way to the DUA that rises goes to the Reserve Area instead."""
    for d in deaths:
        if d.to_dua and (yield from rises(game, game.state.units[d.uid], "killed")):
            d.dest = RESERVE
            d.notes.append(f"{SAI}, {RULE}")
