"""SAI effects that follow any roll, whatever it was for (moves, returns, promotions, lasting effects).

Run from the flow's ``after_roll`` extension once a roll is resolved (``extensions.hooks["after_roll"]``),
from the reports the die roll resolution gives (``RollOutcome.reports``, one per SAI face):

* moves: Ferry (V4.01c L1510-1513), Firewalking (L1527-1538), Teleport (L1989-1997), Gate
  (L1609-1617), Vanish (L2019-2023);
* Regenerate returns units from the DUA (L1746-1750); Wild Growth promotes (L2072-2080);
* lasting modifiers on a chosen army: Frost Breath (L1589-1598), Galeforce (L1599-1608), Magic
  Suppression (L1698-1713), Wither (L2081-2084); Cloak on its own army (L1332-1345);
* Illusion (L1667-1675), Sleep (L1853-1858), Spell Disruption (L1913-1926), Surprise (L1969-1977),
  Sneak Attack in missile and magic rolls (L1888-1902), Wave while marching (L2039-2048);
* Fabricate in a magic action summons equipment from the Summoning Pool (L1502-1509).

Effects of an attack roll on the defending army (kills, save-or-die, delayed effects, backlash) are
in ``sai_attack``.  Item-only SAIs (Attune, Elemental Relic, medallion and relic logos, Summon
Dragon, Wayfare) and dragon-attack effects belong to the items and dragons modules.
"""

from __future__ import annotations

from collections.abc import Generator
from itertools import combinations
from typing import TYPE_CHECKING, Any

from ..core import damage as dmg
from ..core.decisions import Decision, ask
from ..core.errors import IllegalAllocation
from ..core.state import BUA, DUA, POOL, RESERVE, UNTIL_YOUR_NEXT_TURN, Army
from . import dua
from . import sai_status as status
from .rolling import RollOutcome
from .sai_targeting import one_unit, optional_units, pick

if TYPE_CHECKING:
    from .context import RuleContext

Flow = Generator[Decision, Any, Any]

ITEM_SAIS = frozenset({"Attune", "Elemental Relic", "Logo", "Summon Dragon", "Wayfare"})
MOVE_RULES = {
    "Ferry": ("V4.01c L1510-1513", 4, False),
    "Firewalking": ("V4.01c L1527-1538", 3, False),
    "Teleport": ("V4.01c L1989-1997", 3, False),
    "Vanish": ("V4.01c L2019-2023", 0, True),
    "Gate": ("V4.01c L1609-1617", 4, True),
}
LASTING = {
    "Frost Breath": ("V4.01c L1589-1598", True),
    "Wither": ("V4.01c L2081-2084", True),
    "Galeforce": ("V4.01c L1599-1608", False),
    "Magic Suppression": ("V4.01c L1698-1713", False),
}


def sai_reports(
    outcome: RollOutcome, kinds: frozenset[str] | set[str] | None = None
) -> list[tuple[dict[str, Any], str | None]]:
    """(report, uid of the die that rolled it) for every SAI report of the roll, in dice order."""
    out = []
    for r in outcome.reports:
        if kinds is not None and r["kind"] not in kinds:
            continue
        uid = outcome.uids[r["unit"]] if r.get("unit") is not None and r["unit"] < len(outcome.uids) else None
        out.append((r, uid))
    return out


