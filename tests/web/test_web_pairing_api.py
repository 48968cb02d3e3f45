"""Pairing and tokens through the API (Flask test client): guesses limited per client address, only
the host replaces the code and the host pages are told, the host token kept with the game file,
what a page with a stale token is told, and where no tablet can reach the server no QR code."""

from __future__ import annotations

import json

import pytest

from web.security import ADVICE, PAIRING_TRIES, GuessLimiter


def pair(client, code: str, addr: str):
    return client.post("/api/pair", json={"code": code, "name": "t"}, environ_base={"REMOTE_ADDR": addr})


def test_wrong_codes_are_limited_per_client_and_never_replace_the_code(app, client, game, host):
    code = client.get("/api/pairing", headers=host).json["code"]
    wrong = "22222A" if code != "22222A" else "22222B"
    answers = [pair(client, wrong, "10.0.0.66") for _ in range(PAIRING_TRIES + 3)]
    assert [r.status_code for r in answers] == [403] * PAIRING_TRIES + [429] * 3
    assert "0 more tries" in answers[PAIRING_TRIES - 1].json["message"]
    locked = answers[-1]
    assert locked.json["error"] == "too_many_tries" and locked.json["field"] == "code"
    assert 1 <= int(locked.headers["Retry-After"]) <= 60
    # locked out: even the right code is not looked at from that address until the window has passed
    assert pair(client, code, "10.0.0.66").status_code == 429
    # the code is still the host's code: another device pairs with it, the host page shows it
    assert client.get("/api/pairing", headers=host).json["code"] == code
    ok = pair(client, code, "10.0.0.7")
    assert ok.status_code == 200 and ok.json["role"] == "tablet"


def test_guess_limit_window_passes_and_a_success_forgets_the_tries():
    now = [1000.0]
    lim = GuessLimiter(tries=3, window=60, clock=lambda: now[0])
    assert [lim.attempt("a") for _ in range(3)] == [0, 0, 0] and lim.left("a") == 0
    assert lim.attempt("a") == pytest.approx(60) and lim.attempt("b") == 0
    now[0] += 30
    assert lim.attempt("a") == pytest.approx(30), "a refused try is not counted"
    now[0] += 30.5
    assert lim.attempt("a") == 0, "the window has passed"
    assert lim.left("a") == 2
    lim.succeeded("a")
    assert lim.left("a") == 3, "a right code clears the address's tries"


def test_parallel_guesses_cannot_slip_past_the_limit():
    import threading

    lim = GuessLimiter(tries=5, window=60)
    allowed = []
    start = threading.Barrier(40)

    def go():
        start.wait()
        allowed.append(lim.attempt("x") == 0)

    threads = [threading.Thread(target=go) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(allowed) == 5


def test_only_the_host_rotates_and_the_change_is_pushed(app, client, game, host):
    code = client.get("/api/pairing", headers=host).json["code"]
    tablet = {"X-Companion-Token": pair(client, code, "10.0.0.7").json["token"]}
    assert client.post("/api/pairing/rotate", json={}, headers=tablet).status_code == 403
    assert client.post("/api/pairing/rotate", json={}).status_code == 401
    rev = client.get("/api/state").json["pairing_rev"]
    store = app.extensions["game_store"]
    nid = store.last_notice_id()
    new = client.post("/api/pairing/rotate", json={}, headers=host).json
    assert new["code"] != code and new["rev"] == rev + 1
    notices = [n for n in store.notices_since(nid) if n["kind"] == "pairing"]
    assert notices and notices[-1]["data"] == {"rev": rev + 1}, "the live stream says the code changed"
    assert new["code"] not in json.dumps(notices), "the code itself never goes on the open stream"
    assert client.get("/api/state").json["pairing_rev"] == rev + 1
    body = client.get("/api/pairing", headers=host).json
    assert body["code"] == new["code"] and body["rev"] == rev + 1


def test_host_token_is_kept_with_the_game_file_and_rotatable(tmp_path, rules_index):
    from web import create_app

    db = str(tmp_path / "kept.sqlite")

    def start(**config):
        app = create_app({"DB_PATH": db, "START_SOURCES": False, "RULES_INDEX": str(rules_index), **config})
        app.extensions["game_store"].close()
        return app

    (tmp_path / "kept.sqlite.tablets").touch(mode=0o644)  # a file from before the token was kept there
    first = start()
    token = first.extensions["access"].host_token
    again = start()
    assert again.extensions["access"].host_token == token, "a restart keeps the host URL"
    assert again.config["BOOT_ID"] != first.config["BOOT_ID"], "a new boot id on each start"
    assert (tmp_path / "kept.sqlite.tablets").stat().st_mode & 0o077 == 0, "only the owner may read it"
    rotated = start(ROTATE_HOST_TOKEN=True)
    new = rotated.extensions["access"].host_token
    assert new != token
    assert start().extensions["access"].host_token == new, "the new token is kept in turn"
    c = rotated.test_client()
    c.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True}, headers={"X-Companion-Token": new})
    old = c.get("/api/state", headers={"X-Companion-Token": token}).json
    assert old["role"] == "viewer" and old["token_status"] == "old_host"
    assert "open the host URL printed by the server again" in old["token_advice"]
    r = c.post("/api/undo", json={}, headers={"X-Companion-Token": token})
    assert r.status_code == 403 and "host URL printed by the server" in r.json["message"]


