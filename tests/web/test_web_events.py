"""The live stream (GET /api/events): catch-up from the durable log, Last-Event-ID, live events,
notices, keep-alives, and a game replaced under a connected tablet."""

from __future__ import annotations

import json
import queue
import threading
import time


def read_stream(resp, out: queue.Queue) -> None:
    buf = ""
    try:
        for chunk in resp.response:
            buf += chunk.decode() if isinstance(chunk, bytes) else chunk
            while "\n\n" in buf:
                block, buf = buf.split("\n\n", 1)
                out.put(parse(block))
        out.put({"end": True})
    except Exception as exc:  # stream closed by the test
        out.put({"closed": repr(exc)})


def parse(block: str) -> dict:
    msg: dict = {}
    for line in block.splitlines():
        if line.startswith(":"):
            msg["comment"] = line[1:].strip()
            continue
        key, _, value = line.partition(": ")
        msg[key] = value
    if "data" in msg:
        msg["data"] = json.loads(msg["data"])
    return msg


def collect(out: queue.Queue, want, timeout: float = 5.0) -> list[dict]:
    got: list[dict] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            got.append(out.get(timeout=0.05))
        except queue.Empty:
            continue
        if want(got):
            return got
    raise AssertionError(f"stream did not deliver in time; got {got}")


def open_stream(client, path="/api/events", **kw):
    resp = client.get(path, buffered=False, **kw)
    assert resp.status_code == 200
    assert resp.mimetype == "text/event-stream" and resp.headers["Cache-Control"] == "no-cache"
    out: queue.Queue = queue.Queue()
    threading.Thread(target=read_stream, args=(resp, out), daemon=True).start()
    return resp, out


def finish(app, out):
    """Closing the store (as the server does when it stops) ends every stream."""
    app.extensions["game_store"].close()
    collect(out, lambda m: any("end" in x for x in m))


def games(msgs):
    return [m for m in msgs if m.get("event") == "game"]


def act(client, host, seed):
    """Answer whatever is pending (a seeded roll, or the first choice)."""
    p = client.get("/api/state").json["pending"]
    action = (
        {"type": "roll_for_me", "seed": seed}
        if p["kind"] == "roll"
        else {"type": "choose", "choice": p["choices"][0]["value"]}
    )
    r = client.post("/api/decisions", json={"action": action}, headers=host)
    assert r.status_code == 200
    return r.json["seq"]


def test_catch_up_from_the_log_then_live(client, game, host, app):
    act(client, host, 1)
    resp, out = open_stream(client, query_string={"since": f"{game}:0"})
    msgs = collect(out, lambda m: len(games(m)) == 2)
    assert [m["id"] for m in games(msgs)] == [f"{game}:1", f"{game}:2"]
    assert games(msgs)[1]["data"]["type"] == "roll"
    t0 = time.monotonic()
    seq = act(client, host, 2)
    msgs = collect(out, lambda m: games(m))
    assert games(msgs)[0]["id"] == f"{game}:{seq}"
    assert time.monotonic() - t0 < 2.0
    finish(app, out)


def test_reconnecting_tablet_gets_only_what_it_missed(client, game, host, app):
    seen = [act(client, host, seed) for seed in (1, 2)]
    resp, out = open_stream(client, headers={"Last-Event-ID": f"{game}:{seen[-1]}"})
    seq = act(client, host, 3)
    msgs = collect(out, lambda m: games(m))
    assert [m["id"] for m in games(msgs)] == [f"{game}:{seq}"], "events up to the last id were seen already"
    finish(app, out)


def test_notices_are_pushed_without_ids(client, game, host, app):
    resp, out = open_stream(client, query_string={"since": f"{game}:1"})
    pending = client.get("/api/state").json["pending"]
    faces = {d["uid"]: d["faces"][0] for d in pending["dice"]}
    client.post("/api/rolls", json={"faces": faces, "confirm": False, "source": "camera"}, headers=host)
    msgs = collect(out, lambda m: any(x.get("event") == "notice" for x in m))
    notice = next(m for m in msgs if m.get("event") == "notice")
    assert "id" not in notice and notice["data"]["kind"] == "reading"
    assert notice["data"]["data"]["reading"]["faces"] == faces
    finish(app, out)


def test_new_game_resets_connected_tablets(client, game, host, app):
    resp, out = open_stream(client, query_string={"since": f"{game}:1"})
    r = client.post("/api/games", json={"players": ["Cy", "Di"], "quick": True}, headers=host)
    new = r.json["game_id"]
    msgs = collect(out, lambda m: games(m))
    assert any(m.get("event") == "reset" and m["data"]["game_id"] == new for m in msgs)
    assert games(msgs)[0]["id"] == f"{new}:1"
    finish(app, out)


def test_keepalive_comments(app, client, game):
    app.config["SSE_KEEPALIVE_S"] = 0.2
    resp, out = open_stream(client, query_string={"since": f"{game}:1"})
    msgs = collect(out, lambda m: any(x.get("comment") == "keepalive" for x in m), timeout=3)
    assert msgs
    finish(app, out)


def test_bad_last_event_id(client, game):
    r = client.get("/api/events", query_string={"since": "abc:xyz"})
    assert r.status_code == 400 and r.json["field"] == "since"
    r = client.get("/api/events", headers={"Last-Event-ID": "-4"})
    assert r.status_code == 400