def after_roll(game: RuleContext, army: Army, roll: str, outcome: RollOutcome, ctx: dict[str, Any]) -> Flow:
    """extensions.hooks["after_roll"]: carry out the general SAI effects of this roll."""
    if ctx.get("order_of_play") or ctx.get("no_sai_effects"):
        return
    if roll == "maneuver" and not ctx.get("counter_maneuver"):
        status.march_marks(game)["wave"] = 0
    # a glaring unit that is rolled again ends its Hypnotic Glare (L1663-1664)
    rolled = set(outcome.uids)
    ended = [
        e
        for e in game.state.effects
        if e.detail.get("status") == "hypnotized" and e.detail.get("glarer") in rolled
    ]
    for e in ended:
        game.state.effects.remove(e)
        game.say(
            f"Hypnotic Glare on {game.state.units[e.target].name} ends: the glaring unit was rolled (V4.01c L1663-1664)"
        )
    done: set[tuple[str, str | None, str]] = set()
    growth = 0
    for r, uid in sai_reports(outcome):
        source, kind = r["source"], r["kind"]
        if source in ITEM_SAIS or (source, uid, kind) in done:
            continue
        done.add((source, uid, kind))
        amount = int(r["amount"] or 0)
        if kind == "move" and source in MOVE_RULES:
            yield from _move(game, army, uid, source)
        elif kind == "return_from_dua" and source == "Regenerate":
            yield from _return_units(game, army, amount, source, "V4.01c L1746-1750")
        elif kind == "promote" and source == "Wild Growth":
            growth += amount  # every Wild Growth of the roll promotes together, all at once (L2075-2079)
        elif kind == "lasting_modifier" and source in LASTING and (source, uid, "lasting") not in done:
            done.add((source, uid, "lasting"))
            yield from _lasting(game, army, source, amount)
        elif kind == "lasting_modifier" and source == "Cloak":
            game.add_effect("Cloak", army.owner, army.id, UNTIL_YOUR_NEXT_TURN, castings=amount)
            game.say(
                f"Cloak: {game.army_label(army)} adds {amount} saves until {game.player_name(army.owner)}'s next turn "
                "(V4.01c L1335-1337)"
            )
        elif kind == "illusion":
            yield from _illusion(game, army)
        elif kind == "sleep":
            yield from _sleep(game, army)
        elif kind == "expire_spells":
            yield from _spell_disruption(game, army, amount)
        elif kind == "no_counter_attack" and source == "Surprise":
            status.march_marks(game)["surprised"] = True
            game.say("Surprise: the defending army cannot counter-attack this march (V4.01c L1969-1977)")
        elif kind == "damage_no_save" and source == "Sneak Attack":
            yield from _sneak_attack(game, army, amount)
        elif kind == "summon_equipment" and source == "Fabricate":
            yield from _fabricate(game, army, amount)
        elif kind == "counter_maneuver_modifier" and source == "Wave":
            status.march_marks(game)["wave"] += amount
            game.say(f"Wave: each counter-maneuvering army subtracts {amount} maneuver (V4.01c L2045-2047)")
    if growth:
        yield from _promote(game, army, growth)


# --------------------------------------------------------------------------- moves


def _destinations(game: RuleContext, here: str, reserve: bool) -> list[tuple[str, str]]:
    st = game.state
    out = [(t, f"Move to {st.terrains[t].name}") for t in st.terrains if t != here]
    if reserve and here != RESERVE:
        out.append((RESERVE, "Move to the Reserve Area"))
    return out


def _move(game: RuleContext, army: Army, uid: str | None, source: str) -> Flow:
    """The SAI's unit may move (with up to N health-worth of its army) to another terrain."""
    st = game.state
    rule, cap, reserve = MOVE_RULES[source]
    if uid is None or st.location.get(uid) != army.location:
        return
    me = st.units[uid]
    if source != "Gate" and not status.may_leave(game, uid):
        return
    here = army.location
    options = [("stay", "Do not move")] + _destinations(game, here, reserve)
    where = yield from pick(
        game,
        army.owner,
        options,
        f"{source}: move {me.name}"
        + ("" if source in ("Vanish", "Gate") else f" and up to {cap} health-worth of its army")
        + " to another place?",
        rule,
        topic="sai_move",
    )
    if where == "stay":
        return
    others = [u for u in st.army(army.owner, here).units if u.uid != uid]
    if source == "Gate":
        alloy = me.name.split("/")[-1].split(" ")[0]
        others = [
            u for u in others if "Dracolem" in u.spec.species and u.name.split("/")[-1].startswith(alloy)
        ]
    others = status.movable(game, others)
    chosen = []
    if cap and others:
        chosen = yield from optional_units(
            game, army.owner, others, cap, f"{source}: which units go along?", rule
        )
    movers = chosen if source == "Gate" else [uid] + chosen
    for m in movers:
        st.location[m] = where
    if movers:
        place = "the Reserve Area" if where == RESERVE else st.terrains[where].name
        game.say(f"{source}: " + ", ".join(st.units[m].name for m in movers) + f" move to {place} ({rule})")


# --------------------------------------------------------------------------- DUA returns, promotions


