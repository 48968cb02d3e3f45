"""Live streams on a real waitress server: more open streams than request workers (and more than
the old limit of 32) leave the page answering, every stream gets each new event, a client's streams
are capped, and the streams of clients that left are freed."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request

import pytest

HOST = "stream-test-host-token"


@pytest.fixture
def server(tmp_path):
    """A real waitress server (web.server.Server) in this process, on a fresh game."""
    from web import create_app
    from web.play import build_setup
    from web.server import Server

    started = []

    def start(threads: int = 8, **config):
        app = create_app(
            {
                "DB_PATH": str(tmp_path / "game.sqlite"),
                "HOST_TOKEN": HOST,
                "START_SOURCES": False,
                "RULES_INDEX": str(tmp_path / "no-index.sqlite"),
                "SSE_CHECK_S": 0.2,
                **config,
            }
        )
        app.extensions["game_store"].create(build_setup({"players": ["Ann", "Bob"], "quick": True}))
        srv = Server(app, "127.0.0.1", 0, threads=threads)
        t = threading.Thread(target=srv.serve_forever, daemon=True)
        t.start()
        started.append((srv, t))
        return srv

    yield start
    for srv, t in started:
        srv.stop()
        t.join(10)


def open_stream(port: int, source: str = "127.0.0.1") -> tuple[socket.socket, int, bytes]:
    """A raw live-stream connection from ``source`` (any 127.x.y.z is this machine): the socket,
    the HTTP status and what came after the headers so far."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    s.sendall(b"GET /api/events HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n\r\n")
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(4096)
        if not chunk:
            break
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    return s, int(head.split(b" ")[1]), rest


def get(url: str, timeout: float = 5.0) -> tuple[int, bytes, float]:
    t0 = time.monotonic()
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read(), time.monotonic() - t0


def health(srv) -> dict:
    import json

    return json.loads(get(srv.base_url + "/api/health")[1])


def test_64_open_streams_leave_the_page_answering(server):
    srv = server(threads=8)
    streams = [open_stream(srv.port, f"127.0.0.{2 + i % 4}") for i in range(64)]
    try:
        assert [status for _, status, _ in streams] == [200] * 64
        assert health(srv)["streams"] == 64
        for path in ("/", "/table", "/api/state"):
            status, body, took = get(srv.base_url + path)
            assert status == 200 and body
            assert took < 5.0
        # and each of the 64 streams gets the next event of the game
        req = urllib.request.Request(
            srv.base_url + "/api/decisions",
            method="POST",
            data=b'{"action": {"type": "roll_for_me", "seed": 3}}',
            headers={"Content-Type": "application/json", "X-Companion-Token": HOST},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            import json

            seq = json.loads(r.read())["seq"]
        gid = srv.app.extensions["game_store"].game_id
        want = f"id: {gid}:{seq}\nevent: game".encode()
        for s, _, rest in streams:
            buf = rest
            deadline = time.monotonic() + 10
            while want not in buf and time.monotonic() < deadline:
                buf += s.recv(65536)
            assert want in buf
    finally:
        for s, _, _ in streams:
            s.close()


def test_streams_per_client_are_capped(server):
    srv = server(threads=4, SSE_MAX_PER_CLIENT=3)
    mine = [open_stream(srv.port, "127.0.0.2") for _ in range(3)]
    try:
        assert [st for _, st, _ in mine] == [200, 200, 200]
        s, status, rest = open_stream(srv.port, "127.0.0.2")
        s.settimeout(5)
        while b"too_many_streams" not in rest:
            chunk = s.recv(4096)
            if not chunk:
                break
            rest += chunk
        s.close()
        assert status == 503 and b"too_many_streams" in rest and b"per client" in rest
        other, status, _ = open_stream(srv.port, "127.0.0.3")  # another tablet is not refused
        other.close()
        assert status == 200
        assert get(srv.base_url + "/api/state")[0] == 200
    finally:
        for s, _, _ in mine:
            s.close()


def test_streams_of_clients_that_left_are_freed(server):
    srv = server(threads=4)
    streams = [open_stream(srv.port, f"127.0.0.{2 + i % 2}") for i in range(20)]
    assert health(srv)["streams"] == 20
    for s, _, _ in streams[:15]:
        s.close()
    deadline = time.monotonic() + 10
    while health(srv)["streams"] != 5 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert health(srv)["streams"] == 5
    dispatcher = srv.wsgi.task_dispatcher
    while dispatcher.stream_threads > 5 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert dispatcher.stream_threads == 5, "the threads of the closed streams have ended"
    for s, _, _ in streams[15:]:
        s.close()
