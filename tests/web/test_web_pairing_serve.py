"""``companion serve`` at a real table, each check against real server processes (waitress) and a
second client: it listens on the network and its QR code carries the address a tablet reaches (no
QR code where none can); the host URL survives a restart and can be replaced; one server per game
file and per port; guessing pairing codes is limited per client address; bad bodies get 4xx JSON.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from web_helpers import Serve, exchange

from web.lan import is_loopback, lan_address

pytestmark = pytest.mark.slow

LAN = lan_address()
HAS_LAN = not is_loopback(LAN)


def call(
    port: int,
    method: str,
    path: str,
    body=None,
    token: str | None = None,
    *,
    host: str = "127.0.0.1",
    source: str | None = None,
    raw: bytes | None = None,
):
    """One HTTP request from ``source`` (a local address: a second device, as the server sees it)."""
    conn = http.client.HTTPConnection(host, port, timeout=30, source_address=(source, 0) if source else None)
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    return exchange(conn, method, path, data, token)


def stream_hello(port: int) -> dict:
    """The ``hello`` event that opens the live stream."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/events")
    r = conn.getresponse()
    event = None
    try:
        while True:
            line = r.fp.readline().decode().strip()
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "hello":
                return json.loads(line[6:])
    finally:
        conn.close()


def new_game(s: Serve) -> str:
    status, _, body = call(
        s.port, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, s.host_token
    )
    assert status == 201, body
    return body["game_id"]


# -- 1. pairing works on the network out of the box -----------------------------------------------------


def test_serve_listens_on_the_network_and_its_qr_code_points_there(servers, tmp_path):
    db = str(tmp_path / "table.sqlite")
    first = servers("--db", db, "--port", "0", "--seconds", "120")
    assert "listening on the local network" in first.text
    new_game(first)
    first.stop()
    s = servers("--db", db, "--port", "0", "--seconds", "120")  # a game to pair with: the banner's QR code
    out = s.text
    hint, qr = out.find("Tablets: join the same Wi-Fi"), out.find("█")
    if HAS_LAN:
        assert s.url.startswith(f"http://{LAN}:"), "the URLs carry this machine's network address"
        assert 0 <= hint < qr, "the hint comes before the QR code"
        pair_url = re.search(r"\(or open (http://\S+/#pair=\w+)\)", out).group(1)
        assert urlsplit(pair_url).hostname == LAN
        # a second device reaches it at that address (not through loopback)
        status, _, st = call(s.port, "GET", "/api/state", host=LAN)
        assert status == 200 and st["game_id"]
        status, _, pairing = call(s.port, "GET", "/api/pairing", token=s.host_token)
        assert pairing["reachable"] and pairing["url"] == pair_url and pairing["svg"].startswith("<svg")
    else:  # a machine without any network: it says so instead of drawing a QR code nobody can use
        assert qr == -1 and "no local network address" in out


def test_a_server_on_this_machine_only_shows_no_qr_code(servers, tmp_path):
    db = str(tmp_path / "local.sqlite")
    s = servers("--db", db, "--port", "0", "--host", "127.0.0.1", "--seconds", "120")
    new_game(s)
    s.stop()
    s = servers("--db", db, "--port", "0", "--host", "127.0.0.1", "--seconds", "120")
    assert "listening on this machine only" in s.text
    assert "█" not in s.text and "#pair=" not in s.text, "no QR code a tablet cannot reach"
    assert "Tablets cannot pair yet" in s.text and "companion serve" in s.text
    status, _, body = call(s.port, "GET", "/api/pairing", token=s.host_token)
    assert status == 200 and body["svg"] is None and body["reachable"] is False
    assert "this machine only" in body["message"]


# -- 2. the host token survives restarts and can be replaced -------------------------------------------


def test_host_url_survives_a_restart_and_rotates_on_request(servers, tmp_path):
    db = str(tmp_path / "kept.sqlite")
    first = servers("--db", db, "--port", "0", "--seconds", "120")
    token = first.host_token
    new_game(first)
    _, _, st1 = call(first.port, "GET", "/api/state", token=token)
    first.kill()  # not even a clean stop
    again = servers("--db", db, "--port", "0", "--seconds", "120")
    assert again.host_token == token, "the same host URL after a restart"
    _, _, st2 = call(again.port, "GET", "/api/state", token=token)
    assert st2["role"] == "host" and st2["game_id"] == st1["game_id"]
    assert st2["boot_id"] != st1["boot_id"], "pages can tell the server restarted"
    assert stream_hello(again.port) == {"boot_id": st2["boot_id"]}, "the live stream says so first"
    again.stop()
    rotated = servers("--db", db, "--port", "0", "--rotate-host-token", "--seconds", "120")
    assert rotated.host_token != token
    _, _, old = call(rotated.port, "GET", "/api/state", token=token)
    assert old["role"] == "viewer" and "open the host URL printed by the server again" in old["token_advice"]
    status, _, _ = call(rotated.port, "POST", "/api/undo", {}, token=token)
    assert status == 403
    _, _, new = call(rotated.port, "GET", "/api/state", token=rotated.host_token)
    assert new["role"] == "host"


# -- 5. guessing pairing codes -----------------------------------------------------------------------


