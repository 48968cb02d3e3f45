"""Air spells, V4.01c L2157-2193."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.state import RESERVE, UNTIL_YOUR_NEXT_TURN
from ..dua import kill_flow
from .casting import damage_army, present_units, units_save
from .registry import (
    ARMY,
    OPPOSING_ARMY,
    OPPOSING_UNIT,
    TERRAIN,
    UNITS_AT_TERRAIN,
    lasting,
    spell,
)

if TYPE_CHECKING:
    from ..context import Flow, RuleContext

LASTING = UNTIL_YOUR_NEXT_TURN


@spell("Hailstorm", "2159-2161", OPPOSING_ARMY, per_casting=1)
def hailstorm(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """1 damage per casting to the target army, which saves as an army (L2159-2161, L1115)."""
    yield from damage_army(game, entry["target"], 1 * entry["castings"], "Hailstorm", "V4.01c L2159-2161")


@spell("Blizzard", "2163-2166", TERRAIN, per_casting=3, duration=LASTING)
def blizzard(game: RuleContext, entry: dict[str, Any]) -> None:
    """-3 melee per casting to every army roll at the terrain (L2163-2166); resolution: v4/spells.py."""
    lasting(game, entry, entry["target"])


@spell("Wilding", "2167-2171", ARMY, per_casting=1, duration=LASTING)
def wilding(game: RuleContext, entry: dict[str, Any]) -> None:
    """The army may double one unit's melee and saves per casting (L2167-2171)."""
    lasting(game, entry, entry["target"])


@spell("Wind Walk", "2172-2174", ARMY, per_casting=4, duration=LASTING)
def wind_walk(game: RuleContext, entry: dict[str, Any]) -> None:
    """+4 maneuver per casting (L2172-2174)."""
    lasting(game, entry, entry["target"])


@spell("Fields of Ice", "2175-2181", TERRAIN, per_casting=4, duration=LASTING)
def fields_of_ice(game: RuleContext, entry: dict[str, Any]) -> None:
    """-4 maneuver per casting at the terrain; counter-maneuvers there win ties (L2175-2181; the tie
    rule: ``counter_wins_ties``)."""
    lasting(game, entry, entry["target"])


def counter_wins_ties(game: RuleContext, terrain_id: str) -> bool:
    """Fields of Ice on the terrain: ties in maneuver rolls there go to the counter-maneuver (L2178-2181)."""
    return any(e.name == "Fields of Ice" and e.target == terrain_id for e in game.state.effects)


@spell("Mirage", "2182-2185", UNITS_AT_TERRAIN, per_casting=5, up_to=True)
def mirage(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """Up to 5 health-worth per casting of units at a terrain save; those with no save result go to
    their Reserve Area (L2182-2185)."""
    st = game.state
    targets = present_units(game, entry)
    saves = yield from units_save(game, targets, "Mirage", "V4.01c L2182-2185")
    moved = [u for u in targets if saves[u] <= 0]
    for uid in moved:
        st.location[uid] = RESERVE
    if moved:
        game.say("Mirage moves " + ", ".join(st.units[u].name for u in moved) + " to the Reserve Area")


@spell("Lightning Strike", "2187-2193", OPPOSING_UNIT)
def lightning_strike(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """The unit saves alone; without a save result it is killed (L2187-2193)."""
    uid = entry["target"]
    saves = yield from units_save(game, [uid], "Lightning Strike", "V4.01c L2187-2193")
    if saves[uid] <= 0:
        yield from kill_flow(game, [uid], save_roll=True, army_targeted=False, cause="Lightning Strike")
    else:
        game.say(f"{game.state.units[uid].name} saves against Lightning Strike")
