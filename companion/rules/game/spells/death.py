"""Death spells, V4.01c L2194-2250, with the death hooks of Open Grave and Soiled Ground."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any

from ...core.decisions import ask, choice, choose_validator
from ...core.ids import ArmyId
from ...core.state import BUA, DUA, RESERVE, UNTIL_YOUR_NEXT_TURN
from ..dua import ORDER_ENTER_DUA, ORDER_REDIRECT, bury, kill_flow, return_from_dua
from .casting import damage_unit, present_units, roll_faces, units_save
from .registry import (
    ARMY,
    OPPOSING_ARMY,
    OPPOSING_ARMY_UNITS,
    OPPOSING_DUA_UNITS,
    OPPOSING_UNIT,
    TERRAIN,
    lasting,
    spell,
)

if TYPE_CHECKING:
    from ..context import Flow, RuleContext
    from ..dua import Death
    from ..extensions import Extensions

LASTING = UNTIL_YOUR_NEXT_TURN


def bury_flow(game: RuleContext, uids: list[str], source: str) -> Flow:
    """Bury units a spell buries; a unit with Rise from the Ashes rolls first and, on that SAI, goes
    to its owner's Reserve Area instead (V4.01c L1774-1778).  Returns the uids buried."""
    from ..sai_rise import rise_from_the_ashes

    saved = yield from rise_from_the_ashes(game, list(uids), "buried")
    buried = [u for u in uids if u not in saved]
    for line in bury(game.state, buried):
        game.say(f"{source}: {line}")
    return buried


@spell("Palsy", "2196-2199", OPPOSING_ARMY, per_casting=1, duration=LASTING)
def palsy(game: RuleContext, entry: dict[str, Any]) -> None:
    """-1 result per casting on the army's non-maneuver rolls (L2196-2199)."""
    lasting(game, entry, entry["target"])


@spell("Decay", "2201-2204", OPPOSING_ARMY, per_casting=2, duration=LASTING)
def decay(game: RuleContext, entry: dict[str, Any]) -> None:
    """-2 melee per casting (L2201-2204)."""
    lasting(game, entry, entry["target"])


@spell("Evil Eye", "2205-2208", OPPOSING_ARMY, per_casting=2, duration=LASTING)
def evil_eye(game: RuleContext, entry: dict[str, Any]) -> None:
    """-2 saves per casting (L2205-2208)."""
    lasting(game, entry, entry["target"])


@spell("Magic Drain", "2209-2212", TERRAIN, per_casting=2, duration=LASTING)
def magic_drain(game: RuleContext, entry: dict[str, Any]) -> None:
    """-2 magic per casting to every army roll at the terrain (L2209-2212)."""
    lasting(game, entry, entry["target"])


@spell("Restless Dead", "2213-2215", ARMY, per_casting=3, duration=LASTING)
def restless_dead(game: RuleContext, entry: dict[str, Any]) -> None:
    """+3 maneuver per casting (L2213-2215)."""
    lasting(game, entry, entry["target"])


def _is_id(face: str) -> bool:
    return face == "ID" or face.endswith(" ID")


