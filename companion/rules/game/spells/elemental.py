"""Elemental spells, V4.01c L2388-2446.  Summon Dragon and Summon White Dragon belong to the dragons
module, the Dragonkin, Eldarim and minor-terrain spells to ``advanced.spells``: only their targets
are declared here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.decisions import ask, choice, choose_validator
from ...core.ids import ArmyId
from ..dua import promote, return_from_dua
from .casting import present_units
from .registry import (
    ELDARIM_UNIT,
    OWN_AMAZONS_AT_TERRAIN,
    OWN_BUA_MINOR,
    OWN_DRAGONKIN,
    OWN_DUA_UNITS,
    OWN_POOL_DRAGONKIN,
    TERRAIN,
    declare,
    spell,
)

if TYPE_CHECKING:
    from ..context import Flow, RuleContext


def _promote_by(game: RuleContext, uid: str, steps: int, source: str, spell_name: str, rule: str) -> Flow:
    """Promote `uid` by up to `steps` health-worth (L1153-1155): its owner picks the new unit."""
    st = game.state
    unit = st.units[uid]
    options = sorted(
        (
            u
            for u in st.units.values()
            if u.owner == unit.owner
            and st.location[u.uid] == source
            and u.is_unit
            and u.spec.species == unit.spec.species
            and 0 < u.health - unit.health <= steps
        ),
        key=lambda u: (u.health, u.name, u.uid),
    )
    if not options:
        game.say(f"{spell_name}: no unit to promote {unit.name} to")
        return
    opts, seen = [], set()
    for u in options:
        if u.name not in seen:
            seen.add(u.name)
            opts.append(choice(u.uid, f"Promote {unit.name} to {u.name}"))
    pick = opts[0]["value"]
    if len(opts) > 1:
        pick = yield ask(
            "spell_choice",
            unit.owner,
            "choice",
            f"{game.player_name(unit.owner)}: {spell_name}: promote {unit.name} to which unit?",
            rule,
            opts,
            validate=choose_validator(opts),
        )
    for line in promote(st, [(uid, pick)], budget=steps):
        game.say(f"{spell_name}: {line}")


@spell("Resurrect Dead", "2395-2405", OWN_DUA_UNITS, per_casting=1)
def resurrect_dead(game: RuleContext, entry: dict[str, Any]) -> None:
    """Return 1 health-worth per casting of units of the element paid (Amazons: any element or
    Ivory) from your DUA to the casting army (L2395-2405)."""
    st = game.state
    pid, loc = entry["caster"], ArmyId.parse(entry["army"]).location
    units = present_units(game, entry)
    if not st.army(pid, loc).units:
        game.say("Resurrect Dead: the casting army is gone")
        return
    for line in return_from_dua(st, units, pid, loc, "V4.01c L2395-2405"):
        game.say("Resurrect Dead: " + line)


@spell("Rally", "2417-2420", OWN_AMAZONS_AT_TERRAIN, per_casting=3, up_to=True)
def rally(game: RuleContext, entry: dict[str, Any]) -> None:
    """Up to 3 of your Amazon units per casting at a terrain move to another terrain where you have
    an Amazon unit (L2417-2420)."""
    st = game.state
    to = entry["to"]
    if not any(u.spec.species == "Amazons" for u in st.army(entry["caster"], to).units):
        game.say("Rally: no Amazon unit is left at the destination; nothing moves (V4.01c L478-480)")
        return
    moved = present_units(game, entry)
    for uid in moved:
        st.location[uid] = to
    game.say("Rally moves " + ", ".join(st.units[u].name for u in moved) + f" to {st.terrains[to].name}")


# Their effects (summoning, the dragon's arrival) belong to dragon_summoning (``rulebook`` adds them).
declare("Summon Dragon", "2428-2437", TERRAIN, per_casting=1)
declare("Summon White Dragon", "2438-2445", TERRAIN, per_casting=1)
# The spells of the optional components' sheets: effects in ``companion.rules.game.advanced.spells``,
# one die id as the target.  Their castings accumulate there one announcement at a time, so a combined
# casting is announced as that many castings on the same die (``castings`` stays 1).
declare("Evolve Dragonkin", "2388-2394", OWN_DRAGONKIN)
declare("Esfah's Gift", "2406-2408", OWN_BUA_MINOR)
declare("Summon Dragonkin", "2409-2416", OWN_POOL_DRAGONKIN)
declare("Rise of the Eldarim", "2421-2427", ELDARIM_UNIT)