def _return_units(game: RuleContext, army: Army, amount: int, source: str, rule: str) -> Flow:
    st = game.state
    if not st.army(army.owner, army.location).units:
        return
    dead = [u for u in st.area(army.owner, DUA) if u.is_unit]
    if not dead or amount <= 0:
        return
    chosen = yield from optional_units(
        game,
        army.owner,
        dead,
        amount,
        f"{source}: return units from your DUA to {game.army_label(army)}?",
        rule,
    )
    for line in dua.return_from_dua(st, chosen, army.owner, army.location, rule):
        game.say(f"{source}: {line}")


def _promote(game: RuleContext, army: Army, amount: int) -> Flow:
    """Wild Growth: promote up to X health-worth of units of this army, all at once (L2072-2080):
    several units one size each, one unit several sizes, or a mix (L1153-1156)."""
    st = game.state
    rule = "V4.01c L2072-2080, L1153-1156"
    olds = [u.uid for u in st.army(army.owner, army.location).units]
    options = dua.promotion_choices(st, olds, amount) if amount > 0 else []
    if not options:
        return
    values = [
        (f"p{i}", "Promote " + ", ".join(f"{st.units[o].name} to {st.units[n].name}" for o, n in p))
        for i, p in enumerate(options)
    ]
    answer = yield from pick(
        game,
        army.owner,
        [("none", "Promote nothing")] + values,
        f"Wild Growth: promote up to {amount} health-worth?",
        rule,
    )
    if answer == "none":
        return
    for line in dua.promote(st, options[int(answer[1:])], budget=amount):
        game.say(f"Wild Growth: {line}")


# --------------------------------------------------------------------------- lasting effects


def _opposing_armies(game: RuleContext, pid: str, location: str | None) -> list[Army]:
    return [a for a in game.state.armies() if a.owner != pid and (location is None or a.location == location)]


def _choose_army(game: RuleContext, pid: str, armies: list[Army], prompt: str, rule: str) -> Flow:
    if not armies:
        return None
    options = [(a.id, f"{game.army_label(a)} ({a.health} health)") for a in armies]
    answer = yield from pick(game, pid, options, prompt, rule, topic="sai_target")
    return next(a for a in armies if a.id == answer)


def _lasting(game: RuleContext, army: Army, source: str, amount: int) -> Flow:
    rule, same_terrain = LASTING[source]
    where = army.location if same_terrain else None
    if same_terrain and army.location == RESERVE:
        return
    targets = _opposing_armies(game, army.owner, where)
    if source == "Frost Breath":
        # the same army may not be halved twice by SAIs (L1225-1227)
        targets = [
            a
            for a in targets
            if not any(e.name == "Frost Breath" and e.target == a.id for e in game.state.effects)
        ]
    target = yield from _choose_army(game, army.owner, targets, f"{source}: target an opposing army", rule)
    if target is None:
        return
    castings = amount if source == "Wither" else 1
    game.add_effect(source, army.owner, target.id, UNTIL_YOUR_NEXT_TURN, castings=castings)
    game.say(
        f"{source}: {game.army_label(target)} is affected until {game.player_name(army.owner)}'s next turn ({rule})"
    )


def _illusion(game: RuleContext, army: Army) -> Flow:
    rule = "V4.01c L1667-1675"
    mine = game.state.armies(army.owner)
    target = yield from _choose_army(
        game, army.owner, mine, "Illusion: which of your armies is hidden?", rule
    )
    if target is None:
        return
    game.add_effect("Illusion", army.owner, target.id, UNTIL_YOUR_NEXT_TURN)
    game.say(
        f"Illusion: {game.army_label(target)} cannot be targeted by opposing missile attacks or spells ({rule})"
    )


def _sleep(game: RuleContext, army: Army) -> Flow:
    rule = "V4.01c L1853-1858"
    if army.location == RESERVE:
        return
    units = [u for a in _opposing_armies(game, army.owner, army.location) for u in a.units]
    uid = yield from one_unit(
        game, army.owner, units, "Sleep: target one opposing unit at this terrain", rule
    )
    if uid is not None:
        status.set_status(game, uid, "asleep", army.owner)