@spell("Swamp Fever", "2216-2220", OPPOSING_ARMY_UNITS, per_casting=3, up_to=True)
def swamp_fever(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """Up to 3 health-worth per casting of one opposing army roll; an ID kills; the killed roll
    again and an ID buries them (L2216-2220)."""
    st = game.state
    targets = present_units(game, entry)
    owner = st.units[targets[0]].owner
    faces = yield from roll_faces(
        game,
        owner,
        targets,
        "save",
        f"{game.player_name(owner)}: roll "
        + ", ".join(st.units[u].name for u in targets)
        + " against Swamp Fever (an ID kills)",
        "V4.01c L2216-2220",
    )
    dead = [u for u, f in zip(targets, faces, strict=True) if _is_id(f)]
    if not dead:
        game.say("Swamp Fever: no ID rolled, nobody dies")
        return
    deaths = yield from kill_flow(game, dead, save_roll=False, army_targeted=False, cause="Swamp Fever")
    in_dua = [
        d.uid for d in deaths if d.exchange_with is None and st.location[d.uid] == DUA
    ]  # killed, in the DUA
    if not in_dua:
        return
    faces = yield from roll_faces(
        game,
        owner,
        in_dua,
        "save",
        f"{game.player_name(owner)}: roll "
        + ", ".join(st.units[u].name for u in in_dua)
        + " again (Swamp Fever: an ID buries)",
        "V4.01c L2218-2220",
    )
    buried = [u for u, f in zip(in_dua, faces, strict=True) if _is_id(f)]
    yield from bury_flow(game, buried, "Swamp Fever")


@spell("Finger of Death", "2221-2226", OPPOSING_UNIT, per_casting=1)
def finger_of_death(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """1 damage per casting on the unit, no save possible (L2221-2226)."""
    yield from damage_unit(
        game, entry["target"], entry["castings"], "Finger of Death", "V4.01c L2221-2226", save=False
    )


@spell("Necromantic Wave", "2227-2233", ARMY, duration=LASTING)
def necromantic_wave(game: RuleContext, entry: dict[str, Any]) -> None:
    """The army's units may count magic results as melee or missile (L2227-2233)."""
    lasting(game, entry, entry["target"])


@spell("Exhume", "2234-2239", OPPOSING_DUA_UNITS, per_casting=3, up_to=True)
def exhume(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """Up to 3 health-worth per casting in an opposing DUA save; those without a save result are
    buried; the caster may return up to that health-worth from their own DUA to the casting army
    (L2234-2239)."""
    st = game.state
    targets = present_units(game, entry)
    saves = yield from units_save(game, targets, "Exhume", "V4.01c L2234-2239")
    failed = [u for u in targets if saves[u] <= 0]
    buried = yield from bury_flow(game, failed, "Exhume")
    worth = sum(st.units[u].health for u in buried)
    pid = entry["caster"]
    loc = ArmyId.parse(entry["army"]).location
    if worth <= 0 or not st.army(pid, loc).units:
        return
    mine = sorted((u for u in st.area(pid, "dua") if u.is_unit), key=lambda u: (u.name, u.uid))
    opts, seen = [choice("none", "Return nobody")], set()
    for r in range(1, len(mine) + 1):
        for combo in combinations(mine, r):
            health = sum(u.health for u in combo)
            key = tuple(sorted(u.name for u in combo))
            if health <= worth and key not in seen and len(opts) < 64:
                seen.add(key)
                opts.append(
                    choice(",".join(u.uid for u in combo), "Return " + ", ".join(u.name for u in combo))
                )
    if len(opts) == 1:
        return
    pick = yield ask(
        "spell_choice",
        pid,
        "choice",
        f"{game.player_name(pid)}: Exhume buried {worth} health-worth: "
        "return units up to that from your DUA to the casting army?",
        "V4.01c L2237-2239",
        opts,
        validate=choose_validator(opts),
    )
    if pick != "none":
        for line in return_from_dua(st, pick.split(","), pid, loc, "V4.01c L2237-2239"):
            game.say("Exhume: " + line)


@spell("Open Grave", "2240-2246", ARMY, duration=LASTING)
def open_grave(game: RuleContext, entry: dict[str, Any]) -> None:
    """Units of the army killed after a save roll by army-targeting effects go to the Reserve Area
    instead of the DUA (L2240-2246): ``open_grave_hook``."""
    lasting(game, entry, entry["target"])


def open_grave_hook(game: RuleContext, deaths: list[Death]) -> None:
    """L2240-2246: only kills that followed a save roll against an army-targeting effect; with no
    save roll possible Open Grave does nothing.  Runs first: a unit kept out of the DUA triggers no
    "when killed" effect (L1128-1129)."""
    graves = {e.target for e in game.state.effects if e.name == "Open Grave"}
    for d in deaths:
        if d.to_dua and d.save_roll and d.army_targeted and d.army in graves:
            d.dest = RESERVE
            d.notes.append("Open Grave, V4.01c L2240-2246")


@spell("Soiled Ground", "2247-2250", TERRAIN, duration=LASTING)
def soiled_ground(game: RuleContext, entry: dict[str, Any]) -> None:
    """Units killed at the terrain that go into the DUA make a save roll; no save result buries
    them (L2247-2250): ``soiled_ground_hook``."""
    lasting(game, entry, entry["target"])


def soiled_ground_hook(game: RuleContext, deaths: list[Death]) -> Flow:
    """L2247-2250; units exchanged instead of killed (Accelerated Growth, Stepped Damage) are never
    killed (L1175), so they do not roll."""
    soiled = {e.target for e in game.state.effects if e.name == "Soiled Ground"}
    rolling = [d for d in deaths if d.to_dua and d.location in soiled]
    if not rolling:
        return
    saves = yield from units_save(game, [d.uid for d in rolling], "Soiled Ground", "V4.01c L2247-2250")
    from ..sai_rise import rises

    for d in rolling:
        if saves[d.uid] <= 0:
            d.dest = BUA
            d.notes.append("Soiled Ground, V4.01c L2247-2250")
            if (yield from rises(game, game.state.units[d.uid], "buried")):  # buried: it rolls (L1774-1778)
                d.dest = RESERVE
                d.notes.append("Rise from the Ashes when buried, V4.01c L1774-1778")


def register(ext: Extensions) -> None:
    """Open Grave's and Soiled Ground's death hooks in a game's extensions (``rulebook``)."""
    ext.add_death_hook(ORDER_REDIRECT, "Open Grave", open_grave_hook)
    ext.add_death_hook(ORDER_ENTER_DUA, "Soiled Ground", soiled_ground_hook)
