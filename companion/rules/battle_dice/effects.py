"""What each kind of table effect does, as small generator functions.

Each function takes the :class:`~.board.Board`, the player whose effect it is and the
:class:`~.tables.RowEffect`; it ``yield``s :class:`~.decisions.BattleDecision` objects whenever someone must
roll or choose, and receives the checked action back.  Helpers for rolling amounts and tables and
for inflicting casualties live here too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .board import POOL_PHASE, Board, describe
from .decisions import BattleDecision, Flow, d3_from_d6
from .setup import opponent
from .tables import CORE_TABLES, MONSTER_TABLES, UNIT_TYPES, Row, RowEffect, Table

# ---------------------------------------------------------------------------------- rolling


def roll_amount(b: Board, p: str, amount: int | str, purpose: str) -> Flow[int]:
    """An effect amount: a fixed int, or 1d3 (d6 halved, ruling R14) / 1d6 rolled by ``p``."""
    if isinstance(amount, int):
        return amount
    n_dice, sides = (int(x) for x in amount.split("d"))
    assert n_dice == 1, amount
    if sides == 3 and b.options["R14"] == "d6_halved":
        die = {"id": None, "sides": 6, "read_as": "d3"}
        prompt = f"{b.army(p)['name']}: roll a d6 for 1D3 ({purpose}; 1-2=1, 3-4=2, 5-6=3)"
    else:
        die = {"id": None, "sides": sides, "read_as": None}
        prompt = f"{b.army(p)['name']}: roll 1D{sides} ({purpose})"
    action = yield BattleDecision(p, "roll", prompt, purpose, dice=[die])
    face = action["faces"][0]
    value = d3_from_d6(face) if die["read_as"] == "d3" else face
    b.emit(
        "amount",
        f"{b.army(p)['name']} rolls {value} for {purpose}",
        player=p,
        value=value,
        faces=action["faces"],
        source=action["source"],
    )
    return value


def table_die(b: Board, table: Table) -> int:
    """The die rolled on a table: the printed one, except tables printed 1D6 with rows 7-8 (R01)."""
    if table.highest_row > table.sides and b.options["R01"] == "d8":
        return 8
    return table.sides


def roll_on_table(b: Board, p: str, table: Table, why: str) -> Flow[Row]:
    sides = table_die(b, table)
    prompt = f"{b.army(p)['name']}: roll a d{sides} on the {table.title} table ({why})"
    action = yield BattleDecision(
        p, "roll", prompt, f"{table.key} table", dice=[{"id": None, "sides": sides, "read_as": None}]
    )
    face = action["faces"][0]
    row = table.row_for(face)
    b.emit(
        "table",
        f"{b.army(p)['name']} rolls {face} on the {table.title} table: {row.name}",
        player=p,
        table=table.key,
        face=face,
        row=row.name,
        citation=row.citation,
        source=action["source"],
    )
    return row


def apply_row(b: Board, p: str, row: Row, table: Table) -> Flow[None]:
    for effect in row.effects:
        yield from EFFECTS[effect.kind](b, p, effect, row, table)


# ---------------------------------------------------------------------------------- choosing


def _equivalent(c: dict[str, Any]) -> tuple[Any, ...]:
    return (c["owner"], c["sides"], c["face"], c.get("monster"))


def choose_dice(
    b: Board, chooser: str, count: int, candidates: list[dict[str, Any]], purpose: str, prompt: str
) -> Flow[list[str]]:
    """Ids of ``count`` dice picked by ``chooser``; no question when the choice makes no difference."""
    count = min(count, len(candidates))
    if count == 0:
        return []
    if count == len(candidates) or len({_equivalent(c) for c in candidates}) == 1:
        return [c["id"] for c in candidates[:count]]
    action = yield BattleDecision(chooser, "choose_dice", prompt, purpose, count=count, candidates=candidates)
    chosen: list[str] = action["dice"]
    return chosen


def choose_option(b: Board, chooser: str, options: list[str], purpose: str, prompt: str) -> Flow[str]:
    if len(options) == 1:
        return options[0]
    action = yield BattleDecision(chooser, "choose_option", prompt, purpose, options=options)
    option: str = action["option"]
    return option


def candidate(owner: str, die: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": die["id"],
        "owner": owner,
        "unit": die["unit"],
        "sides": die["sides"],
        "face": die["face"],
        "monster": die["monster"],
        "label": describe(die),
    }


# ---------------------------------------------------------------------------------- casualties


def inflict(
    b: Board, attacker: str, hits: int, why: str, *, only_sides: int | None = None, chooser: str | None = None
) -> Flow[list[str]]:
    """``hits`` casualties on the attacker's opponent, after its negations (R21); owner picks (L66)."""
    victim = opponent(attacker)
    if hits <= 0:
        return []
    ts = b.turn_state(victim)
    if ts["negate"]:
        cancelled = min(ts["negate"], hits)
        ts["negate"] -= cancelled
        hits -= cancelled
        b.emit(
            "negated",
            f"{b.army(victim)['name']} negates {cancelled} casualt{'y' if cancelled == 1 else 'ies'} ({why})",
            player=victim,
            count=cancelled,
        )
    pool = [candidate(victim, d) for d in b.alive(victim, only_sides)]
    chooser = chooser or victim
    n = min(hits, len(pool))
    who = "your" if chooser == victim else "enemy"
    prompt = f"{b.army(chooser)['name']}: choose {n} of {who} dice to be destroyed ({why})"
    ids = yield from choose_dice(b, chooser, n, pool, "casualties", prompt)
    for die_id in ids:
        b.destroy(victim, die_id, why)
    return ids


