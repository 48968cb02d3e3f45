"""The organizer's side: pairings, standings with chosen tie-breaks, results posted by the engine when a
pushed game ends, the round clock, export, tokens and roles, the judge's read-only view."""

from __future__ import annotations

import csv
import io
import itertools
import random

import pytest
from league_helpers import LeagueServer, call

from companion.league.outbox import HttpTransport, Outbox
from companion.league.pairing import round_robin, swiss
from companion.league.push import issue_token
from companion.league.standings import standings
from companion.rules.game.flow import random_answer
from companion.session import GameSession
from companion.session.pg_store import connect


# -- pairings and standings (pure) ----------------------------------------------------------------------
@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_round_robin_everybody_meets_everybody_once(n):
    players = list(range(n))
    rounds = n - 1 if n % 2 == 0 else n
    met = []
    byes = []
    for r in range(1, rounds + 1):
        pairs = round_robin(players, r)
        seated = [p for pair in pairs for p in pair if p is not None]
        assert sorted(seated) == players  # everybody once per round
        met += [frozenset(p) for p in pairs if p[1] is not None]
        byes += [p[0] for p in pairs if p[1] is None]
    assert sorted(met, key=sorted) == sorted(
        {frozenset(c) for c in itertools.combinations(players, 2)}, key=sorted
    )
    assert len(met) == len(set(met))
    assert sorted(byes) == (players if n % 2 else [])


def test_swiss_keeps_scores_together_and_avoids_rematches():
    players = ["a", "b", "c", "d", "e", "f"]
    points = {"a": 6, "b": 6, "c": 3, "d": 3, "e": 0, "f": 0}
    pairs = swiss(players, points, played=set(), byes=set())
    assert pairs == [("a", "b"), ("c", "d"), ("e", "f")]
    # a and b met already: the top pair is split with the least damage
    pairs = swiss(players, points, played={frozenset(("a", "b"))}, byes=set())
    assert ("a", "b") not in pairs and len(pairs) == 3
    assert sorted(p for pair in pairs for p in pair) == sorted(players)
    # odd count: the lowest-ranked player without a bye sits out
    pairs = swiss(players[:5], points, played=set(), byes={"e"})
    assert ("d", None) in pairs and all(None not in p for p in pairs if p[0] != "d")


def test_tie_breaks_in_the_organizers_order():
    players = [{"id": i, "name": n} for i, n in enumerate("ABCD")]
    games = [
        {"p1": 0, "p2": 1, "winner": 0, "how": "capture", "minutes": 50},
        {"p1": 2, "p2": 3, "winner": 2, "how": "elimination", "minutes": 30},
        {"p1": 0, "p2": 2, "winner": 2, "how": "elimination", "minutes": 40},
        {"p1": 1, "p2": 3, "winner": 1, "how": "capture", "minutes": 20},
        {"p1": 3, "p2": None},
    ]
    # points: A 3, B 3, C 6, D 3 (a bye); A met B and C (Buchholz 9), B met A and D (6), D met C and B (9)
    rows = standings(players, games, ["buchholz", "fastest"])
    assert [(r["name"], r["points"], r["buchholz"]) for r in rows] == [
        ("C", 6, 6),
        ("A", 3, 9),
        ("D", 3, 9),
        ("B", 3, 6),
    ]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]  # A won (50 min), D has no win: A first
    # with Buchholz alone A and D are equal and share the rank
    assert [r["rank"] for r in standings(players, games, ["buchholz"])] == [1, 2, 2, 4]
    # the organizer's order decides: B's win was the fastest of the three-point players
    assert [r["name"] for r in standings(players, games, ["fastest", "buchholz"])] == ["C", "B", "A", "D"]
    assert [r["name"] for r in standings(players, games, ["capture_wins", "elimination_wins"])][0] == "C"
    with pytest.raises(ValueError, match="unknown tie-break 'luck'"):
        standings(players, games, ["luck"])


# -- over HTTP ---------------------------------------------------------------------------------------------
@pytest.fixture
def league(pg_dsn):
    conn = connect(pg_dsn)
    tok = {
        "org": issue_token(conn, "organizer"),
        "judge": issue_token(conn, "judge"),
        "t1": issue_token(conn, "table", "1"),
        "t2": issue_token(conn, "table", "2"),
    }
    conn.close()
    server = LeagueServer(pg_dsn)
    yield server.url, tok, pg_dsn
    server.close()


def _finish_game(path, seed, undo_at=50):
    s = GameSession.create(
        path,
        {
            "force_size": 24,
            "players": [{"name": "P1", "species": "Dwarves"}, {"name": "P2", "species": "Goblins"}],
        },
    )
    rng = random.Random(seed)
    steps = 0
    while s.pending() is not None:
        s.submit(random_answer(s.game, rng))
        steps += 1
        if steps == undo_at:
            s.undo(1)
    state = s.state_dict()
    s.close()
    return state


