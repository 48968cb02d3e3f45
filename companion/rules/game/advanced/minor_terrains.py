"""Minor terrains (V4.01c L2595-2692): allowance, bringing one into play, control, icons, burial,
Deadlands.

A minor terrain die is a ``Unit`` of kind ``minor_terrain``.  It waits in its owner's Summoning Pool
(L2600-2601); in play it sits at the terrain of the army that controls it (its location is that
terrain id, so ``state.army(owner, terrain).dice`` shows it beside the army), and when buried it is
in the BUA.  Its active result is an ``Effect`` on the controlling army, named after the icon
(``detail["minor_terrain"]`` = its uid): "Double Maneuvers", "Double Saves" and the four disasters
change that army's rolls through the resolution engine (``companion.rules.v4.minor_terrain``);
"Minor terrain Magic/Melee/Missile" give the army that action as an alternative.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ...core.decisions import choice, choose_validator
from ...core.errors import IllegalAction
from ...core.state import BUA, POOL, GameState, TerrainState, Unit, army_id
from .options import MINOR_TERRAINS, is_on

if TYPE_CHECKING:
    from ...core.decisions import Decision
    from ...core.state import Army, Effect
    from ..context import RuleContext

Flow = Generator[Any, Any, Any]

DOC = "V4.01c"
EXPIRY = "while the minor terrain shows this result"  # L2609-2617
ID_ICONS = ("Bridge", "Knoll", "Village", "Woods")  # L2653-2657
ACTION_ICONS = {"Magic": "magic", "Melee": "melee", "Missile": "missile"}  # L2659-2667
DOUBLING = ("Double Maneuvers", "Double Saves")  # L2669-2675
DISASTERS = ("Dust Storm", "Flanked", "Flood", "Revolt")  # L2678-2692: buried at the army's next march


# --------------------------------------------------------------------------- pure look-ups


def allowance(terrains_in_game: int) -> int:
    """Minor terrains a player may bring: the terrains in the game plus one (L2599-2600; V4-09)."""
    return terrains_in_game + 1


def deadlands_worth(force_size: int) -> int:
    """Units of any species one Deadlands counts as in its controller's DUA for species abilities:
    s = one per 24 points of force, or part thereof (L2638-2643, L776-780; V4-11)."""
    return max(1, math.ceil(force_size / 24))


def is_deadlands(unit: Unit) -> bool:
    """Deadlands are the death minor terrains ("Deadland Bridge" ...), L2637-2643."""
    return unit.spec.kind == "minor_terrain" and unit.spec.elements == ("Death",)


def icon_of(face: str) -> str:
    """The icon of a minor terrain face text ("1 Double Saves" -> "Double Saves")."""
    return face.split(" ", 1)[1] if " " in face else face


def fits_terrain(unit: Unit, terrain: TerrainState) -> bool:
    """A minor terrain enters play only where the terrain shares one of its elements; Deadlands go
    anywhere (L2604-2608)."""
    return is_deadlands(unit) or bool(set(unit.spec.elements) & set(terrain.kind.elements))


def controlled(st: GameState, owner: str, location: str) -> Unit | None:
    """The minor terrain the army of `owner` at `location` controls (at most one, L2620)."""
    for u in st.dice_at(owner, location):
        if u.spec.kind == "minor_terrain":
            return u
    return None


def active_result(st: GameState, uid: str) -> Effect | None:
    """The effect holding minor terrain `uid`'s active result, or None."""
    for e in st.effects:
        if e.detail.get("minor_terrain") == uid:
            return e
    return None


def in_play(st: GameState, owner: str | None = None) -> list[Unit]:
    return [
        u
        for uid, u in st.units.items()
        if u.spec.kind == "minor_terrain"
        and st.location[uid] in st.terrains
        and (owner is None or u.owner == owner)
    ]


def eligible(game: RuleContext, pid: str, location: str) -> list[Unit]:
    """Minor terrains of `pid`'s Summoning Pool that the army at `location` may bring into play now
    (L2604-2608, L2620-2623, L2627-2628)."""
    st = game.state
    terrain = st.terrains[location]
    if terrain.face == 8 and terrain.controller == pid:  # an army holding an eighth face may not (L2621)
        return []
    if controlled(st, pid, location) is not None:  # one per army (L2620)
        return []
    if (pid, location, st.turn) in _buried_this_turn(game):  # L2627-2628
        return []
    return [u for u in st.area(pid, POOL) if u.spec.kind == "minor_terrain" and fits_terrain(u, terrain)]


