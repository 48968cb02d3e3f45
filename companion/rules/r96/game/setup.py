"""1996 set-up rules (R96 L139-262), as pure functions; the flow asks for rolls and choices.

* Battle size is counted in health; dragons do not count (R96 L139-155; FAQ96 SET-UP A.2).
* One dragon, plus one per 25 health of forces; each dragon not brought costs 3 health of forces
  (R96 L146-150): a player who brings ``d`` of the ``n`` dragons fields ``size - 3 * (n - d)`` health.
* Three armies (home, campaign, horde) of at least one unit, none over half the forces' health,
  rounded down (R96 L157-182); home and campaign of one race each (FAQ95 SET-UP 2.A, FAQ96 B.1;
  option ``single_race_home_campaign``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...catalogue import load_catalogue
from ...core.errors import IllegalSetup
from ...core.state import DieSpec

ARMY_NAMES = ("home", "campaign", "horde")
PLACEMENT_CAP = 3  # R96 L238-240: no more than three armies at one terrain
RACES_1996 = ("Coral Elves", "Dwarves", "Goblins", "Lava Elves")
#: 1996 dragon colours: the catalogue's single-element dragons (yellow/gold is earth).
DRAGON_COLOURS = {"Earth": "gold", "Air": "blue", "Fire": "red", "Water": "green", "Death": "black"}
DRAGON_PENALTY = 3


def battle_size(size: object) -> int:
    """The battle size of a set-up, checked: a positive number of health (R96 L139-145)."""
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise IllegalSetup(
            f"the battle size must be a positive number of health, not {size!r}", "R96 L139-145"
        )
    return size


def dragons_required(size: int) -> int:
    """One dragon, plus one for every 25 health of forces (R96 L146-149: 35 health -> 2)."""
    return 1 + battle_size(size) // 25


def fielded_health(size: int, dragons_brought: int) -> int:
    """Health of units a player fields: 3 less per required dragon not brought (R96 L149-150)."""
    need = dragons_required(size)
    if dragons_brought > need:
        raise IllegalSetup(
            f"a {size}-health battle takes {need} dragon(s) per player, not {dragons_brought}", "R96 L146-150"
        )
    return size - DRAGON_PENALTY * (need - dragons_brought)


def army_cap(total_health: int) -> int:
    """No starting army over half the forces' health, rounded down (R96 L171-182; R96-02: 24 -> 12)."""
    return total_health // 2


def dragon_colour(spec: DieSpec) -> str:
    """The colour of a 1996 dragon (one element); refuses hybrids, white and ivory dragons."""
    if spec.kind != "dragon":
        raise IllegalSetup(f"{spec.name!r} is not a dragon", "R96 L146-155")
    if len(spec.elements) != 1 or spec.elements[0] not in DRAGON_COLOURS:
        raise IllegalSetup(
            f"{spec.name!r} is not a 1996 dragon (one colour: gold, blue, red, green or black)", "R96 L59-61"
        )
    return DRAGON_COLOURS[spec.elements[0]]


def validate_force(
    size: int,
    armies: Mapping[str, Sequence[DieSpec]],
    dragons: Sequence[DieSpec],
    single_race: bool = True,
    who: str = "player",
) -> int:
    """Check one player's force; returns the health fielded.  Raises ``IllegalSetup`` saying why."""
    missing = [n for n in ARMY_NAMES if n not in armies]
    extra = [n for n in armies if n not in ARMY_NAMES]
    if missing or extra:
        raise IllegalSetup(
            f"{who}: the armies must be exactly home, campaign and horde "
            f"(missing {missing}, unknown {extra})",
            "R96 L157-163; FAQ96 SET-UP B.3",
        )
    for d in dragons:
        dragon_colour(d)
    fielded = fielded_health(size, len(dragons))
    total = 0
    for name in ARMY_NAMES:
        dice = list(armies[name])
        if not dice:
            raise IllegalSetup(f"{who}: the {name} army needs at least one unit", "R96 L161-163")
        for d in dice:
            if d.kind != "unit":
                raise IllegalSetup(f"{who}: {d.name!r} is not a unit; only units form armies", "R96 L46-57")
        if single_race and name != "horde" and len({d.species for d in dice}) > 1:
            raise IllegalSetup(
                f"{who}: the {name} army must be of one race", "FAQ95 SET-UP 2.A; FAQ96 SET-UP B.1"
            )
        total += sum(d.health for d in dice)
    if total != fielded:
        raise IllegalSetup(
            f"{who}: the units are worth {total} health but a {size}-health battle with {len(dragons)} of "
            f"{dragons_required(size)} dragon(s) fields {fielded}",
            "R96 L139-155",
        )
    cap = army_cap(total)
    for name in ARMY_NAMES:
        h = sum(d.health for d in armies[name])
        if h > cap:
            raise IllegalSetup(
                f"{who}: the {name} army has {h} health, more than half the forces ({cap})", "R96 L171-182"
            )
    return total


