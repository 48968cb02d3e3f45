"""The organizer's operations on the league database: players, rounds and pairings, the round clock,
tie-breaks, each table's live state, standings and export.

Each function takes an autocommit psycopg connection; writes run in one transaction each.  Bad input
raises :class:`~companion.league.push.PushRefused` (``malformed``/``conflict``/``not_found``) naming
what is wrong, and changes nothing.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .pairing import round_robin, swiss
from .push import PushRefused
from .standings import DEFAULT_SCORING, TIE_BREAKS, check_tie_breaks, standings

if TYPE_CHECKING:
    from companion.session.pg_store import PgConnection

DEFAULT_TIE_BREAKS = ["buchholz", "wins"]


# -- players ---------------------------------------------------------------------------------------------
def add_player(conn: PgConnection, name: object, force: object = "") -> dict[str, Any]:
    import psycopg

    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 80:
        raise PushRefused("malformed", "a player's name is 1-80 characters")
    if not isinstance(force, str) or len(force) > 400:
        raise PushRefused("malformed", "a force description is at most 400 characters")
    try:
        row = conn.execute(
            "INSERT INTO league_players (name, force) VALUES (%s, %s) RETURNING player_id",
            (name.strip(), force.strip()),
        ).fetchone()
    except psycopg.errors.UniqueViolation:
        raise PushRefused("conflict", f"a player named {name.strip()!r} is already registered") from None
    return {"id": _first(row), "name": name.strip(), "force": force.strip()}


def players(conn: PgConnection, active_only: bool = False) -> list[dict[str, Any]]:
    sql = "SELECT player_id, name, force, dropped FROM league_players"
    if active_only:
        sql += " WHERE NOT dropped"
    return [
        {"id": i, "name": n, "force": f, "dropped": d}
        for i, n, f, d in conn.execute(sql + " ORDER BY player_id")
    ]


def drop_player(conn: PgConnection, player_id: object) -> None:
    if (
        conn.execute(
            "UPDATE league_players SET dropped = true WHERE player_id = %s", (_int(player_id, "player"),)
        ).rowcount
        != 1
    ):
        raise PushRefused("not_found", f"no player {player_id}")


# -- settings --------------------------------------------------------------------------------------------
def get_setting(conn: PgConnection, key: str, default: Any) -> Any:
    row = conn.execute("SELECT value FROM league_settings WHERE key = %s", (key,)).fetchone()
    return default if row is None else row[0]


def set_tie_breaks(conn: PgConnection, value: object) -> list[str]:
    from psycopg.types.json import Jsonb

    try:
        tbs = check_tie_breaks(value)
    except ValueError as exc:
        raise PushRefused("malformed", str(exc)) from None
    conn.execute(
        "INSERT INTO league_settings VALUES ('tie_breaks', %s) ON CONFLICT (key) DO UPDATE "
        "SET value = excluded.value",
        (Jsonb(tbs),),
    )
    return tbs


def tie_breaks(conn: PgConnection) -> list[str]:
    found: list[str] = get_setting(conn, "tie_breaks", DEFAULT_TIE_BREAKS)
    return found


# -- results and standings ---------------------------------------------------------------------------------
def finished_games(conn: PgConnection) -> list[dict[str, Any]]:
    """Every pairing as a standings game: byes, and paired games with the result the engine posted."""
    out = []
    for rnd, table, p1, p2, game_id, winner, how, started, ended in conn.execute(
        "SELECT p.round_no, p.table_no, p.player1, p.player2, p.game_id, r.winner, r.how, r.started_at, "
        "r.ended_at FROM league_pairings p LEFT JOIN league_results r ON r.game_id = p.game_id "
        "ORDER BY p.round_no, p.table_no"
    ):
        win_id = {"p1": p1, "p2": p2}.get(winner)
        out.append(
            {
                "round": rnd,
                "table": table,
                "p1": p1,
                "p2": p2,
                "game_id": game_id,
                "winner": win_id,
                "how": how,
                "minutes": _minutes(started, ended),
            }
        )
    return out


def _minutes(start: str | None, end: str | None) -> float | None:
    if start is None or end is None:
        return None
    try:
        return round((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds() / 60, 1)
    except (TypeError, ValueError):
        return None


def current_standings(conn: PgConnection) -> list[dict[str, Any]]:
    return standings(players(conn), finished_games(conn), tie_breaks(conn), DEFAULT_SCORING)


# -- rounds ------------------------------------------------------------------------------------------------
def new_round(conn: PgConnection, method: str, minutes: int = 90) -> dict[str, Any]:
    """Pair the next round (active players only) and store it; returns the round with its pairings."""
    if method not in ("swiss", "round_robin"):
        raise PushRefused("malformed", "method must be swiss or round_robin")
    minutes = _int(minutes, "minutes")
    if not 1 <= minutes <= 600:
        raise PushRefused("malformed", "a round lasts 1-600 minutes")
    with conn.transaction():
        conn.execute("LOCK TABLE league_rounds IN EXCLUSIVE MODE")
        last = _first(conn.execute("SELECT coalesce(max(round_no), 0) FROM league_rounds").fetchone())
        if last:
            open_games = _first(
                conn.execute(
                    "SELECT count(*) FROM league_pairings p LEFT JOIN league_results r "
                    "ON r.game_id = p.game_id WHERE p.round_no = %s AND p.player2 IS NOT NULL "
                    "AND r.game_id IS NULL",
                    (last,),
                ).fetchone()
            )
            if open_games:
                raise PushRefused("conflict", f"round {last} still has {open_games} game(s) without a result")
        active = players(conn, active_only=True)
        if len(active) < 2:
            raise PushRefused("conflict", "a round needs at least two active players")
        ids = [p["id"] for p in active]
        round_no = last + 1
        if method == "round_robin":
            pairs = round_robin(ids, round_no)
        else:
            table = {r["player_id"]: r for r in current_standings(conn)}
            ranked = sorted(ids, key=lambda i: (table[i]["rank"], table[i]["name"]))
            games = finished_games(conn)
            played = {frozenset((g["p1"], g["p2"])) for g in games if g["p2"] is not None}
            byes = {g["p1"] for g in games if g["p2"] is None}
            pairs = swiss(ranked, {i: table[i]["points"] for i in ids}, played, byes)
        conn.execute(
            "INSERT INTO league_rounds (round_no, method, minutes) VALUES (%s, %s, %s)",
            (round_no, method, minutes),
        )
        table_no = 0
        rows = []
        for a, b in pairs:
            if b is None:
                label = "bye"
            else:
                table_no += 1
                label = str(table_no)
            conn.execute(
                "INSERT INTO league_pairings (round_no, table_no, player1, player2) VALUES (%s, %s, %s, %s)",
                (round_no, label if b is not None else f"bye-{a}", a, b),
            )
            rows.append({"table": label, "player1": a, "player2": b})
    return {"round": round_no, "method": method, "minutes": minutes, "pairings": rows}


def start_clock(conn: PgConnection, round_no: object) -> None:
    if (
        conn.execute(
            "UPDATE league_rounds SET started_at = now() WHERE round_no = %s", (_int(round_no, "round"),)
        ).rowcount
        != 1
    ):
        raise PushRefused("not_found", f"no round {round_no}")


def rounds(conn: PgConnection) -> list[dict[str, Any]]:
    now = datetime.now(UTC)
    out = []
    for rnd, method, minutes, started in conn.execute(
        "SELECT round_no, method, minutes, started_at FROM league_rounds ORDER BY round_no"
    ):
        left = None
        if started is not None:
            left = max(0, int(minutes * 60 - (now - started).total_seconds()))
        out.append(
            {
                "round": rnd,
                "method": method,
                "minutes": minutes,
                "started_at": started.isoformat() if started else None,
                "seconds_left": left,
            }
        )
    return out


def pairings(conn: PgConnection, round_no: int | None = None) -> list[dict[str, Any]]:
    names = {p["id"]: p["name"] for p in players(conn)}
    sql = (
        "SELECT p.round_no, p.table_no, p.player1, p.player2, p.game_id, r.winner, r.how FROM league_pairings p "
        "LEFT JOIN league_results r ON r.game_id = p.game_id"
    )
    params: tuple[Any, ...] = ()
    if round_no is not None:
        sql += " WHERE p.round_no = %s"
        params = (round_no,)
    out = []
    for rnd, table, p1, p2, game_id, winner, how in conn.execute(
        sql + " ORDER BY p.round_no, p.table_no", params
    ):
        out.append(
            {
                "round": rnd,
                "table": table,
                "player1": names.get(p1),
                "player2": names.get(p2),
                "game_id": game_id,
                "winner": {"p1": names.get(p1), "p2": names.get(p2)}.get(winner),
                "how": how,
            }
        )
    return out


# -- the tables --------------------------------------------------------------------------------------------
def tables(conn: PgConnection) -> list[dict[str, Any]]:
    """Each table's latest game: live state (turn, phase, terrains) and its result if it ended."""
    out = []
    for (
        table,
        game_id,
        seq,
        turn,
        phase,
        step,
        marching,
        plist,
        terrains,
        over,
        updated,
        winner_name,
        how,
        reason,
    ) in conn.execute(
        "SELECT DISTINCT ON (l.table_no) l.table_no, l.game_id, l.seq, l.turn, l.phase, l.step, l.marching, "
        "l.players, l.terrains, l.over, l.updated_at, r.winner_name, r.how, r.reason FROM league_live l "
        "LEFT JOIN league_results r ON r.game_id = l.game_id ORDER BY l.table_no, l.updated_at DESC"
    ):
        out.append(
            {
                "table": table,
                "game_id": game_id,
                "seq": seq,
                "turn": turn,
                "phase": phase,
                "step": step,
                "marching": marching,
                "players": plist,
                "terrains": terrains,
                "over": over,
                "updated_at": updated.isoformat(),
                "winner": winner_name,
                "how": how,
                "reason": reason,
            }
        )
    out.sort(key=lambda t: (len(t["table"]), t["table"]))
    return out


