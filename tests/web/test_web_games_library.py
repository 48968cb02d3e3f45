"""The table's games on a real waitress server with a second client (a paired tablet): only the host
starts, resumes or ends a game; a tablet asks and the host confirms or declines; the library lists
every game and survives a restart; switching games keeps the tablets paired."""

from __future__ import annotations

import socket
import time

import pytest
from web_helpers import call_json, on_redrawn_element

HOST = "library-test-host-token"


class Client:
    """One device at the table, talking HTTP to the server (its own connections, its own token)."""

    def __init__(self, base: str, token: str | None = None):
        self.base, self.token = base, token

    def call(self, method: str, path: str, body=None) -> tuple[int, dict]:
        return call_json(self.base, method, path, body, self.token, timeout=15)


@pytest.fixture
def table(waitress_table):
    """Start (and restart) a real waitress server on tmp_path/table.sqlite."""
    return lambda: waitress_table(HOST)[1]


def pair_tablet(srv, host: Client, name: str = "kitchen tablet") -> Client:
    code = host.call("GET", "/api/pairing")[1]["code"]
    status, body = Client(srv.base_url).call("POST", "/api/pair", {"code": code, "name": name})
    assert status == 200, body
    return Client(srv.base_url, body["token"])


def roll(c: Client, seed: int) -> tuple[int, dict]:
    return c.call("POST", "/api/decisions", {"action": {"type": "roll_for_me", "seed": seed}})


