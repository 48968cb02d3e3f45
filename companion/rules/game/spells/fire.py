"""Fire spells, V4.01c L2297-2333."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.decisions import ask, choice, choose_validator
from ...core.ids import ArmyId
from ...core.state import RESERVE, UNTIL_YOUR_NEXT_TURN
from .casting import damage_army, damage_unit, roll_faces, units_save
from .registry import ARMY, OPPOSING_ARMY, OPPOSING_UNIT, TERRAIN, lasting, spell

if TYPE_CHECKING:
    from ...core.state import Army, Unit
    from ..context import Flow, RuleContext

LASTING = UNTIL_YOUR_NEXT_TURN


@spell("Ash Storm", "2297-2301", TERRAIN, per_casting=1, duration=LASTING)
def ash_storm(game: RuleContext, entry: dict[str, Any]) -> None:
    """-1 result per casting to every army roll at the terrain (L2297-2301)."""
    lasting(game, entry, entry["target"])


@spell("Fearful Flames", "2302-2310", OPPOSING_UNIT, per_casting=1)
def fearful_flames(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """1 damage per casting; a unit that saves against it rolls a second save and flees to its
    Reserve Area without a save result (L2302-2310)."""
    st = game.state
    uid = entry["target"]
    damage = entry["castings"]
    net, saves = yield from damage_unit(game, uid, damage, "Fearful Flames", "V4.01c L2302-2310")
    if saves >= damage and st.location[uid] in st.terrains:
        again = yield from units_save(game, [uid], "Fearful Flames (second save)", "V4.01c L2305-2310")
        if again[uid] <= 0:
            st.location[uid] = RESERVE
            game.say(f"{st.units[uid].name} flees to the Reserve Area (Fearful Flames)")


@spell("Firebolt", "2311-2313", OPPOSING_UNIT, per_casting=1)
def firebolt(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """1 damage per casting on the unit, which saves alone (L2311-2313)."""
    yield from damage_unit(game, entry["target"], entry["castings"], "Firebolt", "V4.01c L2311-2313")


@spell("Firestorm", "2314-2316", TERRAIN, per_casting=2)
def firestorm(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """2 damage per casting on each army at the terrain (L2314-2316), in turn order from the caster."""
    st = game.state
    tid = entry["target"]
    order = [entry["caster"]] + game.opponents_in_turn_order(entry["caster"])
    for pid in order:
        if st.army(pid, tid).units:
            yield from damage_army(
                game, str(ArmyId(pid, tid)), 2 * entry["castings"], "Firestorm", "V4.01c L2314-2316"
            )


@spell("Flashfire", "2317-2322", ARMY, per_casting=1, duration=LASTING)
def flashfire(game: RuleContext, entry: dict[str, Any]) -> None:
    """The owner may re-roll one unit per casting in non-maneuver army rolls (L2317-2322)."""
    lasting(game, entry, entry["target"])


@spell("Fiery Weapon", "2323-2326", ARMY, per_casting=2, duration=LASTING)
def fiery_weapon(game: RuleContext, entry: dict[str, Any]) -> None:
    """+2 melee or missile per casting (L2323-2326)."""
    lasting(game, entry, entry["target"])


@spell("Dancing Lights", "2327-2330", OPPOSING_ARMY, per_casting=6, duration=LASTING)
def dancing_lights(game: RuleContext, entry: dict[str, Any]) -> None:
    """-6 melee per casting (L2327-2330)."""
    lasting(game, entry, entry["target"])


def flashfire_reroll(
    game: RuleContext, army: Army, roll: str, dice: list[Unit], rolled: list[list[str]], ctx: dict[str, Any]
) -> Flow:
    """Flashfire in force on the rolling army: in a non-maneuver army roll its owner may re-roll one
    unit per casting once, the earlier face ignored (L2317-2322).  Called before the roll is totalled."""
    st = game.state
    if (
        roll == "maneuver"
        or "maneuver" in (ctx.get("counted") or ())
        or ctx.get("individual")
        or ctx.get("order_of_play")
    ):
        return
    allowed = sum(
        int(e.detail.get("castings", 1)) for e in st.effects if e.name == "Flashfire" and e.target == army.id
    )
    if not allowed:
        return
    index = {d.uid: i for i, d in enumerate(dice)}
    chosen: list[str] = []
    while len(chosen) < allowed:
        opts = [choice("done", "Keep these faces")] + [
            choice(d.uid, f"Re-roll {d.name} ({rolled[index[d.uid]][0]})")
            for d in dice
            if d.is_unit and d.uid not in chosen
        ]
        pick = yield ask(
            "spell_choice",
            army.owner,
            "choice",
            f"{game.player_name(army.owner)}: Flashfire: re-roll a unit ({len(chosen)} of {allowed} chosen)?",
            "V4.01c L2317-2322",
            opts,
            validate=choose_validator(opts),
        )
        if pick == "done":
            break
        chosen.append(pick)
    if not chosen:
        return
    faces = yield from roll_faces(
        game,
        army.owner,
        chosen,
        roll if roll != "dragon" else "save",
        f"{game.player_name(army.owner)}: Flashfire: roll again "
        + ", ".join(st.units[u].name for u in chosen),
        "V4.01c L2317-2322",
    )
    for uid, face in zip(chosen, faces, strict=True):
        rolled[index[uid]][:] = [face]
    game.say(f"Flashfire: {len(chosen)} unit(s) rolled again, earlier faces ignored (V4.01c L2317-2322)")
