"""Who started a game: the ``create`` event records its author like every other event (the host, the
host confirming a tablet's request, ``companion game new``, a game on PostgreSQL), so the judge's view
names who started every new game; a log whose ``create`` recorded nobody still replays."""

from __future__ import annotations

import pytest
from league_helpers import HOST, SETUP, LeagueServer, call, league_log

from companion.cli import main as cli_main
from companion.league.outbox import Outbox, PgTransport
from companion.league.push import issue_token
from companion.session import GameSession
from companion.session.pg_store import connect, create_session
from companion.session.store import check_by
from web import create_app


@pytest.fixture
def league(pg_dsn):
    conn = connect(pg_dsn)
    tok = {"judge": issue_token(conn, "judge"), "t7": issue_token(conn, "table", "7")}
    server = LeagueServer(pg_dsn)
    yield server.url, tok, pg_dsn
    server.close()
    conn.close()


def test_the_host_and_a_confirmed_tablet_request_are_recorded_and_the_judge_sees_them(league, tmp_path):
    url, tok, dsn = league
    app = create_app({"DB_PATH": str(tmp_path / "table7.sqlite"), "HOST_TOKEN": HOST, "START_SOURCES": False})
    c = app.test_client()
    host = {"X-Companion-Token": HOST}
    r = c.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True, "force_size": 24}, headers=host)
    assert r.status_code == 201, r.json
    first = r.json["game_id"]
    code = c.get("/api/pairing", headers=host).json["code"]
    tablet = {
        "X-Companion-Token": c.post("/api/pair", json={"code": code, "name": "kitchen tablet"}).json["token"]
    }
    r = c.post(
        "/api/games/requests",
        json={"kind": "new", "game": {"players": ["Cy", "Di"], "quick": True}},
        headers=tablet,
    )
    assert r.status_code == 201, r.json
    r = c.post(f"/api/games/requests/{r.json['request']['id']}/confirm", json={}, headers=host)
    assert r.status_code == 200, r.json
    second = r.json["game_id"]
    assert second != first
    library = app.extensions["game_store"].library
    logs = {}
    for gid in (first, second):
        with GameSession.open(library.path_of(gid)) as s:
            logs[gid] = s.events()
    assert logs[first][0]["type"] == "create" and logs[first][0]["by"] == {"role": "host"}
    assert logs[second][0]["by"] == {"role": "host", "asked_by": "kitchen tablet"}
    # pushed to the league, the judge's view names who started each game, never "not recorded"
    for gid in (first, second):
        assert Outbox(library.path_of(gid), PgTransport(dsn, tok["t7"])).sync()
        assert league_log(dsn, gid)[0]["by"] == logs[gid][0]["by"]
    whos = {
        gid: call(url, f"/league/api/games/{gid}", tok["judge"])[1]["events"][0]["who"]
        for gid in (first, second)
    }
    assert whos == {first: "host", second: "host (asked by tablet 'kitchen tablet')"}


def test_cli_and_postgresql_games_record_who_started_them(pg_dsn, tmp_path):
    db = tmp_path / "cli.sqlite"
    assert cli_main(["game", "new", "--db", str(db)]) == 0
    with GameSession.open(db) as s:
        assert s.events()[0]["by"] == {"role": "cli"}
    s = create_session(pg_dsn, SETUP, table="7", by={"role": "host"})
    gid = s.game_id
    s.close()
    assert league_log(pg_dsn, gid)[0]["by"] == {"role": "host"}


def test_a_bad_author_of_a_new_game_is_refused_and_writes_nothing(tmp_path):
    with pytest.raises(ValueError, match="by.asked_by must be a name"):
        GameSession.create(tmp_path / "g.sqlite", SETUP, by={"role": "host", "asked_by": ""})
    assert not (tmp_path / "g.sqlite").exists()
    with pytest.raises(ValueError, match="by.role must be one of"):
        check_by({"role": "organizer"})