def die_points(spec: DieSpec) -> int | None:
    """Health a die adds to the battle size: a unit its health; a dragon none (R96 L139-155); None for a
    die that has no place in a 1996 force (items, R96 L46-57; a white, ivory or hybrid dragon, R96 L59-61)."""
    if spec.kind == "unit":
        return spec.health
    if spec.kind != "dragon":
        return None
    try:
        dragon_colour(spec)
    except IllegalSetup:
        return None
    return 0


def force_report(
    size: int, armies: Mapping[str, Sequence[DieSpec]], dragons: Sequence[DieSpec], single_race: bool = True
) -> dict[str, Any]:
    """One player's force while it is built, checked by the rules ``validate_force`` applies, without
    raising: ``{"total", "armies": {name: health}, "measure": "health", "army_cap", "dragons", "dragons_required", "fielded",
    "checks": [{"ok", "text", "rule"}]}``.  No dragon chosen is met: the quick start brings them all;
    each required dragon not brought takes 3 health off the forces (R96 L146-150).  An army name the
    game does not have is refused (``IllegalSetup``), not left out of the count."""
    unknown = [n for n in armies if n not in ARMY_NAMES]
    if unknown:  # R96 L157-163: the forces are a home, a campaign and a horde army
        raise IllegalSetup(
            f"{unknown[0]!r} is not an army: a force's armies are {', '.join(ARMY_NAMES)}", "R96 L157-163"
        )
    need = dragons_required(size)
    colours_ok = True
    for d in dragons:
        try:
            dragon_colour(d)
        except IllegalSetup:
            colours_ok = False
    have = len(dragons)
    fielded = size - DRAGON_PENALTY * (need - min(have, need)) if have else size
    cap = army_cap(fielded)
    health = {name: sum(d.health for d in armies.get(name, ()) if d.kind == "unit") for name in ARMY_NAMES}
    total = sum(health.values())
    checks = [
        {
            "ok": total == fielded,
            "text": f"{total} of {fielded} health"
            + (f" ({size} less 3 per dragon not brought)" if fielded != size else ""),
            "rule": "R96 L139-155",
        }
    ]
    for name in ARMY_NAMES:
        dice = list(armies.get(name, ()))
        one_race = not single_race or name == "horde" or len({d.species for d in dice}) <= 1
        ok = bool(dice) and all(d.kind == "unit" for d in dice) and health[name] <= cap and one_race
        checks.append(
            {
                "ok": ok,
                "text": f"{name}: {health[name]} health, at most {cap}, at least one unit, "
                "units only" + (", of one race" if single_race and name != "horde" else ""),
                "rule": "R96 L46-57, L157-182"
                + ("; FAQ95 SET-UP 2.A" if single_race and name != "horde" else ""),
            }
        )
    checks.append(
        {
            "ok": have <= need and colours_ok,
            "text": f"{have} of {need} dragon(s), one colour each (no white or hybrid dragons)"
            + ("; none chosen: suggested ones are brought" if not dragons else ""),
            "rule": "R96 L59-61, L146-150",
        }
    )
    return {
        "total": total,
        "armies": health,
        "measure": "health",
        "army_cap": cap,
        "dragons": have,
        "dragons_required": need,
        "fielded": fielded,
        "checks": checks,
    }


