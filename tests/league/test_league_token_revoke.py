"""Revoking tokens: the organizer revokes a table's or a judge's token (``companion league token
revoke``, the API, or the organizer's page) and the league server refuses it from the very next request;
bad revocations are refused with a clear error and change nothing."""

from __future__ import annotations

import random

import pytest
from league_helpers import SETUP, LeagueServer, call, play

from companion.cli import main as cli_main
from companion.league.outbox import HttpTransport
from companion.league.push import PushRefused, issue_token, list_tokens
from companion.session import GameSession
from companion.session.pg_store import connect


def _events(s: GameSession) -> list[dict]:
    return [{k: e[k] for k in ("seq", "type", "player", "action", "log", "at", "by")} for e in s.events()]


@pytest.fixture
def league(pg_dsn):
    conn = connect(pg_dsn)
    server = LeagueServer(pg_dsn)
    yield server.url, pg_dsn, conn
    server.close()
    conn.close()


def test_a_revoked_table_token_is_refused_at_the_next_push(league, tmp_path, capsys):
    url, dsn, conn = league
    t7 = issue_token(conn, "table", "7", "table 7 laptop")
    other = issue_token(conn, "table", "8")
    s = GameSession.create(tmp_path / "g.sqlite", SETUP)
    play(s, random.Random(3), 4)
    transport = HttpTransport(url, t7)
    assert transport.push({"game_id": s.game_id, "events": _events(s)[:2]})["acked"] == 2
    # the organizer revokes every live token of table 7 from the command line
    assert cli_main(["league", "token", "revoke", "--dsn", dsn, "--table", "7"]) == 0
    revoked = capsys.readouterr().out.split()
    assert revoked[0] == "revoked" and len(revoked) == 2
    with pytest.raises(PushRefused) as refused:  # the very next push, on the same running server
        transport.push({"game_id": s.game_id, "events": _events(s)})
    assert refused.value.code == "forbidden" and "revoked at" in refused.value.message
    assert conn.execute("SELECT last_seq FROM games WHERE game_id = %s", (s.game_id,)).fetchone()[0] == 2
    # table 8 is untouched; a new token for table 7 pushes the rest
    status, body = call(url, "/league/api/overview", other)  # still known: only its role is wrong here
    assert status == 403 and "yours is a table token" in body["message"]
    assert HttpTransport(url, issue_token(conn, "table", "7")).push(
        {"game_id": s.game_id, "events": _events(s)}
    )["acked"] == len(s.events())
    s.close()
    # the list shows the revoked token with when, never the token itself
    assert cli_main(["league", "token", "list", "--dsn", dsn]) == 0
    listed = capsys.readouterr().out
    assert f"{revoked[1]}  table     7      issued" in listed and "REVOKED" in listed and t7 not in listed


def test_the_organizer_revokes_a_judge_by_id_over_the_api_and_the_page(league):
    url, _, conn = league
    boss = issue_token(conn, "organizer")
    judges = [issue_token(conn, "judge", label=f"judge {i}") for i in range(2)]
    for j in judges:
        assert call(url, "/league/api/overview", j)[0] == 200
    ids = {t["label"]: t["id"] for t in call(url, "/league/api/tokens", boss)[1]["tokens"]}
    status, body = call(url, "/league/api/tokens/revoke", boss, body={"id": ids["judge 0"]})
    assert (status, body) == (200, {"revoked": [ids["judge 0"]]})
    status, body = call(url, "/league/api/overview", judges[0])
    assert status == 403 and "revoked at" in body["message"]
    assert call(url, "/league/api/overview", judges[1])[0] == 200
    # the organizer's page lists the tokens; its Revoke button (a form post) revokes judge 1
    status, page = call(url, f"/league/?token={boss}")
    assert status == 200 and f'name="id" value="{ids["judge 1"]}"' in page
    status, _ = call(url, "/league/api/tokens/revoke", form={"token": boss, "id": ids["judge 1"]})
    assert status == 303
    assert call(url, "/league/api/overview", judges[1])[0] == 403
    page = call(url, f"/league/?token={boss}")[1]
    assert f'name="id" value="{ids["judge 1"]}"' not in page and page.count("revoked 20") == 2


def test_bad_revocations_are_refused_and_change_nothing(league):
    url, dsn, conn = league
    boss = issue_token(conn, "organizer")
    table = issue_token(conn, "table", "3")
    before = list_tokens(conn)
    for body, status, error, words in [
        ({}, 400, "malformed", "exactly one"),
        ({"id": "abc", "table": "3"}, 400, "malformed", "exactly one"),
        ({"id": "not-hex-here"}, 400, "malformed", "12 hex digits"),
        ({"id": "0" * 12}, 404, "not_found", "no live token"),
        ({"table": "99"}, 404, "not_found", "no live token for table 99"),
        ({"table": "bad label!"}, 400, "malformed", "table label"),
    ]:
        got = call(url, "/league/api/tokens/revoke", boss, body=body)
        assert got[0] == status and got[1]["error"] == error and words in got[1]["message"], (body, got)
    # a table (or judge) may not revoke anything, not even its own token
    got = call(url, "/league/api/tokens/revoke", table, body={"table": "3"})
    assert got[0] == 403 and "organizer" in got[1]["message"]
    assert list_tokens(conn) == before
    assert cli_main(["league", "token", "revoke", "--dsn", dsn, "--id", "zz"]) == 2