def results(conn: PgConnection) -> list[dict[str, Any]]:
    return [
        {
            "game_id": g,
            "table": t,
            "winner": w,
            "how": h,
            "reason": r,
            "turn": turn,
            "started_at": s,
            "ended_at": e,
            "minutes": _minutes(s, e),
        }
        for g, t, w, h, r, turn, s, e in conn.execute(
            "SELECT game_id, table_no, winner_name, how, reason, turn, started_at, ended_at FROM league_results "
            "ORDER BY ended_at"
        )
    ]


# -- export ------------------------------------------------------------------------------------------------
def export_json(conn: PgConnection) -> dict[str, Any]:
    return {
        "format": "dragon-dice-companion/league/1",
        "exported_at": datetime.now(UTC).isoformat(),
        "tie_breaks": tie_breaks(conn),
        "scoring": DEFAULT_SCORING,
        "players": players(conn),
        "rounds": rounds(conn),
        "pairings": pairings(conn),
        "results": results(conn),
        "standings": current_standings(conn),
    }


def export_csv(conn: PgConnection) -> str:
    """The standings as CSV (one row per player, the tie-break columns in the organizer's order)."""
    tbs = tie_breaks(conn)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["rank", "player", "force", "points", "wins", "losses", "byes", *tbs])
    for r in current_standings(conn):
        w.writerow(
            [
                r["rank"],
                r["name"],
                r["force"],
                r["points"],
                r["wins"],
                r["losses"],
                r["byes"],
                *[r[t] for t in tbs],
            ]
        )
    return buf.getvalue()


def _first(row: tuple[Any, ...] | None) -> Any:
    """The first column of a row a query always returns (an aggregate, an INSERT ... RETURNING)."""
    assert row is not None, "this query always returns a row"
    return row[0]


def _int(value: object, what: str) -> int:
    try:
        if isinstance(value, bool) or not isinstance(value, int | float | str):  # JSON numbers and text only
            raise ValueError
        return int(value)
    except (TypeError, ValueError):
        raise PushRefused("malformed", f"{what} must be a whole number, not {value!r}") from None


__all__ = [
    "TIE_BREAKS",
    "add_player",
    "current_standings",
    "drop_player",
    "export_csv",
    "export_json",
    "new_round",
    "pairings",
    "players",
    "rounds",
    "set_tie_breaks",
    "start_clock",
    "tables",
]
