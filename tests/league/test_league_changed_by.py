"""Who changed what: every event records who made it (the host, a paired tablet by name, with the
roll's source), the league keeps it as part of the event, and the judge's view shows it; replay never
reads it, and a log written before events recorded it still replays and pushes."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest
from league_helpers import (
    SETUP,
    LeagueServer,
    call,
    league_log,
    local_log,
    paired_league_table,
    play,
    wait_for,
)

from companion.league.outbox import Outbox, PgTransport
from companion.league.push import PushRefused, accept_push, issue_token
from companion.rules.core.errors import IllegalAction
from companion.session import GameSession
from companion.session.game_session import replay
from companion.session.pg_store import connect


@pytest.fixture
def league(pg_dsn):
    conn = connect(pg_dsn)
    tok = {"judge": issue_token(conn, "judge"), "t7": issue_token(conn, "table", "7")}
    server = LeagueServer(pg_dsn)
    yield server.url, tok, pg_dsn, conn
    server.close()
    conn.close()


def test_a_paired_tablets_undo_shows_its_name_in_the_judges_view(league, tmp_path):
    url, tok, dsn, _ = league
    app, c, host, tablet, box = paired_league_table(tmp_path / "table7.sqlite", url, tok["t7"])
    try:
        # the host rolls (typed faces), the tablet answers the next decision, then takes it back
        pending = c.get("/api/state").json["pending"]
        assert pending["kind"] == "roll"
        r = c.post(
            "/api/rolls", json={"faces": {d["uid"]: d["faces"][0] for d in pending["dice"]}}, headers=host
        )
        assert r.status_code == 200, r.json
        r = c.post("/api/decisions", json={"action": {"type": "roll_for_me", "seed": 3}}, headers=tablet)
        assert r.status_code == 200, r.json
        tablet_seq = r.json["seq"]
        assert c.post("/api/undo", json={}, headers=tablet).status_code == 200
        game_id = c.get("/api/state").json["game_id"]
        assert wait_for(lambda: c.get("/api/state").json["league"]["waiting"] == 0), c.get("/api/state").json[
            "league"
        ]
    finally:
        box.stop()
    events = league_log(dsn, game_id)
    assert events == local_log(tmp_path / "table7.sqlite")
    by = {e["seq"]: e["by"] for e in GameSession.open(tmp_path / "table7.sqlite").events()}
    assert by[2] == {"role": "host", "source": "typed"}
    assert by[tablet_seq] == {"role": "tablet", "name": "kitchen tablet"}
    assert by[tablet_seq + 1] == {"role": "tablet", "name": "kitchen tablet"}  # the undo
    status, game = call(url, f"/league/api/games/{game_id}", tok["judge"])
    assert status == 200
    [undo] = game["undo_trail"]
    assert (
        undo["by"] == {"role": "tablet", "name": "kitchen tablet"} and undo["undid"][0]["seq"] == tablet_seq
    )
    assert undo["who"] == "tablet 'kitchen tablet'"
    assert next(e for e in game["events"] if e["seq"] == 2)["who"] == "host (typed)"
    status, page = call(url, f"/league/judge/{game_id}?token={tok['judge']}")
    assert status == 200
    trail = page.split("Undo trail", 1)[1].split("Every event", 1)[0]
    assert (
        f'event {tablet_seq + 1} at {undo["at"]}, by <span class="who">tablet &#39;kitchen tablet&#39;</span>'
        in trail
    )


def test_who_is_part_of_the_event_a_resent_event_must_match(league, tmp_path):
    _, tok, dsn, conn = league
    s = GameSession.create(tmp_path / "g.sqlite", SETUP)
    s.submit({"type": "roll_for_me", "seed": 1}, by={"role": "cli"})
    events = [{k: e[k] for k in ("seq", "type", "player", "action", "log", "at", "by")} for e in s.events()]
    s.close()
    assert accept_push(conn, tok["t7"], {"game_id": s.game_id, "events": events})["acked"] == 2
    # the same events again: nothing stored twice
    assert accept_push(conn, tok["t7"], {"game_id": s.game_id, "events": events})["stored"] == 0
    # the same event claiming another author is not the same event
    forged = [dict(e) for e in events]
    forged[1]["by"] = {"role": "host"}
    with pytest.raises(PushRefused) as refused:
        accept_push(conn, tok["t7"], {"game_id": s.game_id, "events": forged})
    assert refused.value.code == "conflict" and "seq 2 differs" in refused.value.message
    forged[1]["by"] = {"role": "intruder"}
    with pytest.raises(PushRefused) as refused:
        accept_push(conn, tok["t7"], {"game_id": s.game_id, "events": forged})
    assert refused.value.code == "malformed" and "by.role" in refused.value.message
    assert [e["by"] for e in league_log(dsn, s.game_id)] == [None, {"role": "cli"}]


def test_who_never_changes_replay_and_bad_who_changes_nothing(tmp_path):
    s = GameSession.create(tmp_path / "g.sqlite", SETUP)
    play(s, random.Random(4), 12)
    with pytest.raises(IllegalAction, match="by.role must be one of"):
        s.submit({"type": "roll_for_me", "seed": 1}, by={"role": "judge"})
    with pytest.raises(IllegalAction, match="by must be an object"):
        s.undo(1, by="the cat")
    events = s.events()
    assert len(events) == 13 and all(e["by"] is None for e in events)
    tagged = [dict(e, by={"role": "tablet", "name": "t", "source": "camera"}) for e in events]
    assert replay(tagged).state.to_dict() == replay(events).state.to_dict() == s.game.state.to_dict()
    s.close()


def test_a_log_written_before_who_was_recorded_replays_and_pushes(league, tmp_path):
    _, tok, dsn, _ = league
    new = GameSession.create(tmp_path / "new.sqlite", SETUP)
    play(new, random.Random(9), 15, undo_every=5)
    events = new.events()
    state = new.game.state.to_dict()
    new.close()
    # the same game in a file of the old schema (no changed_by column), as an older companion wrote it
    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, player TEXT,
            action TEXT NOT NULL, log TEXT NOT NULL DEFAULT '[]', undone INTEGER NOT NULL DEFAULT 0,
            at TEXT NOT NULL);""")
    db.execute(
        "INSERT INTO meta VALUES ('format', 'dragon-dice-companion/game-log/1'), ('game_id', 'oldgame')"
    )
    db.executemany(
        "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                e["seq"],
                e["type"],
                e["player"],
                json.dumps(e["action"]),
                json.dumps(e["log"]),
                int(e["undone"]),
                e["at"],
            )
            for e in events
        ],
    )
    db.commit()
    db.close()
    # the outbox reads it read-only (not migrated) and the league stores it with nobody recorded
    assert Outbox(old, PgTransport(dsn, tok["t7"])).sync()
    assert [e["by"] for e in league_log(dsn, "oldgame")] == [None] * len(events)
    # opened by the companion it replays to the same game, and new events record who made them
    s = GameSession.open(old)
    assert s.game.state.to_dict() == state
    assert all(e["by"] is None for e in s.events())
    if s.pending() is not None:
        s.undo(1, by={"role": "host"})
        assert s.events()[-1]["by"] == {"role": "host"}
    s.close()
    assert Outbox(old, PgTransport(dsn, tok["t7"])).sync()
    assert league_log(dsn, "oldgame") == local_log(old)