def test_a_league_round_from_pairing_to_export(league, tmp_path):
    url, tok, dsn = league
    org = tok["org"]
    for name, force in [
        ("Ann", "Dwarves/Goblins 24"),
        ("Ben", "Coral Elves 24"),
        ("Cy", "Amazons"),
        ("Di", ""),
    ]:
        assert call(url, "/league/api/players", org, {"name": name, "force": force})[0] == 201
    # bad input: refused with a clear error, nothing changed
    assert call(url, "/league/api/players", org, {"name": "Ann"}) == (
        409,
        {"error": "conflict", "message": "a player named 'Ann' is already registered"},
    )
    assert call(url, "/league/api/players", org, {"name": ""})[1]["error"] == "malformed"
    assert call(url, "/league/api/players", tok["judge"], {"name": "Eve"})[0] == 403
    assert call(url, "/league/api/players", "forged", {"name": "Eve"})[0] == 403
    assert call(url, "/league/api/rounds", org, {"method": "knockout"})[1]["error"] == "malformed"
    assert call(url, "/league/api/tie-breaks", org, {"tie_breaks": ["luck"]})[1]["message"].startswith(
        "unknown tie-break 'luck'"
    )
    assert len(call(url, "/league/export.json", org)[1]["players"]) == 4

    status, rnd = call(url, "/league/api/rounds", org, {"method": "round_robin", "minutes": 45})
    assert status == 201 and rnd["round"] == 1 and [p["table"] for p in rnd["pairings"]] == ["1", "2"]
    assert call(url, "/league/api/rounds", org, {"method": "swiss"})[1]["message"].startswith(
        "round 1 still has 2 game(s) without a result"
    )
    assert call(url, "/league/api/rounds/1/start", org, {})[0] == 200
    overview = call(url, "/league/api/overview", tok["judge"])[1]
    assert 44 * 60 <= overview["rounds"][0]["seconds_left"] <= 45 * 60

    # both tables play their game to the end and push it
    ends = {}
    for table in ("1", "2"):
        folder = tmp_path / table
        folder.mkdir()
        ends[table] = _finish_game(folder / "table.sqlite", seed=int(table) + 2)
        box = Outbox(folder / "table.sqlite", HttpTransport(url, tok[f"t{table}"]))
        assert box.sync(), box.status()
    overview = call(url, "/league/api/overview", org)[1]
    live = {t["table"]: t for t in overview["tables"]}
    for table, end in ends.items():
        assert live[table]["over"] and live[table]["turn"] == end["turn"]
        assert live[table]["winner"] == next(p["name"] for p in end["players"] if p["id"] == end["winner"])
        assert live[table]["how"] in ("capture", "elimination")
        assert len(live[table]["terrains"]) == len(end["terrains"])
    # results reach the pairings (the table's first player is the pairing's first player) and standings
    pairs = call(url, "/league/export.json", org)[1]["pairings"]
    winners = sorted(p["winner"] for p in pairs)
    expected = sorted(p["player1"] if ends[p["table"]]["winner"] == "p1" else p["player2"] for p in pairs)
    assert winners == expected
    table = call(url, "/league/api/overview", org)[1]["standings"]
    assert sorted(r["points"] for r in table) == [0, 0, 3, 3]
    assert {r["name"] for r in table if r["points"] == 3} == set(winners)

    # tie-breaks set by the organizer show as CSV columns, in that order
    assert call(url, "/league/api/tie-breaks", org, {"tie_breaks": ["wins", "buchholz"]})[0] == 200
    status, text = call(url, "/league/export.csv", org)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["rank", "player", "force", "points", "wins", "losses", "byes", "wins", "buchholz"]
    assert len(rows) == 5 and {rows[1][1], rows[2][1]} == set(winners)

    # round 2 (Swiss): winners meet winners, nobody meets the same opponent again
    status, rnd2 = call(url, "/league/api/rounds", org, {"method": "swiss"})
    assert status == 201
    names = call(url, "/league/export.json", org)[1]["players"]
    by_id = {p["id"]: p["name"] for p in names}
    first = {frozenset((p["player1"], p["player2"])) for p in pairs}
    second = [frozenset((by_id[p["player1"]], by_id[p["player2"]])) for p in rnd2["pairings"]]
    assert frozenset(winners) in second and not first & set(second)

    # the organizer's page shows it all; a table token does not open it
    status, page = call(url, f"/league/?token={org}")
    assert status == 200 and "Round 2" in page and all(w in page for w in winners)
    assert call(url, f"/league/?token={tok['t1']}")[0] == 403


def test_judge_reads_any_game_with_explanations_and_the_undo_trail(league, tmp_path):
    url, tok, dsn = league
    path = tmp_path / "table.sqlite"
    _finish_game(path, seed=5, undo_at=30)
    assert Outbox(path, HttpTransport(url, tok["t2"])).sync()
    game_id = GameSession.open(path).game_id
    status, game = call(url, f"/league/api/games/{game_id}", tok["judge"])
    assert status == 200 and game["table"] == "2"
    rolls = [e for e in game["events"] if e["type"] == "roll"]
    assert rolls and any("V4.01c" in line for e in rolls for line in e["log"])  # step-by-step, with citations
    [undo] = game["undo_trail"]
    undone = undo["undid"][0]["seq"]
    assert next(e for e in game["events"] if e["seq"] == undone)["undone"]
    status, page = call(url, f"/league/judge/{game_id}?token={tok['judge']}")
    assert status == 200 and "Undo trail" in page and f"#{undone}" in page
    # read-only: the judge changes nothing, a table reads nothing
    assert call(url, "/league/api/rounds", tok["judge"], {"method": "swiss"})[0] == 403
    assert call(url, f"/league/api/games/{game_id}", tok["t2"])[0] == 403
    assert call(url, "/league/api/games/no-such-game", tok["judge"])[0] == 404
