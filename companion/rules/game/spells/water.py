"""Water spells, V4.01c L2335-2387, with Accelerated Growth's death hook and Mire's march hooks."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any

from ...core.decisions import ask, choice, choose_validator
from ...core.state import DUA, UNTIL_YOUR_NEXT_TURN
from ..dua import ORDER_EXCHANGE
from .casting import reduce_terrain
from .registry import ARMY, OWN_DUA, TERRAIN, lasting, spell

if TYPE_CHECKING:
    from ...core.state import Army, Unit
    from ..context import Flow, RuleContext
    from ..dua import Death
    from ..extensions import Extensions

LASTING = UNTIL_YOUR_NEXT_TURN


@spell("Watery Double", "2337-2342", ARMY, per_casting=1, duration=LASTING)
def watery_double(game: RuleContext, entry: dict[str, Any]) -> None:
    """+1 save per casting (L2337-2342)."""
    lasting(game, entry, entry["target"])


@spell("Accelerated Growth", "2343-2351", OWN_DUA, duration=LASTING)
def accelerated_growth(game: RuleContext, entry: dict[str, Any]) -> None:
    """A killed Treefolk of 2+ health may instead be exchanged with a 1-health Treefolk of the DUA
    (L2343-2351): ``accelerated_growth_hook``."""
    lasting(game, entry, entry["target"])


def accelerated_growth_hook(game: RuleContext, deaths: list[Death]) -> Flow:
    """L2343-2351 with L1159-1175: every exchange is matched (its owner chooses the partner, each DUA
    unit once) before any die moves; partners come from the DUA as it was before these deaths."""
    st = game.state
    growing = {e.target.split(":", 1)[1] for e in st.effects if e.name == "Accelerated Growth"}
    taken: set[str] = set()
    for d in deaths:
        unit = st.units[d.uid]
        if not d.to_dua or d.owner not in growing or unit.spec.species != "Treefolk" or unit.health < 2:
            continue
        partners = sorted(
            (
                u
                for u in st.area(d.owner, DUA)
                if u.is_unit and u.spec.species == "Treefolk" and u.health == 1 and u.uid not in taken
            ),
            key=lambda u: (u.name, u.uid),
        )
        if not partners:
            continue
        opts, seen = [choice("no", "Let it die")], set()
        for u in partners:
            if u.name not in seen:
                seen.add(u.name)
                opts.append(choice(u.uid, f"Exchange it with {u.name} from the DUA"))
        pick = yield ask(
            "spell_choice",
            d.owner,
            "choice",
            f"{game.player_name(d.owner)}: Accelerated Growth: {unit.name} is killed; exchange it with a "
            "1-health Treefolk from your DUA instead?",
            "V4.01c L2343-2351",
            opts,
            validate=choose_validator(opts),
        )
        if pick != "no":
            d.exchange_with = pick
            taken.add(pick)
            d.notes.append("Accelerated Growth")


@spell("Flash Flood", "2352-2357", TERRAIN, per_casting=6)
def flash_flood(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """The terrain drops a step unless an opposing army there rolls at least 6 maneuver per casting,
    each army alone; at most one step per turn (L2352-2357)."""
    st = game.state
    tid = entry["target"]
    need = 6 * entry["castings"]
    for pid in game.opponents_in_turn_order(entry["caster"]):
        army = st.army(pid, tid)
        if not army.units:
            continue
        out = yield from game.roll(
            army,
            "maneuver",
            f"{game.player_name(pid)}: roll {game.army_label(army)} for "
            f"maneuvers against Flash Flood ({need} needed)",
            "V4.01c L2352-2357",
        )
        if out.total >= need:
            game.say(f"Flash Flood: {out.total} maneuvers hold {st.terrains[tid].name}")
            return
    reduce_terrain(game, tid, "Flash Flood", "V4.01c L2355-2357")


@spell("Deluge", "2358-2361", TERRAIN, per_casting=3, duration=LASTING)
def deluge(game: RuleContext, entry: dict[str, Any]) -> None:
    """-3 maneuver and -3 missile per casting at the terrain (L2358-2361)."""
    lasting(game, entry, entry["target"])


@spell("Mire", "2362-2373", TERRAIN, duration=LASTING)
def mire(game: RuleContext, entry: dict[str, Any]) -> None:
    """An army marching at the terrain first rolls maneuvers and marches only with units up to that
    health-worth (L2362-2373): ``mire_march`` and ``mire_dice``."""
    lasting(game, entry, entry["target"])


def mire_march(game: RuleContext, pid: str, location: str) -> Flow:
    """At the start of a march at a terrain under Mire: the maneuver roll, then the choice of units
    (L2362-2373).  Never replaces the maneuver step."""
    st = game.state
    game.notes["mire"] = None
    if not any(e.name == "Mire" and e.target == location for e in st.effects):
        return False
    army = st.army(pid, location)
    out = yield from game.roll(
        army,
        "maneuver",
        f"{game.player_name(pid)}: Mire: roll {game.army_label(army)} for "
        "maneuvers; you march only with units up to that health-worth",
        "V4.01c L2362-2373",
        no_cantrip=True,
    )
    units = sorted(army.units, key=lambda u: (u.name, u.uid))
    opts: list[dict[str, Any]] = []
    seen: set[tuple[str, ...]] = set()
    for r in range(len(units), 0, -1):
        for combo in combinations(units, r):
            health = sum(u.health for u in combo)
            key = tuple(sorted(u.name for u in combo))
            if health > out.total or key in seen:
                continue
            rest = [u for u in units if u not in combo]
            if any(health + u.health <= out.total for u in rest):
                continue  # not maximal: a larger choice is listed
            seen.add(key)
            if len(opts) < 64:
                opts.append(choice(",".join(u.uid for u in combo), ", ".join(u.name for u in combo)))
    if not opts:
        game.say(f"Mire: {out.total} maneuvers: no unit can march")
        game.notes["mire"] = {"army": army.id, "turn": st.turn, "march": st.march, "units": []}
        return False
    pick = opts[0]["value"]
    if len(opts) > 1:
        pick = yield ask(
            "spell_choice",
            pid,
            "choice",
            f"{game.player_name(pid)}: Mire: {out.total} maneuvers: which units march?",
            "V4.01c L2366-2373",
            opts,
            validate=choose_validator(opts),
        )
    game.notes["mire"] = {"army": army.id, "turn": st.turn, "march": st.march, "units": pick.split(",")}
    game.say("Mire: only " + ", ".join(st.units[u].name for u in pick.split(",")) + " march")
    return False


def mire_dice(game: RuleContext, army: Army, roll: str, dice: list[Unit]) -> list[Unit]:
    """During that march only the chosen units (and the items with them) roll (L2370-2373)."""
    sel = game.notes.get("mire", None)
    st = game.state
    if not sel or sel["army"] != army.id or sel["turn"] != st.turn or sel["march"] != st.march:
        return dice
    return [d for d in dice if d.uid in sel["units"] or not d.is_unit]


@spell("Tidal Wave", "2374-2383", TERRAIN, per_casting=4)
def tidal_wave(game: RuleContext, entry: dict[str, Any]) -> Flow:
    """Each army at the terrain takes 4 damage per casting and makes one save + maneuver roll; the
    terrain drops a step unless an army rolls 4 maneuver per casting; one step per turn (L2374-2383)."""
    from .casting import combination_roll

    st = game.state
    tid = entry["target"]
    amount = 4 * entry["castings"]
    held = False
    for pid in [entry["caster"]] + game.opponents_in_turn_order(entry["caster"]):
        army = st.army(pid, tid)
        if not army.units:
            continue
        totals = yield from combination_roll(
            game,
            army,
            ("save", "maneuver"),
            f"{game.player_name(pid)}: Tidal Wave: roll {game.army_label(army)} for "
            f"saves and maneuvers ({amount} damage)",
            "V4.01c L2374-2383",
        )
        held = held or totals.get("maneuver", 0) >= amount
        net = max(0, amount - totals.get("save", 0))
        game.say(f"Tidal Wave: {amount} damage - {totals.get('save', 0)} saves = {net} damage")
        yield from game.inflict(st.army(pid, tid), net)
    if held:
        game.say(f"Tidal Wave: {st.terrains[tid].name} holds ({amount} maneuvers rolled)")
    else:
        reduce_terrain(game, tid, "Tidal Wave", "V4.01c L2380-2383")


@spell("Wall of Fog", "2384-2387", TERRAIN, per_casting=6, duration=LASTING)
def wall_of_fog(game: RuleContext, entry: dict[str, Any]) -> None:
    """-6 missile per casting on missile attacks aimed at an army at the terrain (L2384-2387); the
    flow matches the attack's target terrain (``Game.effects_on(aimed_at=...)``)."""
    lasting(game, entry, entry["target"])


def register(ext: Extensions) -> None:
    """Accelerated Growth's death hook in a game's extensions (``rulebook.build_extensions``)."""
    ext.add_death_hook(ORDER_EXCHANGE, "Accelerated Growth", accelerated_growth_hook)