def test_guessing_is_limited_per_address_and_never_changes_the_code(servers, tmp_path):
    s = servers("--db", str(tmp_path / "g.sqlite"), "--port", "0", "--seconds", "120")
    new_game(s)
    _, _, pairing = call(s.port, "GET", "/api/pairing", token=s.host_token)
    code = pairing["code"]
    wrong = "22222A" if code != "22222A" else "22222B"
    # a stranger guesses from 127.0.0.3, in parallel threads
    results: list[tuple[int, dict]] = []

    def guess():
        status, headers, _ = call(s.port, "POST", "/api/pair", {"code": wrong}, source="127.0.0.3")
        results.append((status, headers))

    threads = [threading.Thread(target=guess) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(st for st, _ in results)
    assert statuses == [403] * 5 + [429] * 7, statuses
    assert all(1 <= int(h["Retry-After"]) <= 60 for st, h in results if st == 429)
    status, _, _ = call(s.port, "POST", "/api/pair", {"code": code}, source="127.0.0.3")
    assert status == 429, "locked out: not even the right code is checked"
    _, _, after = call(s.port, "GET", "/api/pairing", token=s.host_token)
    assert after["code"] == code, "strangers never replace the host's code"
    status, _, ok = call(s.port, "POST", "/api/pair", {"code": code, "name": "kitchen"}, source="127.0.0.4")
    assert status == 200 and ok["role"] == "tablet", "another device still pairs"


# -- 6. one server per game file, a busy port is an error ----------------------------------------------


def test_a_second_server_on_the_same_game_file_is_refused(servers, tmp_path):
    db = str(tmp_path / "one.sqlite")
    first = servers("--db", db, "--port", "0", "--seconds", "120")
    second = servers("--db", db, "--port", "0", "--seconds", "20", wait=False)
    rc, out = second.finish()
    assert rc == 2 and "Traceback" not in out
    assert "already being served" in out and str(first.proc.pid) in out and first.url in out
    assert "serving at" not in out
    status, _, _ = call(first.port, "GET", "/api/state")
    assert status == 200, "the first server carries on"
    first.kill()  # its lock file stays behind; the OS lock went with the process
    assert Path(db + ".lock").exists()
    third = servers("--db", db, "--port", "0", "--seconds", "120")
    assert third.url, "a lock left by a killed server does not block"


def test_a_busy_port_is_an_error_not_a_move(servers, tmp_path):
    first = servers("--db", str(tmp_path / "a.sqlite"), "--port", "0", "--seconds", "120")
    second = servers(
        "--db", str(tmp_path / "b.sqlite"), "--port", str(first.port), "--seconds", "20", wait=False
    )
    rc, out = second.finish()
    assert rc == 2 and "Traceback" not in out
    assert f"port {first.port}" in out and "--port" in out and "serving at" not in out
    # and the game file is free for a server started properly, on a port found free just before (another
    # process may take that port in between: then it is tried again with a new one)
    for attempt in range(5):
        with socket.socket() as probe:
            probe.bind(("0.0.0.0", 0))
            free = probe.getsockname()[1]
        try:
            ok = servers("--db", str(tmp_path / "b.sqlite"), "--port", str(free), "--seconds", "120")
            break
        except AssertionError as exc:
            if "Address already in use" not in str(exc) or attempt == 4:
                raise
    assert ok.port == free


# -- smaller: bad bodies, long echoes, server paths ------------------------------------------------------


def test_bad_bodies_get_short_4xx_json_and_no_server_paths(servers, tmp_path, rules_index):
    s = servers(
        "--db",
        str(tmp_path / "bad.sqlite"),
        "--port",
        "0",
        "--rules-index",
        str(rules_index),
        "--seconds",
        "120",
    )
    new_game(s)
    _, _, before = call(s.port, "GET", "/api/state")
    for path in ("/api/decisions", "/api/pair", "/api/games", "/api/rolls"):
        status, _, body = call(s.port, "POST", path, token=s.host_token, raw=b"[" * 120_000)
        assert status == 400 and "nested too deeply" in body["message"], (path, status, body)
    big = "x" * 200_000
    for path, payload in (
        ("/api/decisions", {"action": {"type": big}}),
        ("/api/decisions", {big: 1}),
        ("/api/rolls", {"faces": {big: "1 Melee"}}),
    ):
        status, _, body = call(s.port, "POST", path, payload, token=s.host_token)
        assert 400 <= status < 500
        assert len(json.dumps(body)) < 700 and "200000 characters" in json.dumps(body), body
    _, _, after = call(s.port, "GET", "/api/state")
    assert after["seq"] == before["seq"], "nothing changed"
    status, _, found = call(s.port, "GET", "/api/rules/search?q=melee")
    assert status == 200 and found["documents"]
    assert all("path" not in d and "/" not in d["file"] for d in found["documents"])
    assert str(rules_index.parent) not in json.dumps(found)
    assert "Traceback" not in s.text


def test_public_url_is_what_the_qr_code_carries(servers, tmp_path):
    bad = servers("--db", str(tmp_path / "p.sqlite"), "--port", "0", "--public-url", "table-pc", wait=False)
    rc, out = bad.finish()
    assert rc == 2 and "not an address a tablet can open" in out and "serving at" not in out
    s = servers(
        "--db",
        str(tmp_path / "p.sqlite"),
        "--port",
        "0",
        "--public-url",
        "http://table-pc.local:8765/",
        "--seconds",
        "120",
    )
    new_game(s)
    status, _, body = call(s.port, "GET", "/api/pairing", token=s.host_token)
    assert status == 200 and body["reachable"]
    assert body["url"] == f"http://table-pc.local:8765/#pair={body['code']}"