def test_host_only_switches_tablets_ask_and_the_library_keeps_every_game(table):
    srv = table()
    host = Client(srv.base_url, HOST)
    status, first = host.call("POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True})
    assert status == 201
    a = first["game_id"]
    assert roll(host, 1)[0] == 200
    tablet = pair_tablet(srv, host)

    # a tablet cannot replace the running game ...
    status, body = tablet.call("POST", "/api/games", {"players": ["Cy", "Di"], "quick": True})
    assert status == 403 and body["error"] == "forbidden"
    assert host.call("GET", "/api/state")[1]["game_id"] == a
    # ... it asks; the request waits for the host, and every page can see it
    status, body = tablet.call(
        "POST",
        "/api/games/requests",
        {"kind": "new", "game": {"players": ["Cy", "Di"], "quick": True, "edition": "r96"}},
    )
    assert status == 201 and body["request"]["status"] == "pending"
    rid = body["request"]["id"]
    listed = Client(srv.base_url).call("GET", "/api/games")[1]
    assert [(r["id"], r["kind"], r["asked_by"]) for r in listed["requests"]] == [
        (rid, "new", "kitchen tablet")
    ]
    assert tablet.call("POST", f"/api/games/requests/{rid}/confirm", {})[0] == 403, "only the host confirms"

    # the host confirms: the new game is current and the tablet is still paired (with the table)
    status, body = host.call("POST", f"/api/games/requests/{rid}/confirm", {})
    assert status == 200 and body["request"]["status"] == "confirmed"
    b = body["game_id"]
    assert b != a and body["request"]["result_game_id"] == b
    st = tablet.call("GET", "/api/state")[1]
    assert st["game_id"] == b and st["role"] == "tablet" and st["game_status"] == "in_progress"
    assert [p["name"] for p in st["state"]["players"]] == ["Cy", "Di"]
    assert host.call("POST", f"/api/games/requests/{rid}/decline", {})[1]["error"] == "request_decided"

    # the library: both games, newest first, with players, edition, dates and state
    games = {g["game_id"]: g for g in tablet.call("GET", "/api/games")[1]["games"]}
    assert set(games) == {a, b}
    assert games[a]["players"] == ["Ann", "Bob"] and games[a]["edition"] == "v4"
    assert games[a]["status"] == "in_progress" and games[a]["last_seq"] == 2 and not games[a]["current"]
    assert games[b]["edition"] == "r96" and games[b]["current"] and games[b]["created_at"]

    # the host resumes the first game where it was; the tablet plays on in it
    status, body = host.call("POST", f"/api/games/{a}/resume", {})
    assert status == 200 and body["seq"] == 2
    st = tablet.call("GET", "/api/state")[1]
    assert st["game_id"] == a and st["seq"] == 2 and st["role"] == "tablet"
    status, body = (
        roll(tablet, 2)
        if st["pending"]["kind"] == "roll"
        else tablet.call(
            "POST",
            "/api/decisions",
            {"action": {"type": "choose", "choice": st["pending"]["choices"][0]["value"]}},
        )
    )
    assert status == 200

    # the host ends it: it stays on screen, read only, until resumed
    status, _ = host.call("POST", f"/api/games/{a}/end", {})
    assert status == 200
    st = tablet.call("GET", "/api/state")[1]
    assert st["game_status"] == "ended"
    seq = st["seq"]
    status, body = tablet.call("POST", "/api/undo", {"n": 1})
    assert status == 409 and body["error"] == "game_ended"
    assert tablet.call("GET", "/api/state")[1]["seq"] == seq, "a refused change changes nothing"
    games = {g["game_id"]: g for g in host.call("GET", "/api/games")[1]["games"]}
    assert games[a]["status"] == "ended" and games[a]["ended_by"] == "host"
    assert tablet.call("POST", f"/api/games/{a}/resume", {})[0] == 403, "only the host resumes"
    assert host.call("POST", f"/api/games/{a}/resume", {})[0] == 200
    assert tablet.call("POST", "/api/undo", {"n": 1})[0] == 200


def test_declined_and_bad_requests_change_nothing(table):
    srv = table()
    host = Client(srv.base_url, HOST)
    a = host.call("POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True})[1]["game_id"]
    tablet = pair_tablet(srv, host)
    rid = tablet.call("POST", "/api/games/requests", {"kind": "end", "game_id": a})[1]["request"]["id"]
    status, body = host.call("POST", f"/api/games/requests/{rid}/decline", {})
    assert status == 200 and body["request"]["status"] == "declined"
    assert host.call("GET", "/api/state")[1]["game_status"] == "in_progress"
    assert host.call("GET", "/api/games")[1]["requests"] == []

    status, body = tablet.call("POST", "/api/games/requests", {"kind": "new", "game": {"players": ["Solo"]}})
    assert status == 400 and body["field"] == "game.players", "an illegal set-up is refused when asked"
    status, body = tablet.call(
        "POST", "/api/games/requests", {"kind": "new", "game": {"players": ["A", "B"], "edition": "v9"}}
    )
    assert status == 400 and body["field"] == "game.edition"
    status, body = tablet.call("POST", "/api/games/requests", {"kind": "resume", "game_id": "nope"})
    assert status == 404 and body["error"] == "no_such_game"
    status, body = Client(srv.base_url).call("POST", "/api/games/requests", {"kind": "end", "game_id": a})
    assert status == 401, "an unpaired page cannot ask"
    assert host.call("POST", "/api/games/nope/resume", {})[0] == 404
    assert host.call("POST", "/api/games/requests/999/confirm", {})[1]["error"] == "no_such_request"
    huge = "9" * 25  # past SQLite's integers: no such request, not a 500
    for verb in ("confirm", "decline"):
        assert host.call("POST", f"/api/games/requests/{huge}/{verb}", {})[1]["error"] == "no_such_request"
    assert host.call("GET", "/api/games")[1]["requests"] == []
    assert [g["game_id"] for g in host.call("GET", "/api/games")[1]["games"]] == [a]


def test_the_library_and_the_current_game_survive_a_restart(table, tmp_path):
    srv = table()
    host = Client(srv.base_url, HOST)
    a = host.call("POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True})[1]["game_id"]
    roll(host, 3)
    tablet = pair_tablet(srv, host)
    b = host.call("POST", "/api/games", {"players": ["Cy", "Di"], "quick": True})[1]["game_id"]
    rid = tablet.call("POST", "/api/games/requests", {"kind": "resume", "game_id": a})[1]["request"]["id"]
    host.call("POST", f"/api/games/{b}/end", {})

    srv = table()  # a restart: the resumed game is not the table file's first game
    host = Client(srv.base_url, HOST)
    tablet = Client(srv.base_url, tablet.token)
    listed = host.call("GET", "/api/games")[1]
    assert listed["current"] == b and listed["status"] == "ended"
    assert [r["id"] for r in listed["requests"]] == [rid], "a waiting request survives the restart"
    assert host.call("POST", f"/api/games/requests/{rid}/confirm", {})[0] == 200
    st = tablet.call("GET", "/api/state")[1]
    assert st["game_id"] == a and st["seq"] == 2 and st["role"] == "tablet"
    srv = table()
    assert Client(srv.base_url).call("GET", "/api/state")[1]["game_id"] == a
    statuses = {g["game_id"]: g["status"] for g in Client(srv.base_url).call("GET", "/api/games")[1]["games"]}
    assert statuses == {a: "in_progress", b: "ended"}


def test_game_files_from_before_the_library_are_found(tmp_path):
    """Games kept beside the table file by older versions (``STEM.GAMEID.SUFFIX``) are listed and can
    be resumed; the table file's game stays current."""
    from companion.session import GameSession
    from web import create_app
    from web.play import build_setup

    old = GameSession.create(
        tmp_path / "table.oldgame.sqlite", build_setup({"players": ["Ed", "Flo"], "quick": True})
    )
    old_id = old.game_id
    old.close()
    cur = GameSession.create(
        tmp_path / "table.sqlite", build_setup({"players": ["Gus", "Hal"], "quick": True})
    )
    cur_id = cur.game_id
    cur.close()
    (tmp_path / "table.notes.sqlite").write_text("not a game")  # left alone
    app = create_app(
        {
            "DB_PATH": str(tmp_path / "table.sqlite"),
            "HOST_TOKEN": HOST,
            "START_SOURCES": False,
            "RULES_INDEX": str(tmp_path / "none.sqlite"),
        }
    )
    client = app.test_client()
    listed = client.get("/api/games").json
    assert listed["current"] == cur_id
    assert {g["game_id"]: g["players"] for g in listed["games"]} == {
        old_id: ["Ed", "Flo"],
        cur_id: ["Gus", "Hal"],
    }
    assert (
        client.post(f"/api/games/{old_id}/resume", json={}, headers={"X-Companion-Token": HOST}).status_code
        == 200
    )
    assert client.get("/api/state").json["game_id"] == old_id
    assert (tmp_path / "table.notes.sqlite").read_text() == "not a game"


def test_a_switch_resets_the_tablets_live_stream(table):
    srv = table()
    host = Client(srv.base_url, HOST)
    a = host.call("POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True})[1]["game_id"]
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    s.sendall(f"GET /api/events?since={a}:1 HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    time.sleep(0.3)
    b = host.call("POST", "/api/games", {"players": ["Cy", "Di"], "quick": True})[1]["game_id"]
    buf, deadline = b"", time.monotonic() + 10
    while f"id: {b}:1".encode() not in buf and time.monotonic() < deadline:
        buf += s.recv(65536)
    s.close()
    assert b"event: reset" in buf and f"id: {b}:1".encode() in buf


# -- the page, in real Chromium ---------------------------------------------------------------------

SHOTS = __import__("pathlib").Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


def page_at(browser, url: str, viewport: dict):
    ctx = browser.new_context(viewport=viewport)
    ctx.set_default_timeout(90_000)  # a loaded 2-core machine can be slow
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    return page


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    # the games card is drawn anew on each live update (the request, the switch): look it up again
    on_redrawn_element(page.locator("#games-card").scroll_into_view_if_needed)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.mark.browser
def test_games_panel_tablet_asks_host_confirms_resumes_and_ends(browser, serve):
    server = serve()
    host_token = server.host_url.split("token=")[1]
    host_api = Client(server.url, host_token)
    a = host_api.call("POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True})[1]["game_id"]
    code = host_api.call("GET", "/api/pairing")[1]["code"]

    host = page_at(browser, server.host_url.replace("/?", "/new?"), {"width": 1024, "height": 768})
    host.wait_for_selector(f"#game-list li[data-game='{a}'].current")
    tablet = page_at(browser, f"{server.url}/new#pair={code}", {"width": 390, "height": 844})
    tablet.wait_for_selector("#role:has-text('paired')")
    tablet.wait_for_selector("#quick-start:has-text('Ask the host')")
    tablet.fill("#view-new input >> nth=0", "Cy")
    tablet.fill("#view-new input >> nth=1", "Di")
    tablet.click("#quick-start")  # a tablet asks; nothing changes yet
    host.wait_for_selector("#game-requests li:has-text('Cy vs Di')")
    assert Client(server.url).call("GET", "/api/state")[1]["game_id"] == a
    shot(host, "games-host-request")
    shot(tablet, "games-tablet-asked")

    host.click("#game-requests li >> text=Confirm")
    host.wait_for_selector("#game-list li.current:has-text('Cy vs Di')")
    b = Client(server.url).call("GET", "/api/state")[1]["game_id"]
    assert b != a
    tablet.wait_for_selector("#game-list li.current:has-text('Cy vs Di')")
    assert tablet.inner_text("#role") == "paired", "the tablet stays paired when the host switches games"

    host.click(f"[data-resume='{a}']")
    host.wait_for_selector(f"#game-list li[data-game='{a}'].current")
    assert Client(server.url).call("GET", "/api/state")[1]["game_id"] == a
    host.click(f"[data-end='{a}']")
    host.wait_for_selector("#game-ended-note")
    tablet.wait_for_selector(f"#game-list li[data-game='{a}'][data-status='ended']")
    tablet.wait_for_selector("#ended-prompt")  # the prompt says so instead of asking for a decision
    assert tablet.is_visible(f"[data-ask-resume='{a}']")
    shot(host, "games-host-library")
    shot(tablet, "games-tablet-library")
    assert host.errors == [] and tablet.errors == []


def test_the_library_line_follows_each_action_and_undo_without_reading_the_log(tmp_path, monkeypatch):
    """After every action and undo the current game's library line (last played, last seq, over, winner)
    is what a full summary of the game says, though only the event just written is used for it."""
    from companion.session.library import summarize
    from web import create_app

    app = create_app(
        {
            "DB_PATH": str(tmp_path / "t.sqlite"),
            "HOST_TOKEN": HOST,
            "START_SOURCES": False,
            "RULES_INDEX": str(tmp_path / "no-index.sqlite"),
        }
    )
    client, head = app.test_client(), {"X-Companion-Token": HOST}
    assert (
        client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True}, headers=head).status_code
        < 300
    )
    store = app.extensions["game_store"]
    fields = ("last_played_at", "last_seq", "winner")

    def line() -> dict:
        row = next(g for g in store.games() if g["game_id"] == store.game_id)
        return {**{k: row[k] for k in fields}, "over": row["status"] == "over"}

    def summary() -> dict:
        s = summarize(store.session)
        return {**{k: s[k] for k in fields}, "over": s["over"]}

    reads = []
    original = type(store.session).events
    monkeypatch.setattr(
        type(store.session), "events", lambda self, since=0: reads.append(since) or original(self, since)
    )
    for seed in range(6):
        pending = client.get("/api/state").json["pending"]
        action = (
            {"type": "roll_for_me", "seed": seed}
            if pending["kind"] == "roll"
            else {"type": "choose", "choice": pending["choices"][0]["value"]}
        )
        r = client.post("/api/decisions", json={"action": action}, headers=head)
        assert r.status_code == 200, r.json
    assert 0 not in reads  # no action read the whole log again
    monkeypatch.undo()
    assert line() == summary()
    assert client.post("/api/undo", json={"n": 1}, headers=head).status_code == 200
    want = summary()
    assert line() == want and want["last_seq"] == store.session.events()[-1]["seq"]