def test_state_says_what_a_stale_tablet_must_do(app, client, game, host):
    code = client.get("/api/pairing", headers=host).json["code"]
    token = pair(client, code, "10.0.0.7").json["token"]
    st = client.get("/api/state", headers={"X-Companion-Token": token}).json
    assert st["role"] == "tablet" and st["token_status"] == "tablet" and "token_advice" not in st
    client.post("/api/pairing/rotate", json={}, headers=host)
    st = client.get("/api/state", headers={"X-Companion-Token": token}).json
    assert st["token_status"] == "unknown" and st["token_advice"] == ADVICE["unknown"]
    assert "pair again" in st["token_advice"] and "host URL" not in st["token_advice"]
    host_st = client.get("/api/state", headers=host).json
    assert host_st["token_status"] == "host" and host_st["boot_id"] == app.config["BOOT_ID"]


def test_a_token_never_given_is_not_told_of_a_new_pairing_code(app, client, game, host):
    """Only a tablet unpaired by a new pairing code is told the host made one; a token the table never
    gave is told it is not valid, in /api/state and in the 403 of a change."""
    code = client.get("/api/pairing", headers=host).json["code"]
    token = pair(client, code, "10.0.0.7").json["token"]
    client.post("/api/pairing/rotate", json={}, headers=host)
    for wrong, status in ((token, "unknown"), ("made-up-token-0123456789", "not_valid")):
        st = client.get("/api/state", headers={"X-Companion-Token": wrong}).json
        assert st["token_status"] == status and st["token_advice"] == ADVICE[status]
        r = client.post("/api/undo", json={}, headers={"X-Companion-Token": wrong})
        assert r.status_code == 403 and r.json["message"] == ADVICE[status]
        assert ("new pairing code" in r.json["message"]) == (status == "unknown")
    assert "not valid" in ADVICE["not_valid"]


def test_no_qr_code_where_no_tablet_can_reach_the_server(app, client, game, host):
    app.config.update(PUBLIC_URL="http://127.0.0.1:8765", LISTEN_HOST="127.0.0.1")
    body = client.get("/api/pairing", headers=host).json
    assert body["reachable"] is False and body["svg"] is None and body["url"] is None
    assert "this machine only" in body["message"] and "companion serve" in body["message"]
    app.config.update(PUBLIC_URL="http://127.0.0.1:8765", LISTEN_HOST="0.0.0.0")  # no network address
    body = client.get("/api/pairing", headers=host).json
    assert body["svg"] is None and "--public-url" in body["message"]
    app.config.update(PUBLIC_URL="http://192.168.1.20:8765", LISTEN_HOST="0.0.0.0")
    body = client.get("/api/pairing", headers=host).json
    assert body["reachable"] is True and body["svg"].lstrip().startswith("<svg")
    assert body["url"] == f"http://192.168.1.20:8765/#pair={body['code']}"
    rot = client.post("/api/pairing/rotate", json={}, headers=host).json
    assert rot["url"] == f"http://192.168.1.20:8765/#pair={rot['code']}"
