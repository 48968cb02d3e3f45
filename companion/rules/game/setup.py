"""Set-up rules, steps 1-5 (V4.01c L276-347; multi-player L2454-2489).

Pure functions: force point values, dragons required, the army size cap, legal placements, order of
play from the Horde maneuver totals, starting distances.  The flow (``flow.py``) asks for the rolls
and choices and calls these to decide what is legal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..core.errors import IllegalSetup
from ..core.state import DieSpec

ARMY_NAMES = ("home", "horde", "campaign")
SUGGESTED_FORCE_SIZES = (15, 24, 30, 36, 60)  # V4.01c L278
# Armies allowed on one terrain when placing a Campaign army.  V4.01c L331 only says "where you do
# not already have an army"; the FAQ rulings (FAQ95 SET-UP 5.C, FAQ96 SET-UP E.5) add the cap of
# three armies and the fallback to the Reserve Area when no terrain is left.
PLACEMENT_CAP = 3


def item_points(items: Iterable[DieSpec]) -> int:
    """Point value of items (V4.01c L83-101, L2709-2712).

    Small equipment 1, large 2, artifact 3, medallion and relic 4.  Medium equipment costs 3 per
    pair: 2 for the first of a pair and 1 for the second (a pair need not match), so an odd one out
    costs 2 (three mediums: 2 + 1 + 2 = 5).
    """
    total = 0
    mediums = 0
    for spec in items:
        size = (spec.size or "").lower()
        if spec.points:
            total += spec.points
        elif size == "medium":
            mediums += 1
        elif size == "small":
            total += 1
        elif size == "large":
            total += 2
        elif size == "artifact":
            total += 3
        elif size in ("medallion", "relic"):
            total += 4
        else:
            raise IllegalSetup(f"item {spec.name!r} has no known size for its point value", "V4.01c L83-101")
    total += 3 * (mediums // 2) + 2 * (mediums % 2)
    return total


def force_points(dice: Iterable[DieSpec]) -> int:
    """Points of units (their health, V4.01c L87) plus items (``item_points``)."""
    dice = list(dice)
    units = sum(d.health for d in dice if d.kind == "unit")
    return units + item_points(d for d in dice if d.kind == "item")


def dragons_required(force_size: int) -> int:
    """Exactly one dragon per 24 points of force, or part thereof (V4.01c L290-292)."""
    if force_size <= 0:
        raise IllegalSetup(f"force size must be positive, not {force_size}", "V4.01c L276-281")
    return math.ceil(force_size / 24)


def dragon_count(dragons: Iterable[DieSpec]) -> int:
    """Dragons brought, with a White Dragon counting as two (V4.01c L575)."""
    return sum(2 if "white" in d.name.lower() else 1 for d in dragons)


def dragonkin_allowance(force_size: int, dracolem_points: int = 0) -> int:
    """Health-worth of Dragonkin a player may bring: one per full 3 points of non-Dracolem force
    (V4.01c L2512-2514; V4-08: 36 points -> 12, 35 -> 11, 36 with 6 of Dracolem -> 10)."""
    return max(0, force_size - dracolem_points) // 3


def minor_terrain_allowance(n_players: int) -> int:
    """Minor terrains a player may bring: the number of terrains in the game plus one (V4.01c L2599-2600;
    V4-09: 2 players, 3 terrains -> 4).  Each player brings a Home terrain; one Frontier is kept."""
    return (n_players + 1) + 1


def army_cap(force_size: int) -> int:
    """No army may hold more than half the total force points, rounded down (V4.01c L304-306)."""
    return force_size // 2


def validate_force(
    force_size: int, armies: Mapping[str, Sequence[DieSpec]], dragons: Sequence[DieSpec], who: str = "player"
) -> int:
    """Check one player's force (steps 1-2); returns its point total.  Raises ``IllegalSetup``."""
    missing = [n for n in ARMY_NAMES if n not in armies]
    extra = [n for n in armies if n not in ARMY_NAMES]
    if missing or extra:
        raise IllegalSetup(
            f"{who}: armies must be exactly home, horde and campaign (missing {missing}, unknown {extra})",
            "V4.01c L296-302",
        )
    cap = army_cap(force_size)
    total = 0
    for name in ARMY_NAMES:
        dice = list(armies[name])
        for d in dice:
            if d.kind not in ("unit", "item"):
                raise IllegalSetup(
                    f"{who}: {d.name!r} ({d.kind}) cannot be placed in an army", "V4.01c L296-302"
                )
        if not any(d.kind == "unit" for d in dice):
            raise IllegalSetup(f"{who}: the {name} army needs at least one unit", "V4.01c L304-306")
        pts = force_points(dice)
        if pts > cap:
            raise IllegalSetup(
                f"{who}: the {name} army is worth {pts} points, more than half the force ({cap})",
                "V4.01c L304-306",
            )
        total += pts
    if total != force_size:
        raise IllegalSetup(
            f"{who}: the force is worth {total} points but the agreed force size is {force_size}",
            "V4.01c L276-281",
        )
    need = dragons_required(force_size)
    have = dragon_count(dragons)
    for d in dragons:
        if d.kind != "dragon":
            raise IllegalSetup(f"{who}: {d.name!r} is not a dragon", "V4.01c L290-292")
    if have != need:
        raise IllegalSetup(
            f"{who}: brings {have} dragon(s) (a White Dragon counts as 2) but a {force_size}-point "
            f"force needs exactly {need}",
            "V4.01c L290-292, L575",
        )
    return total


