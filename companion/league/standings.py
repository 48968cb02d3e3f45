"""Standings: points per game and the tie-breaks the organizer picks, in the order picked.

Pure: players and finished games in, ranked rows out.  A game is ``{"p1": id, "p2": id or None (a
bye), "winner": id or None, "how": "capture"|"elimination"|"other", "minutes": float}``.

Tie-breaks (each higher is better unless said):

* ``buchholz``: the sum of the points of every opponent met (strength of schedule);
* ``wins``: games won;
* ``capture_wins``, ``elimination_wins``: games won by capturing a second terrain / by eliminating;
* ``fastest``: the mean minutes of the games won (lower is better; players with no win rank last).

Players whose whole key is equal share a rank.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

TIE_BREAKS = ("buchholz", "wins", "capture_wins", "elimination_wins", "fastest")
DEFAULT_SCORING = {"win": 3, "loss": 0, "bye": 3}


def check_tie_breaks(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise ValueError("tie-breaks are a list of names")
    unknown = [t for t in value if t not in TIE_BREAKS]
    if unknown:
        raise ValueError(f"unknown tie-break {unknown[0]!r}; known: {', '.join(TIE_BREAKS)}")
    if len(set(value)) != len(value):
        raise ValueError("a tie-break is listed twice")
    return list(value)


def standings(
    players: list[dict[str, Any]],
    games: list[dict[str, Any]],
    tie_breaks: list[str],
    scoring: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    scoring = {**DEFAULT_SCORING, **(scoring or {})}
    tie_breaks = check_tie_breaks(tie_breaks)
    pts: dict[str, Any] = defaultdict(int)
    rec: dict[str, dict[str, Any]] = {
        p["id"]: {
            "wins": 0,
            "losses": 0,
            "byes": 0,
            "played": 0,
            "capture_wins": 0,
            "elimination_wins": 0,
            "win_minutes": [],
            "opponents": [],
        }
        for p in players
    }
    for g in games:
        a, b, w = g["p1"], g.get("p2"), g.get("winner")
        if a not in rec or (b is not None and b not in rec):
            continue
        if b is None:
            rec[a]["byes"] += 1
            pts[a] += scoring["bye"]
            continue
        if w not in (a, b):
            continue  # not finished
        loser = b if w == a else a
        for me, other in ((a, b), (b, a)):
            rec[me]["played"] += 1
            rec[me]["opponents"].append(other)
        rec[w]["wins"] += 1
        rec[loser]["losses"] += 1
        pts[w] += scoring["win"]
        pts[loser] += scoring["loss"]
        if g.get("how") == "capture":
            rec[w]["capture_wins"] += 1
        elif g.get("how") == "elimination":
            rec[w]["elimination_wins"] += 1
        if g.get("minutes") is not None:
            rec[w]["win_minutes"].append(float(g["minutes"]))
    rows = []
    for p in players:
        r = rec[p["id"]]
        row = {
            "player_id": p["id"],
            "name": p["name"],
            "force": p.get("force", ""),
            "points": pts[p["id"]],
            "wins": r["wins"],
            "losses": r["losses"],
            "byes": r["byes"],
            "played": r["played"],
            "buchholz": sum(pts[o] for o in r["opponents"]),
            "capture_wins": r["capture_wins"],
            "elimination_wins": r["elimination_wins"],
            "fastest": (sum(r["win_minutes"]) / len(r["win_minutes"])) if r["win_minutes"] else None,
        }
        rows.append(row)

    def key(row: dict[str, Any]) -> tuple[Any, ...]:
        k = [-row["points"]]
        for t in tie_breaks:
            if t == "fastest":
                k.append(row["fastest"] if row["fastest"] is not None else float("inf"))
            else:
                k.append(-row[t])
        return tuple(k)

    rows.sort(key=lambda r: (key(r), r["name"]))
    for i, row in enumerate(rows):
        row["rank"] = rows[i - 1]["rank"] if i and key(rows[i - 1]) == key(row) else i + 1
    return rows
