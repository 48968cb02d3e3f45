"""Each table's live state and its result, as the league keeps them (written inside an accepted push).

The summary is read off the rules engine's state after replaying the pushed events: turn, phase,
step, marching player, each player's name and whether eliminated, each terrain's name, face and
controller.  When the engine says the game is over, its result is posted: the winner and how the
engine says it was won (``capture``: a second terrain captured, V4.01c L11-14; ``elimination``: the
last surviving units; ``other`` keeps the engine's reason as written).  An undo that takes the
ending back withdraws the result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.session.pg_store import PgConnection


def how_won(reason: str) -> str:
    """``capture`` / ``elimination`` / ``other`` from the engine's win reason (companion/rules/game/flow.py
    ``_win``: "... captured a second terrain", "... has the last surviving units")."""
    text = (reason or "").lower()
    if "captured" in text or "capture" in text:
        return "capture"
    if "last surviving" in text or "eliminat" in text:
        return "elimination"
    return "other"


def summary(game: Any) -> dict[str, Any]:
    """What the organizer's page shows of one game, from the engine's state."""
    st = game.state.to_dict()
    players = [
        {"id": p.get("id"), "name": p.get("name"), "eliminated": bool(p.get("eliminated"))}
        for p in st.get("players") or []
        if isinstance(p, dict)
    ]
    terrains = [
        {
            "name": t.get("name"),
            "face": t.get("face"),
            "controller": t.get("controller"),
            "role": t.get("role"),
        }
        for t in st.get("terrains") or []
        if isinstance(t, dict)
    ]
    return {
        "turn": st.get("turn"),
        "phase": st.get("phase"),
        "step": st.get("step"),
        "marching": st.get("marching_player"),
        "players": players,
        "terrains": terrains,
        "over": bool(getattr(game, "over", False)),
        "winner": st.get("winner"),
        "win_reason": st.get("win_reason") or "",
    }


def post_live(
    conn: PgConnection,
    game_id: str,
    table: str | None,
    seq: int,
    game: Any,
    started_at: Callable[[], str],
    last_at: str,
) -> dict[str, Any]:
    """Upsert the game's live row; post (or withdraw) its result.  ``started_at``: a callable giving the
    create event's time (read only when a result is posted)."""
    from psycopg.types.json import Jsonb

    s = summary(game)
    conn.execute(
        "INSERT INTO league_live (game_id, table_no, seq, turn, phase, step, marching, players, terrains, over, "
        "updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now()) ON CONFLICT (game_id) DO UPDATE SET "
        "seq = excluded.seq, turn = excluded.turn, phase = excluded.phase, step = excluded.step, "
        "marching = excluded.marching, players = excluded.players, terrains = excluded.terrains, "
        "over = excluded.over, updated_at = now()",
        (
            game_id,
            table,
            seq,
            s["turn"],
            s["phase"],
            s["step"],
            s["marching"],
            Jsonb(s["players"]),
            Jsonb(s["terrains"]),
            s["over"],
        ),
    )
    if s["over"] and s["winner"]:
        name = next((p["name"] for p in s["players"] if p["id"] == s["winner"]), s["winner"])
        conn.execute(
            "INSERT INTO league_results (game_id, table_no, winner, winner_name, how, reason, turn, started_at, "
            "ended_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game_id) DO NOTHING",
            (
                game_id,
                table,
                s["winner"],
                name,
                how_won(s["win_reason"]),
                s["win_reason"],
                s["turn"],
                started_at(),
                last_at,
            ),
        )
        _link_pairing(conn, game_id, table)
    elif not s["over"]:
        conn.execute("DELETE FROM league_results WHERE game_id = %s", (game_id,))
        conn.execute("UPDATE league_pairings SET game_id = NULL WHERE game_id = %s", (game_id,))
    return s


def _link_pairing(conn: PgConnection, game_id: str, table: str | None) -> None:
    """A finished game at table T counts for the latest round's pairing at T that has no game yet."""
    conn.execute(
        "UPDATE league_pairings SET game_id = %s WHERE game_id IS NULL AND (round_no, table_no) = "
        "(SELECT max(round_no), %s FROM league_pairings WHERE table_no = %s) "
        "AND NOT EXISTS (SELECT 1 FROM league_pairings WHERE game_id = %s)",
        (game_id, table, table, game_id),
    )