def _buried_this_turn(game: RuleContext) -> set[tuple[str, str, int]]:
    found = game.notes.get("minor_buried", None)
    if found is None:
        found = set()
        game.notes["minor_buried"] = found
    return found


# --------------------------------------------------------------------------- state changes


def bury(game: RuleContext, uid: str, why: str) -> None:
    st = game.state
    st.location[uid] = BUA
    st.effects = [e for e in st.effects if e.detail.get("minor_terrain") != uid]
    game.say(f"{st.units[uid].name} is buried: {why}")


def set_result(game: RuleContext, unit: Unit, location: str, icon: str) -> None:
    """Make `icon` the active result of minor terrain `unit` for its army (L2609-2617)."""
    st = game.state
    st.effects = [e for e in st.effects if e.detail.get("minor_terrain") != unit.uid]
    name = f"Minor terrain {icon}" if icon in ACTION_ICONS else icon
    game.add_effect(
        name,
        unit.owner,
        army_id(unit.owner, location),
        EXPIRY,
        minor_terrain=unit.uid,
        face=icon,
        terrain=location,
    )
    game.say(f"{unit.name} shows {icon} for {game.army_label(army_id(unit.owner, location))}")


def _roll_it(game: RuleContext, unit: Unit, location: str) -> Flow:
    """Roll the minor terrain and apply its result at once (L2609-2612); an ID icon lets the owner
    turn it to any action face (L2653-2657)."""
    from ...core.decisions import ask as _ask
    from ...core.decisions import ask_roll

    spec = [{"uid": unit.uid, "die": unit.name, "faces": list(unit.spec.faces)}]
    faces = yield ask_roll(
        "minor_terrain_roll",
        unit.owner,
        f"{game.player_name(unit.owner)}: roll {unit.name}",
        f"{DOC} L2609-2612",
        dice=spec,
        data={"roll": "minor_terrain", "army": army_id(unit.owner, location)},
    )
    icon = icon_of(faces[0])
    if icon in ID_ICONS:
        opts = [choice(a, f"Turn it to {a}") for a in ACTION_ICONS]
        icon = yield _ask(
            "minor_terrain_face",
            unit.owner,
            "choice",
            f"{game.player_name(unit.owner)}: {unit.name} rolled its ID: turn it to an action face",
            f"{DOC} L2653-2657",
            opts,
            validate=choose_validator(opts),
        )
    set_result(game, unit, location, icon)


# --------------------------------------------------------------------------- flow hooks


def maneuver_step(game: RuleContext, pid: str, location: str) -> Flow:
    """March hook, before the maneuver step (L2603-2628): a disaster showing is buried at the start
    of the army's march; an army with a minor terrain keeps its result, rolls it again or buries it,
    each instead of maneuvering; an army without one may bring one in instead of maneuvering."""
    if not is_on(game, MINOR_TERRAINS):
        return False
    st = game.state
    mine = controlled(st, pid, location)
    if mine is not None:
        effect = active_result(st, mine.uid)
        if effect is not None and effect.detail.get("face") in DISASTERS:
            bury(
                game,
                mine.uid,
                f"{effect.detail['face']} ends at the start of the army's next march (L2678-2692)",
            )
            mine = None
    if mine is not None:
        opts = [
            choice("keep", f"Keep {mine.name}'s result (no maneuver step)"),
            choice("reroll", f"Roll {mine.name} again instead of maneuvering"),
            choice("bury", f"Bury {mine.name} instead of maneuvering"),
        ]
        pick = yield _ask_choice(
            game,
            pid,
            location,
            f"{game.player_name(pid)}: your army controls {mine.name}: keep its result, "
            "roll it again or bury it?",
            f"{DOC} L2614-2617, L2627-2628",
            opts,
        )
        if pick == "keep":
            game.say(f"{game.player_name(pid)} keeps {mine.name}'s result and forfeits the maneuver step")
        elif pick == "reroll":
            yield from _roll_it(game, mine, location)
        else:
            bury(game, mine.uid, "its army chose to bury it instead of maneuvering (L2627-2628)")
            _buried_this_turn(game).add((pid, location, st.turn))
        return True
    candidates = eligible(game, pid, location)
    if not candidates:
        return False
    opts = [choice("maneuver", "Take the maneuver step")]
    seen = set()
    for u in candidates:
        if u.name not in seen:
            seen.add(u.name)
            opts.append(choice(u.uid, f"Bring {u.name} into play instead of maneuvering"))
    pick = yield _ask_choice(
        game,
        pid,
        location,
        f"{game.player_name(pid)}: bring a minor terrain into play at "
        f"{st.terrains[location].name} instead of maneuvering?",
        f"{DOC} L2603-2608",
        opts,
    )
    if pick == "maneuver":
        return False
    unit = st.units[pick]
    st.location[unit.uid] = location
    game.say(f"{game.player_name(pid)} brings {unit.name} into play at {st.terrains[location].name}")
    yield from _roll_it(game, unit, location)
    return True


