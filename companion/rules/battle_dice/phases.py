"""The turn (BD L74-92) and its eight phases, as generator functions over a :class:`~.board.Board`.

Simultaneous play (BD L68-72): each phase reads the faces as they are when the phase starts, so a
unit destroyed during the phase has still acted in it; only Gain Initiative (ruling R05) lets one
side's hits land before the other side's dice are counted.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from . import tables as T
from .board import Board
from .decisions import BattleDecision, Flow
from .effects import apply_row, inflict, roll_on_table
from .setup import PLAYERS, opponent

PHASES = ("roll", "monster", "general", "magic", "maneuver", "missile", "melee", "morale")


def count_faces(b: Board, p: str, sides: int, faces: Collection[int]) -> int:
    return sum(1 for d in b.alive(p, sides) if d["face"] in faces)


# ---------------------------------------------------------------------------------- 1. roll


def roll_phase(b: Board) -> Flow[None]:
    """BD L94-96: both players roll all of their dice."""
    for p in PLAYERS:
        dice = b.alive(p)
        if not dice:
            continue
        asked = [{"id": d["id"], "sides": d["sides"], "read_as": None, "unit": d["unit"]} for d in dice]
        action = yield BattleDecision(
            p, "roll", f"{b.army(p)['name']}: roll all {len(dice)} dice", "roll_phase", dice=asked
        )
        for d, face in zip(dice, action["faces"], strict=True):
            d["face"] = face
        b.emit(
            "roll",
            f"{b.army(p)['name']} rolls " + " ".join(f"d{d['sides']}:{d['face']}" for d in dice),
            player=p,
            faces={d["id"]: d["face"] for d in dice},
            source=action["source"],
        )


# ---------------------------------------------------------------------------------- 2. monster


def monster_phase(b: Board) -> Flow[None]:
    """BD L98-114 (order of steps: ruling R15; order of sides: R16)."""
    snap = {p: [dict(d) for d in b.alive(p, 20) if d["face"] is not None] for p in PLAYERS}
    order = PLAYERS if b.options["R16"] == "a_first" else tuple(reversed(PLAYERS))

    def departures() -> None:
        for p in PLAYERS:  # BD L102: 1 or 2, the monster leaves (considered destroyed)
            for d in snap[p]:
                if d["face"] in T.MONSTER_DEPARTS and b.find(p, d["id"]) is not None:
                    ts = b.turn_state(p)
                    if b.options["R21"] == "all_casualties" and ts["negate"]:
                        ts["negate"] -= 1
                        b.emit(
                            "negated",
                            f"{b.army(p)['name']} negates a monster leaving (R21)",
                            player=p,
                            count=1,
                        )
                        continue
                    b.destroy(
                        p,
                        d["id"],
                        f"monster rolled {d['face']} and leaves the battle",
                        count_casualty=b.options["R18"] == "counts",
                    )

    def duels() -> Flow[None]:
        hits = {p: sum(1 for d in snap[p] if d["face"] in T.MONSTER_SLAYS) for p in PLAYERS}  # BD L104
        for p in order:
            yield from inflict(b, p, hits[p], "monster duel (13-16)", only_sides=20)

    def monster_points() -> Flow[None]:
        for p in order:  # BD L106-112: each 17-20 gives a point; roll on that monster's own table
            for d in snap[p]:
                if d["face"] in T.MONSTER_POINT:
                    table = T.MONSTER_TABLES[d["monster"]]
                    row = yield from roll_on_table(b, p, table, f"Monster point from {d['id']}")
                    yield from apply_row(b, p, row, table)

    departures()
    if b.options["R15"] == "printed_order":
        yield from duels()
        yield from monster_points()
    else:
        yield from monster_points()
        yield from duels()


# ---------------------------------------------------------------------------------- 3-5. contests

CONTESTS = {
    # phase: (pool, die sides, scoring faces, effect table, citation)
    "general": ("tactics", 4, T.TACTICS_POINT, T.TACTICS, "BD L116-128"),
    "magic": ("spell", 12, T.SPELL_POINT, T.SPELL, "BD L163-175"),
    "maneuver": ("maneuver", 10, T.MANEUVER_POINT, T.MANEUVER, "BD L224-237"),
}


def contest_points(b: Board, phase: str) -> dict[str, Any]:
    pool, sides, faces, _table, _cite = CONTESTS[phase]
    totals: dict[str, int] = {}
    for p in PLAYERS:
        ts = b.turn_state(p)
        total = count_faces(b, p, sides, faces) + ts["gains"][pool] - ts["losses"][pool]
        if pool == "maneuver" and b.options["R11"] == "before_comparison":
            total += b.data["carry"][p]["maneuver"]
        totals[p] = max(0, total)  # R20: losses cannot go below 0
    return totals


def contest_phase(b: Board, phase: str) -> Flow[None]:
    """The shared algorithm of the General, Magic and Maneuver phases (rulings R06, R11)."""
    pool, _sides, _faces, table, cite = CONTESTS[phase]
    totals = contest_points(b, phase)
    if totals["A"] == totals["B"] and b.options["R06"] == "both_keep":
        left = dict(totals)
    else:
        high = max(totals.values())
        low = min(totals.values())
        left = {p: (high - low if totals[p] == high and high != low else 0) for p in PLAYERS}
    if pool == "maneuver" and b.options["R11"] == "after_comparison":
        for p in PLAYERS:
            left[p] += b.data["carry"][p]["maneuver"]
    b.emit(
        "contest",
        f"{pool.title()} points A {totals['A']} : B {totals['B']}; "
        f"left to roll A {left['A']}, B {left['B']} ({cite})",
        pool=pool,
        totals=totals,
        left=left,
    )
    b.data["phases_done"].append(phase)  # later gains for this pool are lost (R20)
    for p in PLAYERS:
        for k in range(left[p]):
            row = yield from roll_on_table(b, p, table, f"{pool} point {k + 1} of {left[p]}")
            yield from apply_row(b, p, row, table)


def general_phase(b: Board) -> Flow[None]:
    yield from contest_phase(b, "general")


def magic_phase(b: Board) -> Flow[None]:
    yield from contest_phase(b, "magic")


def maneuver_phase(b: Board) -> Flow[None]:
    yield from contest_phase(b, "maneuver")


# ---------------------------------------------------------------------------------- 6-7. strikes

STRIKES = {
    # phase: (die sides, hits from, unit whose threshold a Tactics result lowers, citation)
    "missile": (8, T.MISSILE_HIT_FROM, "archer", "BD L267-271"),
    "melee": (6, T.MELEE_HIT_FROM, "infantry", "BD L273-276"),
}


def strike_hits(b: Board, p: str, phase: str) -> int:
    sides, hit_from, unit, _cite = STRIKES[phase]
    ts = b.turn_state(p)
    lowered = ts["hit_on"][unit]  # Lead the Charge / Direct the Fire (BD L146, L150)
    threshold = min(hit_from, lowered) if lowered else hit_from
    dice = sum(1 for d in b.alive(p, sides) if d["face"] is not None and d["face"] >= threshold)
    kills: int = ts["kills"][phase]
    return dice + kills


def strike_phase(b: Board, phase: str) -> Flow[None]:
    """Missile and Melee: each scoring die destroys one enemy die; Gain Initiative per R05/R25."""
    cite = STRIKES[phase][3]
    holders = [p for p in PLAYERS if phase in b.turn_state(p)["initiative"]]
    first = holders[0] if len(holders) == 1 else None
    if first and b.options["R05"] == "kills_first":
        hits = strike_hits(b, first, phase)
        b.emit(
            "hits",
            f"{b.army(first)['name']} strikes first with {hits} hit(s) ({cite})",
            player=first,
            hits=hits,
        )
        yield from inflict(b, first, hits, f"{phase} hits")
        other = opponent(first)
        hits = strike_hits(b, other, phase)
        b.emit("hits", f"{b.army(other)['name']} answers with {hits} hit(s)", player=other, hits=hits)
        yield from inflict(b, other, hits, f"{phase} hits")
        return
    each = {p: strike_hits(b, p, phase) for p in PLAYERS}
    b.emit("hits", f"{phase.title()} hits A {each['A']} : B {each['B']} ({cite})", hits=each)
    order = (first, opponent(first)) if first else PLAYERS
    for p in order:
        yield from inflict(b, p, each[p], f"{phase} hits")


def missile_phase(b: Board) -> Flow[None]:
    yield from strike_phase(b, "missile")


def melee_phase(b: Board) -> Flow[None]:
    yield from strike_phase(b, "melee")


# ---------------------------------------------------------------------------------- 8. morale


def morale_total(b: Board, p: str) -> int:
    faces = sum(1 for d in b.alive(p) if d["face"] in T.MORALE_FACES)  # BD L284 (R24)
    morale: list[int] = b.turn_state(p)["morale"]
    return faces + sum(morale)


def morale_phase(b: Board) -> Flow[None]:
    """BD L278-286 (rulings R07, R24)."""
    cas = {p: b.turn_state(p)["casualties"] for p in PLAYERS}
    if cas["A"] != cas["B"]:
        checking = [max(PLAYERS, key=lambda p: cas[p])]
    elif b.options["R07"] == "both_check" and cas["A"] > 0:
        checking = list(PLAYERS)
    else:
        checking = []
    b.emit(
        "casualties", f"Casualties this turn A {cas['A']} : B {cas['B']}", casualties=cas, checking=checking
    )
    routed = []
    for p in checking:
        total = morale_total(b, p)
        fails = total < cas[p] or (b.options["R24"] == "at_most" and total == cas[p])
        b.emit(
            "morale",
            f"{b.army(p)['name']} morale total {total} against {cas[p]} casualties: "
            f"{'ROUTS' if fails else 'holds'} (BD L286)",
            player=p,
            total=total,
            casualties=cas[p],
            routs=fails,
        )
        if fails:
            routed.append(p)
    if len(routed) == 1:
        b.data["result"] = {"winner": opponent(routed[0]), "reason": "rout", "loser": routed[0]}
    elif len(routed) == 2:
        b.data["result"] = {"winner": None, "reason": "both armies rout", "loser": None}
    return
    yield  # a generator like the other phases


PHASE_FUNCTIONS: dict[str, Callable[[Board], Flow[None]]] = {
    "roll": roll_phase,
    "monster": monster_phase,
    "general": general_phase,
    "magic": magic_phase,
    "maneuver": maneuver_phase,
    "missile": missile_phase,
    "melee": melee_phase,
    "morale": morale_phase,
}


def check_destroyed(b: Board) -> None:
    """BD L9 'utterly destroyed' (ruling R19: a simultaneous wipe-out is a draw)."""
    empty = [p for p in PLAYERS if not b.alive(p)]
    if len(empty) == 2:
        b.data["result"] = {"winner": None, "reason": "both armies destroyed", "loser": None}
    elif empty:
        b.data["result"] = {"winner": opponent(empty[0]), "reason": "destroyed", "loser": empty[0]}


def play(b: Board) -> Flow[None]:
    """The whole game: turns of eight phases until a rout, a destruction or the turn limit."""
    while True:
        for phase in PHASES:
            b.data["phase"] = phase
            b.emit("phase", f"Turn {b.data['turn']}: {phase} phase")
            yield from PHASE_FUNCTIONS[phase](b)
            if phase not in b.data["phases_done"]:
                b.data["phases_done"].append(phase)
            if b.data["result"] is None and (b.options["R19"] == "after_each_phase" or phase == "morale"):
                check_destroyed(b)
            if b.data["result"] is not None:
                b.data["phase"] = "over"
                b.emit("result", result_text(b), result=b.data["result"])
                return
        limit = b.options["max_turns"]
        if limit is not None and b.data["turn"] >= limit:
            b.data["result"] = {"winner": None, "reason": f"turn limit {limit} reached", "loser": None}
            b.data["phase"] = "over"
            b.emit("result", result_text(b), result=b.data["result"])
            return
        b.end_turn(negate_carries=b.options["R04"] == "until_used")


def result_text(b: Board) -> str:
    r = b.data["result"]
    if r["winner"] is None:
        return f"Draw: {r['reason']}"
    return f"{b.army(r['winner'])['name']} wins: {b.army(r['loser'])['name']} {r['reason']}"
