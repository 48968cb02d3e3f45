"""Casting announced spells (V4.01c L470-480, L2085-2156), Dispel Magic (L1432-1448), Cantrip (L1296-1306,
L2108-2111), and the rolls, damage and terrain steps that spell effects share.

Order of a casting: every spell is announced with its target (``flow._magic``), then each unit with
Dispel Magic that some announced magic touches may roll alone; a Dispel Magic icon negates every
unresolved spell touching that unit, its army or its terrain.  Then the spells resolve one at a time,
in any order the caster wishes (L470-473): the caster picks the next one (``next_spell``).  A spell whose
target is gone by then does nothing, and no new target is chosen (L478-480); a "units" spell
resolves on those of its units still there.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.decisions import Decision, ask, ask_roll, choice, choose_validator
from ...core.errors import IllegalSpell
from ...core.ids import ArmyId, is_army_id, split_army_id
from ...core.state import BUA, DUA, POOL, RESERVE, UNTIL_YOUR_NEXT_TURN, Army
from ...text_numbers import is_whole_number
from ..dua import kill_flow
from ..magic import AnnouncedSpell
from .registry import OWN_UNIT_AT_TERRAIN, SPELLS, effect_for

if TYPE_CHECKING:
    from ..context import RuleContext
    from ..rolling import RollOutcome

Flow = Generator[Decision, Any, Any]
DOC = "V4.01c"
DISPEL = "Dispel Magic"
CANTRIP = "Cantrip"


# ------------------------------------------------------------------------------ casting


def entry_of(
    game: RuleContext, pid: str, army: Army, cast: AnnouncedSpell | Any, cantrip: bool = False
) -> dict[str, Any]:
    entry = {
        "spell": cast.name,
        "target": cast.target,
        "paid_with": cast.pay_with,
        "cost": cast.cost,
        "caster": pid,
        "army": army.id,
        "turn": game.state.turn,
        "castings": getattr(cast, "castings", 1),
        "units": list(getattr(cast, "units", ())),
        "to": getattr(cast, "to", None),
    }
    if cantrip:
        entry["cantrip"] = True
    return entry


def cast_announced(
    game: RuleContext, pid: str, army: Army, casts: Sequence[Any], cantrip: bool = False
) -> Flow:
    """Log the announcement, let Dispel Magic answer, then resolve each spell in order (L470-480)."""
    st = game.state
    entries = []
    for cast in casts:
        entry = entry_of(game, pid, army, cast, cantrip)
        st.spells_announced.append(entry)
        entries.append(entry)
        n = entry["castings"]
        game.say(
            f"{game.player_name(pid)} casts {cast.name}"
            + (f" x{n} combined" if n > 1 else "")
            + f" ({cast.cost} {cast.pay_with}) on {describe_target(game, entry)}"
            + (" with Cantrip magic" if cantrip else "")
        )
    negated = yield from dispel_magic(game, entries)
    for i in sorted(negated):
        entries[i]["negated"] = True
        game.say(f"{entries[i]['spell']} is negated by Dispel Magic (V4.01c L1432-1448)")
    waiting = [i for i in range(len(entries)) if i not in negated]
    while waiting:
        i = yield from next_spell(game, pid, entries, waiting)
        waiting.remove(i)
        entry = entries[i]
        if not target_present(game, entry):
            entry["lost"] = True
            game.say(
                f"{entry['spell']}: its target is no longer there; no new target may be chosen (V4.01c L478-480)"
            )
            continue
        effect = effect_for(game, entry["spell"])
        if effect is None:
            game.say(f"{entry['spell']} has no effect in this companion yet")
            continue
        more = effect(game, entry)
        if isinstance(more, Generator):
            yield from more
        entry["resolved"] = True
    game.cleanup()


def next_spell(
    game: RuleContext, pid: str, entries: Sequence[dict[str, Any]], waiting: Sequence[int]
) -> Flow:
    """Once all spells are announced, the caster resolves them one at a time in any order they wish
    (V4.01c L470-473, L2088-2089): with two or more different spells still waiting, the caster picks
    the next one (listed in the order announced).  Returns its index."""
    kinds = {
        (entries[i]["spell"], str(entries[i]["target"]), tuple(entries[i].get("units") or ()))
        for i in waiting
    }
    if len(kinds) < 2 or not any(_acts_now(entries[i]["spell"]) for i in waiting):
        return waiting[0]  # identical spells, or lasting effects only: their order changes nothing
    opts = [choice(str(i), f"{entries[i]['spell']} on {describe_target(game, entries[i])}") for i in waiting]
    pick = yield ask(
        "spell_order",
        pid,
        "choice",
        f"{game.player_name(pid)}: which announced spell resolves next?",
        f"{DOC} L470-473",
        opts,
        validate=choose_validator(opts),
        data={"spells": [entries[i]["spell"] for i in waiting]},
    )
    return int(pick)


def _acts_now(name: str) -> bool:
    """Whether a spell does something as it resolves (damage, rolls, moves, choices) rather than only
    putting a lasting effect in force; lasting effects alone commute, so their order is not asked."""
    rule = SPELLS.get(name)
    return rule is None or rule.acts_now


def describe_target(game: RuleContext, entry: Mapping[str, Any]) -> str:
    st = game.state
    target = entry["target"]
    if entry.get("units"):
        return ", ".join(st.units[u].name for u in entry["units"]) + f" ({target})"
    if is_army_id(target):
        return game.army_label(target)
    if target in st.terrains:
        return st.terrains[target].name
    if target in st.units:
        return f"{st.units[target].name} ({target})"
    return str(target)


def target_present(game: RuleContext, entry: Mapping[str, Any]) -> bool:
    """Whether the announced target is still there when the spell resolves (L478-480)."""
    st = game.state
    rule = SPELLS.get(entry["spell"])
    units = entry.get("units") or []
    if units and rule is not None and rule.target == OWN_UNIT_AT_TERRAIN:  # combined Path: units anywhere
        return any(st.location[u] in st.terrains for u in units)
    if units:
        return bool(present_units(game, entry))
    target = entry["target"]
    if is_army_id(target):
        owner, loc = split_army_id(target)
        return bool(st.army(owner, loc).units)
    if target in st.units:
        where = st.location[target]
        if rule is not None and "Summoning Pool" in rule.target:  # Summon Dragonkin (advanced.spells)
            return where == POOL
        if rule is not None and "BUA" in rule.target:  # Esfah's Gift
            return where == BUA
        return where in st.terrains or where == RESERVE
    if target in st.terrains:
        if rule is not None and rule.target.startswith("a terrain not at") and st.terrains[target].face == 8:
            return False
        return True
    return True


def present_units(game: RuleContext, entry: Mapping[str, Any]) -> list[str]:
    """The unit targets still where they were when announced."""
    st = game.state
    target = entry["target"]
    kind, _, owner = target.partition(":")
    if kind in ("dua", "bua", "pool"):
        where = {"dua": DUA, "bua": BUA, "pool": POOL}[kind]
        return [u for u in entry["units"] if st.location[u] == where and st.units[u].owner == owner]
    loc = ArmyId.parse(target).location if is_army_id(target) else target
    return [u for u in entry["units"] if st.location[u] == loc]


# ------------------------------------------------------------------------------ Dispel Magic


def touches(game: RuleContext, entry: Mapping[str, Any], uid: str) -> bool:
    """Whether announced magic targets or affects unit `uid`, its army or its terrain (L1432-1448)."""
    st = game.state
    loc = st.location[uid]
    unit = st.units[uid]
    target = entry["target"]
    units = entry.get("units") or []
    if units:
        return uid in units or target == str(ArmyId(unit.owner, loc))
    return target in (uid, str(ArmyId(unit.owner, loc)), loc)


def dispel_magic(game: RuleContext, entries: Sequence[dict[str, Any]]) -> Flow:
    """After all spells are announced, before any resolves: each unit with a Dispel Magic icon that
    the magic touches may roll alone; the icon negates every unresolved spell touching it (L1432-1448).
    Returns the indexes of the negated entries."""
    st = game.state
    negated: set[int] = set()
    order = {p: i for i, p in enumerate(st.turn_order or st.player_ids)}
    holders = sorted(
        (
            u
            for u in st.units.values()
            if u.is_unit
            and any(f.endswith(" " + DISPEL) for f in u.spec.faces)
            and (st.location[u.uid] in st.terrains or st.location[u.uid] == RESERVE)
        ),
        key=lambda u: (order.get(u.owner, 99), u.uid),
    )
    for unit in holders:
        hit = [i for i, e in enumerate(entries) if i not in negated and touches(game, e, unit.uid)]
        if not hit:
            continue
        opts = [choice("roll", f"Roll {unit.name} for Dispel Magic"), choice("no", "Do not roll")]
        pick = yield ask(
            "dispel",
            unit.owner,
            "choice",
            f"{game.player_name(unit.owner)}: magic targets {unit.name} ({unit.uid}), its army or terrain: "
            "roll it for Dispel Magic?",
            "V4.01c L1432-1448",
            opts,
            validate=choose_validator(opts),
            data={"unit": unit.uid, "spells": [entries[i]["spell"] for i in hit]},
        )
        if pick != "roll":
            continue
        faces = yield from roll_faces(
            game,
            unit.owner,
            [unit.uid],
            "save",
            f"{game.player_name(unit.owner)}: roll {unit.name} for Dispel Magic",
            "V4.01c L1432-1448",
            topic="dispel_roll",
        )
        if faces[0].endswith(" " + DISPEL):
            game.say(f"{unit.name} rolls Dispel Magic")
            negated.update(hit)
        else:
            game.say(f"{unit.name} rolls {faces[0]}: no Dispel Magic")
    return negated


# ------------------------------------------------------------------------------ Cantrip


def cantrip_magic(game: RuleContext, army: Army) -> dict[str, int]:
    """Cantrip results of the last roll, per die (X = the icon's number, L1180-1188)."""
    st = game.state
    out: dict[str, int] = {}
    last = st.last_roll or {}
    for die in last.get("faces", []):
        n = 0
        for face in die["faces"]:
            count, _, icon = face.partition(" ")
            if icon == CANTRIP and is_whole_number(count):
                n += int(count)
        if n and die["uid"] in st.units and st.units[die["uid"]].is_unit:
            out[die["uid"]] = n
    return out


def cantrip_after_roll(
    game: RuleContext, army: Army, roll: str, outcome: RollOutcome, ctx: Mapping[str, Any]
) -> Flow:
    """During a non-maneuver roll other than a magic action, Cantrip gives X magic that may pay only
    for spells marked C; element and species rules still apply (L1296-1306, L2108-2111).  The roller
    may announce such spells right after the roll; they resolve at once."""
    from ...core.state import RESERVE as RES
    from .. import magic as mg

    if roll in ("maneuver", "magic", "terrain") or ctx.get("order_of_play") or ctx.get("no_cantrip"):
        return
    st = game.state
    if st.phase == "setup":
        return
    magic = cantrip_magic(game, army)
    if not magic or sum(magic.values()) < 2:
        return
    pid = army.owner
    here = st.army(pid, army.location) if army.location in st.terrains or army.location == RES else army
    dice = {u.uid: u for u in here.dice}
    magic = {uid: n for uid, n in magic.items() if uid in dice}
    if not magic:
        return
    accounting = {
        uid: {"die": dice[uid].name, "magic": n, "may_count_as": list(mg.magic_kinds(dice[uid]))}
        for uid, n in magic.items()
    }

    def validate(action: dict[str, Any]) -> list[AnnouncedSpell]:
        from ...catalogue import load_catalogue

        spells = action.get("spells")
        if not isinstance(spells, list):
            raise IllegalSpell("'spells' must be a list of {spell, target, element}")
        for entry in spells:
            card = load_catalogue().spell(str(entry.get("spell", ""))) if isinstance(entry, Mapping) else None
            if card is not None and not card.cantrip:
                raise IllegalSpell(
                    f"{card.name} is not marked C: Cantrip magic cannot pay for it", "V4.01c L2108-2111"
                )
        from ..rolling import RollOutcome

        fake = RollOutcome(total=sum(magic.values()), magic_by_die=dict(magic))
        return game.validate_casts(pid, here, fake, (), action)

    casts = yield ask(
        "cast",
        pid,
        "cast",
        f"{game.player_name(pid)}: Cantrip gives {sum(magic.values())} magic for spells marked C: "
        "announce them (or none)",
        "V4.01c L1296-1306, L2108-2111",
        data={"magic": sum(magic.values()), "accounting": accounting, "army": here.id, "cantrip": True},
        validate=validate,
    )
    if casts:
        request = game.notes.get("last_request")
        yield from cast_announced(game, pid, here, casts, cantrip=True)
        retotal(game, army, roll, outcome, ctx, request, {c.name for c in casts})


def retotal(
    game: RuleContext,
    army: Army,
    roll: str,
    outcome: RollOutcome,
    ctx: Mapping[str, Any],
    request: Any,
    names: set[str],
) -> None:
    """The Cantrip SAI is applied at step 4 of die roll resolution, and the roll modifiers it brings
    are applied in the steps that follow (V4.01c L1017-1019): a spell cast with it that modifies this
    army's rolls (Stone Skin's saves, Ash Storm on its terrain ...) counts in this very roll.  It cannot
    touch faces already rolled (L1036-1038).  Re-totals `outcome` in place with the cast spells' effects."""
    from dataclasses import replace

    from ...resolution import get_edition
    from ..rolling import resolve_army_roll

    if request is None or roll == "magic":
        return
    canon = {get_edition("v4").canonical_spell(n) or n for n in names}
    now = tuple(e for e in game.effects_on(army, ctx.get("aimed_at")) if e.name in canon)
    old = tuple(e for e in request.effects if e.name in canon)
    if now == old:
        return
    again = resolve_army_roll(
        replace(request, effects=tuple(e for e in request.effects if e.name not in canon) + now)
    )
    if again.totals == outcome.totals and again.total == outcome.total:
        return
    game.say(
        f"{game.army_label(army)}: with the Cantrip spells, the roll counts {again.total} {roll} "
        f"instead of {outcome.total} (V4.01c L1017-1019)"
    )
    outcome.total, outcome.totals = again.total, dict(again.totals)
    if game.state.last_roll:
        game.state.last_roll["total"] = again.total


# ------------------------------------------------------------------------------ shared steps


def roll_faces(
    game: RuleContext,
    owner: str,
    uids: Sequence[str],
    roll: str,
    prompt: str,
    rule: str,
    topic: str = "spell_roll",
) -> Flow:
    """Ask `owner` to roll the dice `uids` (a roll outside any army roll); returns their faces."""
    st = game.state
    spec = [{"uid": u, "die": st.units[u].name, "faces": list(st.units[u].spec.faces)} for u in uids]
    loc = st.location[uids[0]] if uids else ""
    faces = yield ask_roll(
        topic,
        owner,
        prompt,
        rule,
        dice=spec,
        data={"roll": roll, "army": str(ArmyId(owner, loc)), "units": list(uids)},
    )
    return list(faces)


def unit_results(
    game: RuleContext, uids: Sequence[str], faces: Sequence[str], roll: str, against: str | None = "magic"
) -> dict[str, int]:
    """Resolve each die alone as an individual roll (army modifiers do not apply, L1050-1066, L1115-1117)."""
    from ..rolling import ArmyRoll, resolve_army_roll

    st = game.state
    out = {}
    for uid, face in zip(uids, faces, strict=True):
        unit = st.units[uid]
        terrain = st.terrains.get(st.location[uid])
        request = ArmyRoll(
            roll=roll,
            dice=((unit, (face,)),),
            terrain=terrain.kind if terrain else None,
            face=terrain.face if terrain else 1,
            in_reserve=st.location[uid] == RESERVE,
            against=against if roll == "save" else None,
            marching=unit.owner == st.marching,
            individual=True,
            force_points=st.force_size,
        )
        out[uid] = resolve_army_roll(request).total
    return out


def units_save(game: RuleContext, uids: Sequence[str], spell: str, rule: str) -> Flow:
    """The target units make a save roll together, each counted alone; returns saves per unit."""
    st = game.state
    by_owner: dict[str, list[str]] = {}
    for u in uids:
        by_owner.setdefault(st.units[u].owner, []).append(u)
    out: dict[str, int] = {}
    for owner, mine in by_owner.items():
        faces = yield from roll_faces(
            game,
            owner,
            mine,
            "save",
            f"{game.player_name(owner)}: roll "
            + ", ".join(st.units[u].name for u in mine)
            + f" for saves against {spell}",
            rule,
        )
        out.update(unit_results(game, mine, faces, "save"))
    return out


def damage_army(game: RuleContext, army_id: str, damage: int, spell: str, rule: str) -> Flow:
    """An army-targeting spell's damage: the whole army makes a save roll (L1115), then the damage
    that is left kills units as usual (L1113); those go through the death hooks."""
    st = game.state
    owner, loc = split_army_id(army_id)
    army = st.army(owner, loc)
    if not army.units or damage <= 0:
        return
    saves = yield from game.roll(
        army,
        "save",
        f"{game.player_name(owner)}: roll {game.army_label(army)} for saves "
        f"against {damage} damage from {spell}",
        rule,
        against="magic",
        no_cantrip=True,
        need=(damage, "saves to stop all the damage"),
    )
    net = max(0, damage - saves.total)
    game.say(f"{spell}: {damage} damage - {saves.total} saves = {net} damage")
    yield from game.inflict(st.army(owner, loc), net)


def damage_unit(game: RuleContext, uid: str, damage: int, spell: str, rule: str, save: bool = True) -> Flow:
    """A unit-targeting spell's damage: only that unit saves (L1116-1117), with no benefit of its army.
    Returns (damage left, saves rolled)."""
    st = game.state
    unit = st.units[uid]
    saves = 0
    if save:
        got = yield from units_save(game, [uid], spell, rule)
        saves = got[uid]
    net = max(0, damage - saves)
    game.say(f"{spell}: {damage} damage on {unit.name} - {saves} saves = {net}")
    if net >= unit.health:
        yield from kill_flow(game, [uid], save_roll=save, army_targeted=False, cause=spell)
    return net, saves


def reduce_terrain(game: RuleContext, tid: str, spell: str, rule: str) -> bool:
    """Turn a terrain one step down (Flash Flood, Tidal Wave): at most one step per player's turn
    from each of those spells; leaving the eighth face ends its control (L513-517)."""
    st = game.state
    terrain = st.terrains[tid]
    mark = f"{spell}: {terrain.name} reduced this turn"
    if any(e.name == mark and e.detail.get("turn") == st.turn for e in st.effects):
        game.say(f"{terrain.name} was already reduced by {spell} this turn ({rule})")
        return False
    if terrain.face <= 1:
        game.say(f"{terrain.name} is at 1: it cannot be reduced")
        return False
    old = terrain.face
    terrain.face -= 1
    # A marker (no roll effect), gone at the beginning of the marching player's next turn.
    game.add_effect(mark, st.marching or "", tid, UNTIL_YOUR_NEXT_TURN, turn=st.turn)
    game.say(f"{spell}: {terrain.name} is reduced from {old} to {terrain.face}")
    if old == 8 and terrain.controller is not None:
        game.say(f"{game.player_name(terrain.controller)} loses control of {terrain.name} (V4.01c L513-517)")
        terrain.controller = None
    return True


def combination_roll(game: RuleContext, army: Army, counted: Sequence[str], prompt: str, rule: str) -> Flow:
    """One roll of the army counting several result types (L1076-1096), e.g. Tidal Wave's save +
    maneuver roll; returns the totals per type."""
    from ..rolling import ArmyRoll, resolve_army_roll

    st = game.state
    dice = [d for d in army.dice if d.is_unit or d.spec.kind == "item"]
    faces = yield from roll_faces(game, army.owner, [d.uid for d in dice], counted[0], prompt, rule)
    from ..roll_choices import before_totals

    # the roller's choices (Fly, Create Fireminions, Wilding ...) in this combination roll (L1083-1096)
    picked = yield from before_totals(
        game, army, counted[0], dice, [[f] for f in faces], {"counted": tuple(counted)}
    )
    terrain = st.terrains.get(army.location)
    controls = terrain is not None and terrain.face == 8 and terrain.controller == army.owner
    request = ArmyRoll(
        roll=counted[0],
        dice=tuple((d, (f,)) for d, f in zip(dice, faces, strict=True)),
        terrain=terrain.kind if terrain else None,
        face=terrain.face if terrain else 1,
        eighth_face=controls,
        in_reserve=army.location == RESERVE,
        against="magic",
        marching=army.owner == st.marching,
        effects=game.effects_on(army),
        counted=tuple(counted),
        force_points=st.force_size,
        choices=tuple(picked.items()),
    )
    out = resolve_army_roll(request)
    totals = {k.lower(): int(v) for k, v in out.totals.items()}
    game.say(f"{game.army_label(army)} rolled " + ", ".join(f"{totals.get(c, 0)} {c}" for c in counted))
    return totals