def first_game_split(units: Sequence[DieSpec]) -> dict[str, list[DieSpec]]:
    """The suggested split for a first game (R96 L184-193, R96-03): the race with most units at home,
    the next at campaign, the rest in the horde.  Advisory: ``validate_force`` still checks the cap."""
    by_race: dict[str, list[DieSpec]] = {}
    for u in units:
        by_race.setdefault(u.species, []).append(u)
    races = sorted(by_race, key=lambda r: -len(by_race[r]))
    if len(races) < 3:
        raise IllegalSetup("the first-game split needs units of at least three races", "R96 L184-193")
    return {
        "home": by_race[races[0]],
        "campaign": by_race[races[1]],
        "horde": [u for r in races[2:] for u in by_race[r]],
    }


def legal_campaign_terrains(terrains: Sequence[str], own: set[str], counts: Mapping[str, int]) -> list[str]:
    """Terrains with no army of the player and fewer than three armies (R96 L238-246; FAQ95 SET-UP 5.C).
    An empty list: the army starts in reserve (R96 L246-249; FAQ96 SET-UP E.5)."""
    return [t for t in terrains if t not in own and counts.get(t, 0) < PLACEMENT_CAP]


def starting_face(rolled: int) -> int | None:
    """Starting distance: any face but 8, which is re-rolled (R96 L251-255)."""
    if not 1 <= rolled <= 8:
        raise IllegalSetup(f"a terrain die has faces 1-8, not {rolled}", "R96 L251-255")
    return None if rolled == 8 else rolled


def ranked_groups(totals: Mapping[str, int]) -> list[list[str]]:
    """Players grouped by order-of-play maneuver total, highest first; ties re-roll (R96 L221-224)."""
    groups: dict[int, list[str]] = {}
    for pid, t in totals.items():
        groups.setdefault(t, []).append(pid)
    return [groups[t] for t in sorted(groups, reverse=True)]


QUICK_HOMES = ("Highland City", "Swampland Temple", "Coastland Tower", "Flatland Standing Stones")
QUICK_FRONTIERS = ("Flatland Temple", "Coastland Standing Stones", "Highland Tower", "Swampland City")
QUICK_DRAGON = {
    "Dwarves": "Dragons/Red Drake",
    "Goblins": "Dragons/Black Wyrm",
    "Coral Elves": "Dragons/Blue Drake",
    "Lava Elves": "Dragons/Black Drake",
}


def _units_of(species: str, health: int) -> list[str]:
    return [
        d.name for d in load_catalogue().of_species(species) if d.kind.value == "unit" and d.health == health
    ]


def army_of(species: str, health: int, offset: int = 0) -> list[str]:
    """Units of ``species`` worth exactly ``health``: rares, uncommons, commons in turn."""
    out, left, i = [], health, offset
    while left > 0:
        for size in (3, 2, 1):
            names = _units_of(species, size)
            if size <= left and names:
                out.append(names[i % len(names)])
                left -= size
                i += 1
                break
    return out


def quick_setup(compact: Mapping[str, Any]) -> dict[str, Any]:
    """A full r96 set-up from ``{"force_size": 24, "players": [{"name", "species"}]}``: every player
    brings the dragons required and splits the health into three one-race armies."""
    size = int(compact.get("force_size", 24))
    players = []
    for i, p in enumerate(compact.get("players") or [{"name": "Alice"}, {"name": "Bob"}]):
        p = dict(p)
        species = p.pop("species", RACES_1996[(i + 1) % 4])
        if "armies" not in p:
            third = size // 3
            shares = (size - 2 * third, third, third)
            p["armies"] = {
                n: army_of(species, h, k) for k, (n, h) in enumerate(zip(ARMY_NAMES, shares, strict=True))
            }
        p.setdefault("dragons", [QUICK_DRAGON.get(species, "Dragons/Red Drake")] * dragons_required(size))
        p.setdefault("home", QUICK_HOMES[i % 4])
        p.setdefault("frontier", QUICK_FRONTIERS[i % 4])
        players.append(p)
    out = {k: v for k, v in compact.items() if k != "players"}
    out.update(edition="r96", force_size=size, players=players)
    return out