def _spell_disruption(game: RuleContext, army: Army, amount: int) -> Flow:
    """4 points of spells cast on an opposing army expire at once (L1913-1926)."""
    from ..catalogue import load_catalogue

    rule = "V4.01c L1913-1926"
    st = game.state
    cat = load_catalogue()

    def spells_on(a: Army) -> list[tuple[str, str, int]]:
        rows = []
        for e in st.effects:
            card = cat.spell(e.name)
            if e.target == a.id and card is not None and e.owner != army.owner:
                rows.append((str(e.id), e.name, int(card.cost) * int(e.detail.get("castings", 1))))
        return rows

    targets = [a for a in _opposing_armies(game, army.owner, None) if spells_on(a)]
    target = yield from _choose_army(
        game, army.owner, targets, "Spell Disruption: target an opposing army", rule
    )
    if target is None:
        return
    rows = spells_on(target)
    legal = dmg.legal_allocations(rows, amount)
    chosen = legal[0]
    if len(legal) > 1:
        opts = [
            {"value": s, "label": ", ".join(next(n for i, n, _ in rows if i == x) for x in s)} for s in legal
        ]

        def validate(action: dict[str, Any]) -> list[str]:
            try:
                return dmg.check_allocation(rows, action.get("units"), amount)
            except IllegalAllocation as exc:
                raise IllegalAllocation(f"spells to end: {exc.reason}", rule) from None

        chosen = yield ask(
            "sai_target",
            army.owner,
            "allocate",
            f"{game.player_name(army.owner)}: Spell Disruption: which spells on {game.army_label(target)} end?",
            rule,
            opts,
            data={"cap": amount},
            validate=validate,
        )
    gone = {int(x) for x in chosen}
    for e in [e for e in st.effects if e.id in gone]:
        st.effects.remove(e)
        game.say(f"Spell Disruption: {e.name} on {game.army_label(target)} expires ({rule})")


def _sneak_attack(game: RuleContext, army: Army, amount: int) -> Flow:
    rule = "V4.01c L1888-1902"
    if army.location == RESERVE or amount <= 0:
        return
    targets = _opposing_armies(game, army.owner, army.location)
    target = yield from _choose_army(
        game, army.owner, targets, f"Sneak Attack: {amount} damage with no save to", rule
    )
    if target is None:
        return
    game.say(f"Sneak Attack: {amount} damage to {game.army_label(target)}, no save possible ({rule})")
    kin = [u.uid for u in target.units if u.spec.species == "Dragonkin"]
    yield from game.inflict(target, amount, save_roll=False)  # no save possible: no Open Grave (L2240-2245)
    st = game.state
    for uid in kin:  # Dragonkin killed by this damage are buried, not returned to the pool (L1891-1892)
        if st.location[uid] in (POOL, DUA):
            st.location[uid] = BUA
            game.say(f"Sneak Attack: {st.units[uid].name} is buried ({rule})")


def _fabricate(game: RuleContext, army: Army, amount: int) -> Flow:
    """Magic action: summon up to X value of equipment from the Summoning Pool to this army (L1506-1509)."""
    from .setup import item_points

    rule = "V4.01c L1502-1509"
    st = game.state
    if not st.army(army.owner, army.location).units or amount <= 0:
        return
    pool = [
        u
        for u in st.area(army.owner, POOL)
        if u.spec.kind == "item" and u.spec.size in ("Small", "Medium", "Large")
    ]
    sets: list[list[str]] = [[]]
    seen: set[tuple[str, ...]] = {()}
    for k in range(1, len(pool) + 1):
        for combo in combinations(pool, k):
            if item_points([u.spec for u in combo]) > amount:
                continue
            key = tuple(sorted(u.name for u in combo))
            if key not in seen and len(sets) < 64:
                seen.add(key)
                sets.append([u.uid for u in combo])
    if len(sets) == 1:
        return
    options = [
        (str(i), ", ".join(st.units[u].name for u in s) or "Summon nothing") for i, s in enumerate(sets)
    ]
    answer = yield from pick(
        game, army.owner, options, f"Fabricate: summon up to {amount} value of equipment", rule
    )
    for uid in sets[int(answer)]:
        st.location[uid] = army.location
        game.say(f"Fabricate: {st.units[uid].name} is summoned to {game.army_label(army)} ({rule})")
