"""What the league refuses, and that a refusal changes nothing; what it accepts twice, it stores once."""

from __future__ import annotations

import copy
import json
import random
import urllib.error
import urllib.request

import pytest
from league_helpers import SETUP, LeagueServer, league_log, local_log, play

from companion.league.outbox import HttpTransport, Outbox, PgTransport
from companion.league.push import PushRefused, accept_push, issue_token
from companion.session import GameSession
from companion.session.pg_store import connect


@pytest.fixture
def league(pg_dsn):
    conn = connect(pg_dsn)
    tokens = {
        "t7": issue_token(conn, "table", "7"),
        "t8": issue_token(conn, "table", "8"),
        "judge": issue_token(conn, "judge"),
        "org": issue_token(conn, "organizer"),
    }
    yield conn, tokens
    conn.close()


@pytest.fixture
def game(tmp_path):
    s = GameSession.create(tmp_path / "t7.sqlite", SETUP)
    play(s, random.Random(11), 40, undo_every=9)
    yield s, tmp_path / "t7.sqlite"
    s.close()


def _events(s):
    return [{k: e[k] for k in ("seq", "type", "player", "action", "log", "at")} for e in s.events()]


def _snapshot(conn):
    return (
        conn.execute("SELECT count(*) FROM events").fetchone()[0],
        conn.execute("SELECT count(*) FROM games").fetchone()[0],
        conn.execute("SELECT coalesce(sum(last_seq), 0) FROM games").fetchone()[0],
    )


def test_push_stores_once_and_is_idempotent(league, game, pg_dsn):
    conn, tok = league
    s, path = game
    events = _events(s)
    first = accept_push(conn, tok["t7"], {"game_id": s.game_id, "events": events[:10]})
    assert first == {"game_id": s.game_id, "acked": 10, "stored": 10}
    again = accept_push(conn, tok["t7"], {"game_id": s.game_id, "events": events[:15]})  # 5 new, 10 re-sent
    assert again["acked"] == 15 and again["stored"] == 5
    accept_push(conn, tok["t7"], {"game_id": s.game_id, "events": events})
    assert league_log(pg_dsn, s.game_id) == local_log(path)  # undone flags derived from the undo events
    assert conn.execute("SELECT table_no FROM games WHERE game_id = %s", (s.game_id,)).fetchone()[0] == "7"


@pytest.mark.parametrize(
    "case, code, words",
    [
        ("forged token", "forbidden", "unknown league token"),
        ("judge token", "forbidden", "needs a table token"),
        ("other table's game", "forbidden", "belongs to table 7"),
        ("gap", "gap", "leaves a gap"),
        ("gap inside the batch", "gap", "without gaps"),
        ("changed event", "conflict", "differs"),
        ("malformed action", "malformed", "action must be an object"),
        ("malformed seq", "malformed", "seq must be a positive integer"),
        ("no create first", "malformed", "event 1 of a game must be its create event"),
        ("illegal move", "illegal", "does not replay"),
        ("not a list", "malformed", "events must be a non-empty list"),
    ],
)
def test_bad_pushes_are_refused_and_change_nothing(league, game, case, code, words):
    conn, tok = league
    s, _ = game
    events = _events(s)
    accept_push(conn, tok["t7"], {"game_id": s.game_id, "events": events[:10]})
    before = _snapshot(conn)
    token, batch = tok["t7"], {"game_id": s.game_id, "events": copy.deepcopy(events[10:20])}
    if case == "forged token":
        token = "t7-" + "x" * 24
    elif case == "judge token":
        token = tok["judge"]
    elif case == "other table's game":
        token = tok["t8"]
    elif case == "gap":
        batch["events"] = batch["events"][1:]
    elif case == "gap inside the batch":
        del batch["events"][3]
    elif case == "changed event":
        batch["events"] = copy.deepcopy(events[5:12])
        batch["events"][2]["log"] = ["I won"]
    elif case == "malformed action":
        batch["events"][0]["action"] = "roll 6"
    elif case == "malformed seq":
        batch["events"][0]["seq"] = "eleven"
    elif case == "no create first":
        batch = {"game_id": "brand-new-game", "events": copy.deepcopy(events[1:4])}
        for i, e in enumerate(batch["events"]):
            e["seq"] = i + 1
    elif case == "illegal move":
        bad = next(i for i, e in enumerate(batch["events"]) if e["type"] == "choose")
        batch["events"][bad]["action"] = {"type": "choose", "choice": "surrender-everything"}
    elif case == "not a list":
        batch["events"] = {"seq": 11}
    with pytest.raises(PushRefused) as err:
        accept_push(conn, token, batch)
    assert err.value.code == code and words in err.value.message
    assert _snapshot(conn) == before


def test_http_push_refusals_are_clear_json(pg_dsn, league, game):
    conn, tok = league
    s, path = game
    server = LeagueServer(pg_dsn)
    try:

        def post(token, body, raw=None):
            req = urllib.request.Request(
                server.url + "/league/api/push",
                method="POST",
                data=raw if raw is not None else json.dumps(body).encode(),
                headers={"Content-Type": "application/json", "X-League-Token": token},
            )
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as exc:
                return exc.code, json.loads(exc.read())

        status, body = post("forged", {"game_id": s.game_id, "events": _events(s)[:3]})
        assert (status, body["error"]) == (403, "forbidden") and "unknown league token" in body["message"]
        status, body = post(tok["t7"], None, raw=b"{not json")
        assert (status, body["error"]) == (400, "malformed")
        status, body = post(tok["t7"], {"game_id": s.game_id, "events": _events(s)[2:5]})
        assert (status, body["error"]) == (409, "gap")
        assert _snapshot(conn)[0] == 0
        # the outbox over HTTP pushes everything, and a second run sends nothing new
        box = Outbox(path, HttpTransport(server.url, tok["t7"]), batch=7)
        assert box.sync() and box.status()["waiting"] == 0 and box.status()["state"] == "connected"
        assert league_log(pg_dsn, s.game_id) == local_log(path)
        assert box.push_once() == 0
        # a table token cannot read the organizer's views
        req = urllib.request.Request(
            server.url + "/league/api/overview", headers={"X-League-Token": tok["t7"]}
        )
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=5)
        assert err.value.code == 403
    finally:
        server.close()


def test_outbox_refused_push_shows_in_status(pg_dsn, league, game):
    conn, tok = league
    s, path = game
    accept_push(
        conn, tok["t8"], {"game_id": s.game_id, "events": _events(s)[:1]}
    )  # table 8 took this game id
    box = Outbox(path, PgTransport(pg_dsn, tok["t7"]))
    assert not box.sync()
    st = box.status()
    assert (
        st["state"] == "refused" and "belongs to table 8" in st["error"] and st["waiting"] == len(_events(s))
    )
