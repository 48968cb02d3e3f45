"""What item SAIs do in the game flow, once the resolution engine has counted their results.

The engine (``companion.rules.v4.sai``) turns every item face into results and reports; this
module acts on the reports that move dice or change areas (an ``after_roll`` hook):

* Wayfare (L2049-2059, reference sheet L3230-3236): in a maneuver roll, instead of its X maneuver
  results, the item and one unit able to carry it may move to another terrain or the Reserve Area;
  in a dragon attack they may move.
* Silver Medallion (L2798-2816): one of: an item BUA -> the carrying army; a Dragonkin or minor
  terrain BUA -> Summoning Pool; at a terrain, a small Dragonkin joins from the Summoning Pool or a
  Dragonkin in the army is promoted one health.
* Gold Medallion (L2817-2824): up to four health-worth of units return from the DUA to the army.
* Elemental Relic (L2830-2844): X health-worth of matching units re-rolled before the roll is
  resolved (``before_resolution``), then recruited (small) or promoted with what is left.
* Earthfang's logo in a magic or missile action (L2855-2858): a Chill Wind on the terrain, -2 to
  every army roll there until the terrain is maneuvered to a new face; cumulative.
* Summon Dragon (Dragonstaff, L1957-1968): handed to the dragons module's summoning when present.

Results the engine already counts (Attune, Bash's saves, Elevate, Flurry, Sortie, Bronze Medallion,
Decapitate / Impale / Crush / Bash kills and damage reported as ``delayed_kill_id`` / ``damage`` ...)
are not touched here: kills reported by SAIs belong to the SAI effects module of the flow.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ...core.decisions import choice, choose_validator
from ...core.state import BUA, DUA, POOL, RESERVE, UNTIL_TERRAIN_MANEUVERED, Unit
from ...text_numbers import is_whole_number
from .items import can_carry, is_item
from .options import ITEMS, is_on

if TYPE_CHECKING:
    from ...core.decisions import Decision
    from ...core.state import Army
    from ..context import RuleContext
    from ..rolling import RollOutcome

Flow = Generator[Any, Any, Any]
DOC = "V4.01c"
HANDLED = (
    "choice",
    "move",
    "silver_medallion",
    "return_from_dua",
    "relic_reroll_recruit_promote",
    "chill_wind",
    "summon_dragon",
)


def _ask(game: RuleContext, pid: str, prompt: str, rule: str, opts: list[dict[str, Any]]) -> Decision:
    from ...core.decisions import ask

    return ask("item_sai", pid, "choice", prompt, rule, opts, validate=choose_validator(opts))


def after_roll(game: RuleContext, army: Army, roll: str, outcome: RollOutcome, ctx: dict[str, Any]) -> Flow:
    """Act on the item SAI reports of a resolved army roll."""
    if not is_on(game, ITEMS) or ctx.get("no_sai_effects") or ctx.get("order_of_play"):
        return
    st = game.state
    rolled = (st.last_roll or {}).get("faces", [])
    if roll == "magic":
        yield from _any_element_magic(game, army, outcome, rolled)
    for report in list(outcome.reports):
        i = report.get("unit")
        if report.get("kind") not in HANDLED or i is None or i >= len(rolled):
            continue
        item = st.units.get(rolled[i]["uid"])
        if item is None or not is_item(item):
            continue
        location = st.location[item.uid]
        if location not in st.terrains and location != RESERVE:
            continue  # moved or buried by an earlier report of this roll
        kind, source = report["kind"], report.get("source", "")
        face = rolled[i]["faces"][-1]
        if source == "Wayfare" and kind in ("choice", "move"):
            yield from _wayfare(
                game, item, location, outcome, face, instead=kind == "choice" and roll == "maneuver"
            )
        elif kind == "silver_medallion":
            yield from _silver(game, item, location)
        elif kind == "return_from_dua":
            yield from _gold(game, item, location, int(report.get("amount") or 4))
        elif kind == "relic_reroll_recruit_promote":
            yield from _relic(game, item, location, face, int(report.get("amount") or 4))
        elif kind == "chill_wind" and location in st.terrains:
            game.add_effect("Chill Wind", item.owner, location, UNTIL_TERRAIN_MANEUVERED, source=item.name)
            game.say(
                f"{item.name} summons a Chill Wind at {st.terrains[location].name}: -2 to every army roll "
                f"there until it is maneuvered ({DOC} L2855-2858)"
            )
        elif kind == "summon_dragon":
            yield from _summon_dragon(game, item, location)


ELEMENTS = ("Air", "Death", "Earth", "Fire", "Water")


def _any_element_magic(
    game: RuleContext, army: Army, outcome: RollOutcome, rolled: list[dict[str, Any]]
) -> Flow:
    """Magic "of any element" (Attune L1243-1249, Bronze Medallion L2782-2797) may pay for a spell of
    any one element: the engine marks it "any"; the spell payment takes element names.  Attune may
    also let one unit of the army count its normal magic as Attune's element (L1245-1247): the owner
    picks a unit that rolled a plain magic icon, then one element that Attune's magic and that unit's
    magic both take."""
    kinds = outcome.magic_kinds
    for uid, k in list(kinds.items()):
        if "any" in k:
            kinds[uid] = tuple(sorted((set(k) - {"any"}) | set(ELEMENTS)))
    st = game.state
    attunes = [r for r in outcome.reports if r.get("kind") == "attune_element"]
    if not attunes:
        return
    plain = []
    for f in rolled:
        u = st.units.get(f["uid"])
        if u is not None and u.is_unit and f["faces"] and f["faces"][-1].split(" ", 1)[-1] == "Magic":
            plain.append(u)
    if not plain:
        return
    opts = [choice("none", "Keep every unit's magic as it is")] + [
        choice(u.uid, f"{u.name} ({u.uid}): its magic counts as Attune's element") for u in plain
    ]
    pick = yield _ask(
        game,
        army.owner,
        f"{game.player_name(army.owner)}: Attune: let one unit's normal magic count as the "
        "element of Attune's magic?",
        f"{DOC} L1243-1249",
        opts,
    )
    if pick == "none":
        return
    # "the same element as the Attune magic results" (L1245-1247): one element for both, chosen now.
    attuning = [f["uid"] for f in rolled if any(x.endswith(" Attune") for x in f["faces"])]
    el_opts = [choice(e, f"{e}: Attune's magic and {st.units[pick].name}'s magic are {e}") for e in ELEMENTS]
    element = yield _ask(
        game,
        army.owner,
        f"{game.player_name(army.owner)}: Attune: which element are Attune's magic and "
        f"{st.units[pick].name}'s magic?",
        f"{DOC} L1243-1249",
        el_opts,
    )
    for uid in attuning:
        if uid in kinds:
            kinds[uid] = (element,)
    kinds[pick] = (element,)
    game.say(f"Attune: Attune's magic and {st.units[pick].name}'s magic are {element} ({DOC} L1243-1249)")


def _face_count(face: str) -> int:
    head = face.split(" ", 1)[0]
    return int(head) if is_whole_number(head) else 0


def _wayfare(
    game: RuleContext, item: Unit, location: str, outcome: RollOutcome, face: str, instead: bool
) -> Flow:
    from ..sai_status import may_leave

    st = game.state
    carriers = [
        u for u in st.army(item.owner, location).units if can_carry(u, item) and may_leave(game, u.uid)
    ]
    places = [t for t in st.terrains if t != location] + ([RESERVE] if location != RESERVE else [])
    if not carriers or not places:
        return
    keep = "Keep the maneuver results" if instead else "Do not move"
    opts = [choice("stay", keep)]
    for u in carriers:
        for p in places:
            where = "the Reserve Area" if p == RESERVE else st.terrains[p].name
            opts.append(choice(f"{u.uid}>{p}", f"Move {item.name} with {u.name} to {where}"))
    pick = yield _ask(
        game,
        item.owner,
        f"{game.player_name(item.owner)}: {item.name} rolled Wayfare: move it and a unit "
        "able to carry it" + (" instead of its maneuver results?" if instead else "?"),
        f"{DOC} L2049-2059",
        opts,
    )
    if pick == "stay":
        return
    uid, dest = pick.split(">", 1)
    st.location[uid] = dest
    st.location[item.uid] = dest
    if instead:
        outcome.total = max(0, outcome.total - _face_count(face))
    game.say(
        f"Wayfare: {item.name} and {st.units[uid].name} move to "
        + ("the Reserve Area" if dest == RESERVE else st.terrains[dest].name)
    )


def _silver(game: RuleContext, item: Unit, location: str) -> Flow:
    """Silver Medallion, one of four (L2798-2816)."""
    st = game.state
    pid = item.owner
    opts = [choice("none", "Do nothing")]
    seen: set[str] = set()

    def add(value: str, label: str, key: str) -> None:
        if key not in seen:
            seen.add(key)
            opts.append(choice(value, label))

    for u in st.area(pid, BUA):
        if is_item(u):
            add(f"item:{u.uid}", f"Return {u.name} from your BUA to this army", "item" + u.name)
        elif u.spec.species == "Dragonkin" or u.spec.kind == "minor_terrain":
            add(f"pool:{u.uid}", f"Return {u.name} from your BUA to your Summoning Pool", "pool" + u.name)
    if location in st.terrains:
        for u in st.area(pid, POOL):
            if u.spec.species == "Dragonkin" and u.health == 1:
                add(f"join:{u.uid}", f"{u.name} joins this army from the Summoning Pool", "join" + u.name)
        for a in st.army(pid, location).units:
            if a.spec.species != "Dragonkin":
                continue
            for b in st.area(pid, POOL):
                if b.spec.species == "Dragonkin" and b.health == a.health + 1:
                    add(f"promote:{a.uid}:{b.uid}", f"Promote {a.name} to {b.name}", f"p{a.name}>{b.name}")
    if len(opts) == 1:
        return
    pick = yield _ask(
        game, pid, f"{game.player_name(pid)}: Silver Medallion: choose its effect", f"{DOC} L2798-2816", opts
    )
    if pick == "none":
        return
    verb, *rest = pick.split(":")
    if verb == "item":
        st.location[rest[0]] = location
        game.say(f"Silver Medallion: {st.units[rest[0]].name} returns to the army")
    elif verb == "pool":
        st.location[rest[0]] = POOL
        game.say(f"Silver Medallion: {st.units[rest[0]].name} returns to the Summoning Pool")
    elif verb == "join":
        st.location[rest[0]] = location
        game.say(f"Silver Medallion: {st.units[rest[0]].name} joins the army")
    else:
        old, new = rest
        st.location[old], st.location[new] = POOL, location
        game.say(f"Silver Medallion: {st.units[old].name} is promoted to {st.units[new].name}")


def _gold(game: RuleContext, item: Unit, location: str, budget: int) -> Flow:
    """Gold Medallion: up to four health-worth of units return from the DUA to the army (L2817-2824)."""
    st = game.state
    pid = item.owner
    chosen: list[str] = []
    left = budget
    while left > 0:
        opts = [choice("done", "Return no more units")]
        seen = set()
        for u in st.area(pid, DUA):
            if u.is_unit and u.uid not in chosen and u.health <= left and u.name not in seen:
                seen.add(u.name)
                opts.append(choice(u.uid, f"Return {u.name} ({u.health} health)"))
        if len(opts) == 1:
            break
        pick = yield _ask(
            game,
            pid,
            f"{game.player_name(pid)}: Gold Medallion: return up to {left} more health-worth of "
            "units from your DUA to this army",
            f"{DOC} L2817-2824",
            opts,
        )
        if pick == "done":
            break
        chosen.append(pick)
        left -= st.units[pick].health
    for uid in chosen:  # all at once
        st.location[uid] = location
    if chosen:
        game.say("Gold Medallion returns " + ", ".join(st.units[u].name for u in chosen) + " from the DUA")


def relic_matches(unit: Unit, element: str) -> bool:
    """Units an Elemental Relic's face affects: those containing its element; the logo ("*") matches
    every element and ivory (Amazons) but no alloy (Dracolem) (L2831-2836)."""
    if not unit.is_unit or "Dracolem" in unit.spec.species:
        return False
    if element == "*":
        return True
    return element in unit.spec.elements


def _relic_element(face: str) -> str:
    return "*" if face.endswith("Logo") else face.split("Element ", 1)[-1]


def before_resolution(
    game: RuleContext, army: Army, roll: str, dice: list[Unit], rolled: list[list[str]], ctx: dict[str, Any]
) -> Flow:
    """Elemental Relic, first part (L2838-2844): before the roll is resolved (re-rolls are step 3,
    L1013-1015), up to X (4) health-worth of matching units of the carrying army may be rolled again,
    ignoring the face they showed; what is not spent on re-rolls may recruit or promote afterwards
    (``after_roll``).  Relics showing the same element cancel each other (L2835-2836)."""
    if (
        not is_on(game, ITEMS)
        or roll == "maneuver"
        or ctx.get("no_sai_effects")
        or ctx.get("order_of_play")
        or ctx.get("individual")
    ):
        return
    relics = [
        (i, d, _relic_element(f[0]))
        for i, (d, f) in enumerate(zip(dice, rolled, strict=True))
        if d.name == "Items/Elemental Relic" and ("Element" in f[0] or f[0].endswith("Logo"))
    ]
    shown = [e for _, _, e in relics]
    budgets = game.notes.get("relic_budget", {})
    game.notes["relic_budget"] = budgets
    for i, relic, element in relics:
        if shown.count(element) > 1:
            continue
        left = _face_count(rolled[i][0]) or 4
        chosen: list[int] = []
        while left > 0:
            opts = [choice("done", "Re-roll no more units")]
            for k, (d, _) in enumerate(zip(dice, rolled, strict=True)):
                if k not in chosen and relic_matches(d, element) and d.health <= left:
                    opts.append(choice(str(k), f"Re-roll {d.name} ({d.uid}, {d.health} health)"))
            if len(opts) == 1:
                break
            pick = yield _ask(
                game,
                relic.owner,
                f"{game.player_name(relic.owner)}: Elemental Relic "
                f"({'all elements' if element == '*' else element}): re-roll matching units, ignoring "
                f"their faces ({left} health-worth left; the rest may recruit or promote)",
                f"{DOC} L2838-2844",
                opts,
            )
            if pick == "done":
                break
            chosen.append(int(pick))
            left -= dice[int(pick)].health
        budgets[relic.uid] = left
        if not chosen:
            continue
        from ...core.decisions import ask_roll

        spec: list[dict[str, Any]] = [
            {"uid": dice[k].uid, "die": dice[k].name, "faces": list(dice[k].spec.faces)} for k in chosen
        ]
        faces = yield ask_roll(
            "reroll",
            relic.owner,
            f"{game.player_name(relic.owner)}: roll again "
            + ", ".join(x["die"] for x in spec)
            + " (Elemental Relic)",
            f"{DOC} L2838-2840",
            dice=spec,
            data={"roll": roll, "army": army.id, "reroll": True},
        )
        for k, new in zip(chosen, faces, strict=True):
            rolled[k] = [new]
        game.say("Elemental Relic: " + ", ".join(dice[k].name for k in chosen) + " rolled again")


def _relic(game: RuleContext, item: Unit, location: str, face: str, budget: int) -> Flow:
    """Elemental Relic, second part: recruit small matching units or promote matching units with the
    X health-worth not spent on re-rolls, every change at once (L2838-2844)."""
    st = game.state
    pid = item.owner
    budget = game.notes.get("relic_budget", {}).pop(item.uid, budget)
    element = _relic_element(face)
    recruits: list[str] = []
    promotions: list[tuple[str, str]] = []
    left = budget
    while left > 0:
        used = set(recruits) | {a for a, _ in promotions} | {b for _, b in promotions}
        opts = [choice("done", "Nothing more")]
        seen = set()
        for u in st.area(pid, DUA):
            if (
                u.uid not in used
                and u.health == 1
                and relic_matches(u, element)
                and ("r" + u.name) not in seen
            ):
                seen.add("r" + u.name)
                opts.append(choice(f"recruit:{u.uid}", f"Recruit {u.name}"))
        for a in st.army(pid, location).units:
            if a.uid in used or not relic_matches(a, element):
                continue
            source = POOL if a.spec.species == "Dragonkin" else DUA
            for b in st.area(pid, source):
                gain = b.health - a.health
                key = f"p{a.name}>{b.name}"
                if (
                    b.uid not in used
                    and b.is_unit
                    and b.spec.species == a.spec.species
                    and 0 < gain <= left
                    and key not in seen
                ):
                    seen.add(key)
                    opts.append(choice(f"promote:{a.uid}:{b.uid}", f"Promote {a.name} to {b.name} ({gain})"))
        if len(opts) == 1:
            break
        pick = yield _ask(
            game,
            pid,
            f"{game.player_name(pid)}: Elemental Relic ({'all elements' if element == '*' else element}): "
            f"recruit or promote matching units, {left} health-worth left",
            f"{DOC} L2838-2844",
            opts,
        )
        if pick == "done":
            break
        verb, *rest = pick.split(":")
        if verb == "recruit":
            recruits.append(rest[0])
            left -= 1
        else:
            promotions.append((rest[0], rest[1]))
            left -= st.units[rest[1]].health - st.units[rest[0]].health
    for uid in recruits:
        st.location[uid] = location
    for old, new in promotions:
        source = st.location[new]
        st.location[old], st.location[new] = source, location
    if recruits or promotions:
        game.say(
            "Elemental Relic: "
            + ", ".join(
                [f"recruits {st.units[u].name}" for u in recruits]
                + [f"promotes {st.units[a].name} to {st.units[b].name}" for a, b in promotions]
            )
        )


def _summon_dragon(game: RuleContext, item: Unit, location: str) -> Flow:
    """Dragonstaff's Summon Dragon in a magic action at a terrain (L1957-1968): a dragon containing
    the item's element (not a White Dragon), or an Ivory Dragon, comes to any terrain; the summoning
    rules are the dragons module's (``dragon_summoning``)."""
    st = game.state
    if location not in st.terrains:
        return  # in the Reserve Area it generated magic instead
    try:
        from .. import dragon_summoning as ds
    except ImportError:  # pragma: no cover - the dragons module ships with the flow
        game.say(f"{item.name} rolled Summon Dragon: the dragons module is not available")
        return
    opts = [choice("none", "Summon no dragon")] + [
        choice(t, f"Summon to {st.terrains[t].name}") for t in st.terrains
    ]
    pick = yield _ask(
        game,
        item.owner,
        f"{game.player_name(item.owner)}: {item.name} rolled Summon Dragon: summon a dragon "
        f"containing {'/'.join(item.spec.elements)} (or an Ivory Dragon) to which terrain?",
        f"{DOC} L1957-1968",
        opts,
    )
    if pick == "none":
        return
    cast = {
        "spell": "Summon Dragon",
        "target": pick,
        "paid_with": item.spec.elements[0] if item.spec.elements else "",
        "caster": item.owner,
    }
    yield from ds.summon(game, cast, white_spell=False)
