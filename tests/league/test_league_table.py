"""A table joined to a league (``companion serve --league URL --table 7``): it plays on its local
SQLite file whatever the link does, ``/api/state`` says "connected / offline, N waiting", and once the
link is back the league holds the same log, event for event, for the old game and the new one."""

from __future__ import annotations

import pytest
from league_helpers import HOST, LeagueServer, Proxy, game_files, league_log, local_log, wait_for

from companion.league.push import issue_token
from companion.session.pg_store import connect
from web import create_app


def _tap(client, n):
    """Answer n decisions the way a tablet does: the first face of every die, the first choice."""
    for _ in range(n):
        pending = client.get("/api/state").json["pending"]
        if pending is None:
            return
        if pending["kind"] == "roll":
            body = {"faces": {d["uid"]: d["faces"][0] for d in pending["dice"]}}
            r = client.post("/api/rolls", json=body, headers={"X-Companion-Token": HOST})
        elif pending.get("choices"):
            r = client.post(
                "/api/decisions",
                json={
                    "action": {
                        "type": pending.get("answer", "choose"),
                        "choice": pending["choices"][0]["value"],
                    }
                },
                headers={"X-Companion-Token": HOST},
            )
        else:
            r = client.post(
                "/api/decisions",
                json={
                    "action": {
                        "type": pending["answer"],
                        pending["kind"] == "retreat" and "units" or "moves": []
                        if pending["kind"] == "retreat"
                        else {},
                    }
                },
                headers={"X-Companion-Token": HOST},
            )
        assert r.status_code in (200, 201), r.json


@pytest.fixture
def league(pg_dsn):
    conn = connect(pg_dsn)
    token = issue_token(conn, "table", "7")
    server = LeagueServer(pg_dsn)
    proxy = Proxy(server.port)
    yield pg_dsn, token, server, proxy
    proxy.close()
    server.close()
    conn.close()


def test_table_plays_offline_and_catches_up(league, tmp_path):
    dsn, token, server, proxy = league
    db = tmp_path / "table7.sqlite"
    app = create_app(
        {
            "DB_PATH": str(db),
            "HOST_TOKEN": HOST,
            "START_SOURCES": False,
            "LEAGUE_URL": f"http://127.0.0.1:{proxy.port}",
            "LEAGUE_TABLE": "7",
            "LEAGUE_TOKEN": token,
        }
    )
    box = app.extensions["league_outbox"]
    c = app.test_client()
    try:
        assert (
            c.post(
                "/api/games",
                json={"players": ["Ann", "Bob"], "quick": True, "force_size": 24},
                headers={"X-Companion-Token": HOST},
            ).status_code
            == 201
        )
        first_game = c.get("/api/state").json["game_id"]
        _tap(c, 6)
        assert wait_for(
            lambda: (
                c.get("/api/state").json["league"]["state"] == "connected"
                and c.get("/api/state").json["league"]["waiting"] == 0
            )
        )
        proxy.cut()
        _tap(c, 8)
        assert wait_for(lambda: c.get("/api/state").json["league"]["state"] == "offline")
        league_state = c.get("/api/state").json["league"]
        assert league_state["waiting"] > 0 and league_state["table"] == "7"
        seq = c.get("/api/state").json["seq"]
        # a new game while offline: the old file is renamed, both are pushed later
        assert (
            c.post(
                "/api/games",
                json={"players": ["Cid", "Dee"], "quick": True, "force_size": 24},
                headers={"X-Companion-Token": HOST},
            ).status_code
            == 201
        )
        _tap(c, 3)
        second_game = c.get("/api/state").json["game_id"]
        waiting = c.get("/api/state").json["league"]["waiting"]
        assert waiting >= 4
        proxy.restore()
        assert wait_for(lambda: c.get("/api/state").json["league"]["waiting"] == 0)
        assert c.get("/api/state").json["league"]["state"] == "connected"
        files = game_files(tmp_path)
        assert set(files) == {first_game, second_game}
        assert len(local_log(files[first_game])) == seq
        assert league_log(dsn, first_game) == local_log(files[first_game])
        assert league_log(dsn, second_game) == local_log(files[second_game])
    finally:
        box.stop()