# ---------------------------------------------------------------------------------- effects


def kill_now(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # Elemental Attack, Charge: owner picks (BD L66)
    n = yield from roll_amount(b, p, e.amount, row.name)
    yield from inflict(b, p, n, row.name)


def kill_chosen(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # Death, Assassinate: "of your choice" (BD L207-209, L445-447)
    n = yield from roll_amount(b, p, e.amount, row.name)
    yield from inflict(b, p, n, row.name, chooser=p)


def kill_in_phase(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # "Destroy 1D3 enemy dice in Missile/Melee Phase"
    n = yield from roll_amount(b, p, e.amount, f"{row.name} kills in the {e.phase} phase")
    if b.phase_done(e.phase):
        b.emit("lost", f"{row.name}: the {e.phase} phase is over this turn; {n} kills lost", player=p)
        return
    b.turn_state(p)["kills"][e.phase] += n
    b.emit(
        "kills_pending",
        f"{b.army(p)['name']} will destroy {n} more enemy dice in the {e.phase} phase",
        player=p,
        phase=e.phase,
        count=n,
    )


def set_to_one(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # Tail, Confuse, Outflank, Ensorcelled; R13 who picks, R08
    victim = opponent(p)
    n = yield from roll_amount(b, p, e.amount, row.name)
    chooser = p if b.options["R13"] == "caster" else victim
    pool = [candidate(victim, d) for d in b.alive(victim) if d["face"] is not None]
    n = min(n, len(pool))
    prompt = f"{b.army(chooser)['name']}: choose {n} {'enemy' if chooser == p else 'of your'} dice to set to 1 ({row.name})"
    ids = yield from choose_dice(b, chooser, n, pool, "set_to_one", prompt)
    for die_id in ids:
        die = b.get(victim, die_id)
        text = f"{describe(die)} is set to 1 ({row.name})"
        die["face"] = 1
        b.emit("set_to_one", text, player=victim, die=die_id)
        if die["sides"] == 20 and b.options["R08"] == "departs_at_once":
            b.destroy(victim, die_id, "monster set to 1 leaves", count_casualty=b.options["R18"] == "counts")


def _pool(b: Board, pool: str) -> str | None:
    if pool == "magic":  # R03: Medusa/Warrior "Magic points"
        return "spell" if b.options["R03"] == "spell_points" else None
    return pool


def gain_points(b: Board, p: str, e: RowEffect, row: Row, table: Table) -> Flow[None]:
    n = yield from roll_amount(b, p, e.amount, row.name)
    pool = _pool(b, e.pool)
    if pool is None:
        b.emit("lost", f"{row.name}: {n} Magic points have no use (R03)", player=p)
    elif not b.pool_open(pool):  # R20
        b.emit(
            "lost", f"{row.name}: the {POOL_PHASE[pool]} phase is over this turn; {n} points lost", player=p
        )
    else:
        b.turn_state(p)["gains"][pool] += n
        b.emit("points", f"{b.army(p)['name']} gains {n} {pool} point(s)", player=p, pool=pool, count=n)


def enemy_loses_points(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # Sabotage, Immobilize
    victim = opponent(p)
    n = yield from roll_amount(b, p, e.amount, row.name)
    if not b.pool_open(e.pool):
        b.emit("lost", f"{row.name}: the {POOL_PHASE[e.pool]} phase is over this turn", player=p)
        return
    b.turn_state(victim)["losses"][e.pool] += n
    b.emit(
        "points",
        f"{b.army(victim)['name']} loses {n} {e.pool} point(s)",
        player=victim,
        pool=e.pool,
        count=-n,
    )


def morale(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # Leadership, Courage, Martyr, Bravery (+); Fear, Encircle (-)
    n = yield from roll_amount(b, p, e.amount, row.name)
    target = p if e.target == "self" else opponent(p)
    b.turn_state(target)["morale"].append(e.sign * n)
    b.emit(
        "morale_mod",
        f"{b.army(target)['name']} morale total {e.sign * n:+d} this turn ({row.name})",
        player=target,
        value=e.sign * n,
    )


def negate(b: Board, p: str, e: RowEffect, row: Row, table: Table) -> Flow[None]:
    n = yield from roll_amount(b, p, e.amount, row.name)
    b.turn_state(p)["negate"] += n
    b.emit(
        "negate", f"{b.army(p)['name']} will negate the next {n} casualties ({row.name})", player=p, count=n
    )


def _roll_new_dice(b: Board, p: str, dice: list[dict[str, Any]], why: str) -> Flow[None]:
    """R09 roll_at_once: new dice are rolled on arrival."""
    if not dice or b.options["R09"] != "roll_at_once":
        return
    action = yield BattleDecision(
        p,
        "roll",
        f"{b.army(p)['name']}: roll the new dice ({why})",
        "new dice",
        dice=[{"id": d["id"], "sides": d["sides"], "read_as": None} for d in dice],
    )
    for d, face in zip(dice, action["faces"], strict=True):
        d["face"] = face
    b.emit(
        "roll",
        f"{b.army(p)['name']} rolls new dice: " + ", ".join(f"{d['id']}={d['face']}" for d in dice),
        player=p,
        faces={d["id"]: d["face"] for d in dice},
        source=action["source"],
    )


def restore(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # Rally Troops (1D6), Healing (1D3)
    n = yield from roll_amount(b, p, e.amount, row.name)
    pool = [candidate(p, d) for d in b.army(p)["destroyed"]]
    n = min(n, len(pool))
    prompt = f"{b.army(p)['name']}: choose {n} destroyed dice to restore ({row.name})"
    ids = yield from choose_dice(b, p, n, pool, "restore", prompt)
    dice = [b.restore(p, die_id) for die_id in ids]
    yield from _roll_new_dice(b, p, dice, row.name)


def control(b: Board, p: str, e: RowEffect, row: Row, table: Table) -> Flow[None]:  # BD L199-201; R10, R17
    victim = opponent(p)
    pool = [candidate(victim, d) for d in b.alive(victim)]
    prompt = f"{b.army(p)['name']}: choose one enemy die to take control of ({row.name})"
    ids = yield from choose_dice(b, p, 1, pool, "control", prompt)
    for die_id in ids:
        b.take_control(p, die_id, keep_face=b.options["R10"] == "keeps_face")
        if b.options["R17"] == "counts":
            b.turn_state(victim)["casualties"] += 1


def summon(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # Summon (BD L203-205, R22); Vampire Drain's new unit (R12)
    army = b.army(p)
    monster: str | None
    if e.unit:  # Drain
        if b.options["R12"] == "no_new_unit":
            return
        unit, monster = e.unit, table.key
    else:
        options = [
            u.name
            for u in UNIT_TYPES
            if u.name != "monster" or (army["monster"] and b.options["R22"] == "any_type")
        ]
        unit = yield from choose_option(
            b, p, options, "summon_type", f"{army['name']}: choose the type of the summoned dice ({row.name})"
        )
        monster = army["monster"] if unit == "monster" else None
    n = yield from roll_amount(b, p, e.amount, row.name)
    dice = [b.add_die(p, unit, monster) for _ in range(n)]
    yield from _roll_new_dice(b, p, dice, row.name)


def roll_table(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # Haste, Command, Archmage Spell
    sub = CORE_TABLES[e.table]
    new_row = yield from roll_on_table(b, p, sub, row.name)
    yield from apply_row(b, p, new_row, sub)


def hit_on(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # Lead the Charge, Direct the Fire ("this turn")
    ts = b.turn_state(p)
    ts["hit_on"][e.unit] = e.face
    b.emit("hit_on", f"{b.army(p)['name']}: {e.unit} also hit on {e.face} this turn ({row.name})", player=p)
    yield from ()


def initiative(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # BD L156-161: the player picks the phase
    left = [ph for ph in ("missile", "melee") if not b.phase_done(ph)]
    if not left:
        b.emit("lost", f"{row.name}: no Missile or Melee phase left this turn", player=p)
        return
    phase = yield from choose_option(
        b,
        p,
        left,
        "initiative_phase",
        f"{b.army(p)['name']}: resolve your hits first in which phase? ({row.name})",
    )
    b.turn_state(p)["initiative"].append(phase)
    b.emit(
        "initiative", f"{b.army(p)['name']} has the initiative in the {phase} phase", player=p, phase=phase
    )


def maneuver_next_turn(
    b: Board, p: str, e: RowEffect, row: Row, table: Table
) -> Flow[None]:  # Encircle (R11)
    b.turn_state(p)["maneuver_next_turn"] += e.amount
    b.emit("carry", f"{b.army(p)['name']} gains {e.amount} maneuver point next turn ({row.name})", player=p)
    yield from ()


def pick_result(b: Board, p: str, e: RowEffect, row: Row, table: Table) -> Flow[None]:  # Maneuver 9-10 (R23)
    sub = CORE_TABLES[e.table]
    names = [r.name for r in sub.rows if r is not row and r.name != row.name]
    name = yield from choose_option(
        b, p, names, "pick_result", f"{b.army(p)['name']}: pick a {sub.title} result"
    )
    picked = sub.row_named(name)
    b.emit(
        "table",
        f"{b.army(p)['name']} picks {picked.name}",
        player=p,
        table=sub.key,
        row=picked.name,
        citation=picked.citation,
    )
    yield from apply_row(b, p, picked, sub)


EffectStep = Callable[[Board, str, RowEffect, Row, Table], Flow[None]]

EFFECTS: dict[str, EffectStep] = {
    "kill_now": kill_now,
    "kill_chosen": kill_chosen,
    "kill_in_phase": kill_in_phase,
    "set_to_one": set_to_one,
    "gain_points": gain_points,
    "enemy_loses_points": enemy_loses_points,
    "morale": morale,
    "negate": negate,
    "restore": restore,
    "control": control,
    "summon": summon,
    "roll_table": roll_table,
    "hit_on": hit_on,
    "initiative": initiative,
    "maneuver_next_turn": maneuver_next_turn,
    "pick_result": pick_result,
}

assert {
    e.kind for t in (*CORE_TABLES.values(), *MONSTER_TABLES.values()) for r in t.rows for e in r.effects
} <= set(EFFECTS)
