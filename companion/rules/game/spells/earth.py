"""Earth spells, V4.01c L2251-2296, with Wall of Thorns' maneuver hook."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.state import RESERVE, UNTIL_YOUR_NEXT_TURN
from .casting import present_units
from .registry import (
    ARMY,
    FERAL_ARMY,
    OPPOSING_ARMY,
    OPPOSING_UNITS_AT_TERRAIN,
    OWN_UNIT_AT_TERRAIN,
    TERRAIN_NOT_EIGHTH,
    lasting,
    spell,
)

if TYPE_CHECKING:
    from ..context import Flow, RuleContext

LASTING = UNTIL_YOUR_NEXT_TURN


@spell("Stone Skin", "2253-2256", ARMY, per_casting=1, duration=LASTING)
def stone_skin(game: RuleContext, entry: dict[str, Any]) -> None:
    """+1 save per casting (L2253-2256)."""
    lasting(game, entry, entry["target"])


@spell("Path", "2257-2259", OWN_UNIT_AT_TERRAIN, per_casting=1)
def path(game: RuleContext, entry: dict[str, Any]) -> None:
    """Move one of your units (one per combined casting, L2139-2148) at a terrain to another terrain
    where you have an army (L2257-2259); that army must still be there when Path resolves."""
    st = game.state
    to = entry["to"]
    uids = entry.get("units") or [entry["target"]]
    if not st.army(entry["caster"], to).units:
        game.say("Path: the destination army is gone; nothing moves (V4.01c L478-480)")
        return
    for uid in uids:
        if st.location[uid] not in st.terrains:
            game.say(
                f"Path: {st.units[uid].name} is no longer at a terrain; it does not move (V4.01c L478-480)"
            )
            continue
        st.location[uid] = to
        game.say(f"Path moves {st.units[uid].name} to {st.terrains[to].name}")


@spell("Berserker Rage", "2260-2268", FERAL_ARMY, duration=LASTING)
def berserker_rage(game: RuleContext, entry: dict[str, Any]) -> None:
    """Feral units of the army count saves as melee in counter-attacks (L2260-2268)."""
    lasting(game, entry, entry["target"])


@spell("Higher Ground", "2269-2275", OPPOSING_ARMY, per_casting=5, duration=LASTING)
def higher_ground(game: RuleContext, entry: dict[str, Any]) -> None:
    """-5 melee per casting (L2269-2275)."""
    lasting(game, entry, entry["target"])


@spell("Scent of Fear", "2276-2279", OPPOSING_UNITS_AT_TERRAIN, per_casting=3, up_to=True)
def scent_of_fear(game: RuleContext, entry: dict[str, Any]) -> None:
    """Up to 3 health-worth per casting of opposing units at a terrain go to their Reserve Area
    (L2276-2279)."""
    st = game.state
    moved = present_units(game, entry)
    for uid in moved:
        st.location[uid] = RESERVE
    game.say("Scent of Fear moves " + ", ".join(st.units[u].name for u in moved) + " to the Reserve Area")


@spell("Wall of Thorns", "2280-2289", TERRAIN_NOT_EIGHTH, per_casting=6, duration=LASTING)
def wall_of_thorns(game: RuleContext, entry: dict[str, Any]) -> None:
    """An army that maneuvers the terrain takes 6 damage per casting, less its melee results
    (L2280-2289): ``wall_of_thorns_after_maneuver``."""
    lasting(game, entry, entry["target"])


def wall_of_thorns_after_maneuver(game: RuleContext, pid: str, terrain_id: str) -> Flow:
    """After a successful maneuver at a terrain under Wall of Thorns, the marching army makes a
    melee roll instead of a save roll and takes the damage left (L2280-2289)."""
    st = game.state
    castings = sum(
        int(e.detail.get("castings", 1))
        for e in st.effects
        if e.name == "Wall of Thorns" and e.target == terrain_id
    )
    army = st.army(pid, terrain_id)
    if not castings or not army.units:
        return
    damage = 6 * castings
    melee = yield from game.roll(
        army,
        "melee",
        f"{game.player_name(pid)}: Wall of Thorns: roll {game.army_label(army)} "
        f"for melee against {damage} damage",
        "V4.01c L2280-2289",
    )
    net = max(0, damage - melee.total)
    game.say(f"Wall of Thorns: {damage} damage - {melee.total} melee = {net} damage")
    yield from game.inflict(st.army(pid, terrain_id), net, save_roll=False)


@spell("Transmute Rock to Mud", "2290-2296", OPPOSING_ARMY, per_casting=6, duration=LASTING)
def transmute_rock_to_mud(game: RuleContext, entry: dict[str, Any]) -> None:
    """-6 maneuver per casting (L2290-2296)."""
    lasting(game, entry, entry["target"])