def _ask_choice(
    game: RuleContext, pid: str, location: str, prompt: str, rule: str, opts: list[dict[str, Any]]
) -> Decision:
    from ...core.decisions import ask as _ask

    game.state.step = "minor_terrain"
    return _ask(
        "minor_terrain",
        pid,
        "choice",
        prompt,
        rule,
        opts,
        data={"army": army_id(pid, location)},
        validate=choose_validator(opts),
    )


def actions(game: RuleContext, pid: str, location: str, legal: list[str]) -> list[str]:
    """A Magic, Melee or Missile result lets the army take that action instead of the terrain's
    (L2659-2667)."""
    st = game.state
    if location not in st.terrains:
        return legal
    mine = controlled(st, pid, location)
    effect = active_result(st, mine.uid) if mine is not None else None
    if effect is None:
        return legal
    extra = ACTION_ICONS.get(effect.detail.get("face", ""))
    return legal + [extra] if extra and extra not in legal else legal


def cleanup(game: RuleContext) -> None:
    """A minor terrain is buried when its army leaves the terrain (L2624-2625) or captures the
    terrain's eighth face (L2621-2623)."""
    st = game.state
    for unit in in_play(st):
        loc = st.location[unit.uid]
        terrain = st.terrains[loc]
        if not st.army(unit.owner, loc).units:
            bury(game, unit.uid, "its army has left the terrain (L2624-2625)")
        elif terrain.face == 8 and terrain.controller == unit.owner:
            bury(game, unit.uid, "its army captured the eighth face (L2621-2623)")


def deadlands_units(game: RuleContext, pid: str) -> int:
    """Units of any species `pid`'s Deadlands in play count as in their DUA (L2638-2643)."""
    n = sum(1 for u in in_play(game.state, pid) if is_deadlands(u))
    return n * deadlands_worth(game.state.force_size)


def dua_counts(game: RuleContext, pid: str, counts: dict[str, int]) -> dict[str, int]:
    """Each Deadlands a player controls counts as s units of any species in their DUA for species
    abilities (L2638-2643)."""
    worth = deadlands_units(game, pid)
    if not worth:
        return counts
    from ...catalogue import load_catalogue

    species = {d.species for d in load_catalogue().dice if d.is_unit and d.species} | set(counts)
    return {s: counts.get(s, 0) + worth for s in sorted(species)}


def terrain_elements(game: RuleContext, army: Army) -> tuple[str, ...]:
    """A minor terrain's elements count as part of the terrain for its army's species abilities
    (L2630-2632); they add nothing to a White Dragon's breath (the dragons module reads the terrain's)."""
    if not is_on(game, MINOR_TERRAINS) or army.location not in game.state.terrains:
        return ()
    mine = controlled(game.state, army.owner, army.location)
    return mine.spec.elements if mine is not None else ()


def check_move(game: RuleContext, pid: str, uid: str, where: str) -> None:
    """Minor terrains stay where they were brought into play: they are not moved with units."""
    unit = game.state.units[uid]
    if unit.spec.kind == "minor_terrain":
        raise IllegalAction(
            f"{unit.name} is a minor terrain: it stays beside its army until it is buried",
            f"{DOC} L2609-2625",
        )


def return_to_pool(game: RuleContext, uid: str, rule: str) -> None:
    """A buried minor terrain returns to its owner's Summoning Pool (Esfah's Gift, Silver Medallion,
    Grove)."""
    st = game.state
    unit = st.units[uid]
    if unit.spec.kind != "minor_terrain" or st.location[uid] != BUA:
        raise IllegalAction(f"{unit.name} is not a minor terrain in a BUA", rule)
    st.location[uid] = POOL
    game.say(f"{unit.name} returns to {game.player_name(unit.owner)}'s Summoning Pool")