def die_points(spec: DieSpec) -> int:
    """Force points of one die: a unit its health (V4.01c L87), an item by size (``item_points``; a
    medium is priced 2 alone, its pair comes in ``force_points``), a dragon none (V4.01c L290-292)."""
    if spec.kind == "unit":
        return spec.health
    return item_points([spec]) if spec.kind == "item" else 0


def force_report(
    force_size: int, armies: Mapping[str, Sequence[DieSpec]], dragons: Sequence[DieSpec]
) -> dict[str, Any]:
    """One player's force while it is built, checked by steps 1-2 without raising (``validate_force``
    is the check a game starts with; these are the same rules, each line with whether it is met):
    ``{"total", "armies": {name: points}, "measure": "pts", "army_cap", "dragons": counted, "dragons_required",
    "checks": [{"ok", "text", "rule"}]}``.  No dragon chosen is met: the quick start brings them.
    An army name the game does not have is refused (``IllegalSetup``), not left out of the count."""
    unknown = [n for n in armies if n not in ARMY_NAMES]
    if unknown:  # V4.01c L296-302: a force is a home, a horde and a campaign army
        raise IllegalSetup(
            f"{unknown[0]!r} is not an army: a force's armies are {', '.join(ARMY_NAMES)}", "V4.01c L296-302"
        )
    cap = army_cap(force_size)
    points = {name: force_points(armies.get(name, ())) for name in ARMY_NAMES}
    total = sum(points.values())
    checks = [
        {"ok": total == force_size, "text": f"{total} of {force_size} points", "rule": "V4.01c L276-281"}
    ]
    for name in ARMY_NAMES:
        dice = list(armies.get(name, ()))
        ok = (
            points[name] <= cap
            and any(d.kind == "unit" for d in dice)
            and all(d.kind in ("unit", "item") for d in dice)
        )
        checks.append(
            {
                "ok": ok,
                "text": f"{name}: {points[name]} pts, at most {cap}, at least one unit",
                "rule": "V4.01c L296-306",
            }
        )
    need = dragons_required(force_size)
    have = dragon_count(dragons)
    checks.append(
        {
            "ok": have in (0, need) and all(d.kind == "dragon" for d in dragons),
            "text": f"{have} of {need} dragon(s), a White Dragon counts 2"
            + ("; none chosen: suggested ones are brought" if not dragons else ""),
            "rule": "V4.01c L290-292, L575",
        }
    )
    return {
        "total": total,
        "armies": points,
        "measure": "pts",
        "army_cap": cap,
        "dragons": have,
        "dragons_required": need,
        "checks": checks,
    }


def legal_horde_terrains(player: str, homes: Mapping[str, str], army_count: Mapping[str, int]) -> list[str]:
    """Any other player's Home Terrain (V4.01c L330; FAQ95 SET-UP 5.D: forced with two players).
    The three-army cap of the FAQ rulings concerns the Campaign army only."""
    return [tid for pid, tid in homes.items() if pid != player]


def legal_campaign_terrains(
    terrains: Sequence[str], own_armies: Iterable[str], army_count: Mapping[str, int]
) -> list[str]:
    """Any terrain where the player has no army yet (V4.01c L331), and fewer than three armies
    (FAQ95 SET-UP 5.C).  An empty list means the army starts in the Reserve Area (FAQ96 SET-UP E.5)."""
    own = set(own_armies)
    return [t for t in terrains if t not in own and army_count.get(t, 0) < PLACEMENT_CAP]


def rank_totals(totals: Mapping[str, int]) -> list[list[str]]:
    """Group players by maneuver total, highest first; a group of two or more is a tie to re-roll
    (V4.01c L316, multi-player L2462-2464)."""
    groups: dict[int, list[str]] = {}
    for pid, total in totals.items():
        groups.setdefault(total, []).append(pid)
    return [groups[t] for t in sorted(groups, reverse=True)]


def turn_order_after_choice(ranked: Sequence[str], winner_takes_first: bool) -> tuple[list[str], str]:
    """Turn order and Frontier selector once the top roller has chosen (V4.01c L318-322, L2466-2472).

    Taking the first turn gives the Frontier choice to the next highest roller; choosing the
    Frontier makes the top roller go second and the next highest go first.
    """
    order = list(ranked)
    if len(order) < 2:
        raise IllegalSetup("a game needs at least two players", "V4.01c L259-263")
    if winner_takes_first:
        return order, order[1]
    return [order[1], order[0], *order[2:]], order[0]


def starting_face(rolled: int) -> int | None:
    """Starting distance from a terrain roll: 8 is re-rolled (None), 7 is turned to 6 (V4.01c L340-343)."""
    if not 1 <= rolled <= 8:
        raise IllegalSetup(f"a terrain die has faces 1-8, not {rolled}", "V4.01c L340-343")
    if rolled == 8:
        return None
    return min(rolled, 6)
