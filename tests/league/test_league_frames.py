"""The camera frame a roll was read from: kept with the table's game when the roll is confirmed, pushed
to the league after its event, shown to judges under that roll; refused for another table's game."""

from __future__ import annotations

import urllib.error
import urllib.request

import numpy as np
import pytest
from league_helpers import LeagueServer, call, paired_league_table, wait_for

from companion.league.push import issue_token
from companion.session import GameSession
from companion.session.pg_store import connect


def _get_bytes(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read(), resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("Content-Type", "")


def _put_frame(
    url: str, token: str, game_id: str, seq: int, body: bytes, kind: str = "image/jpeg"
) -> tuple[int, dict]:
    import json

    req = urllib.request.Request(
        f"{url}/league/api/frames/{game_id}/{seq}",
        data=body,
        method="PUT",
        headers={"Content-Type": kind, "X-League-Token": token},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture
def league(pg_dsn):
    conn = connect(pg_dsn)
    tok = {
        "judge": issue_token(conn, "judge"),
        "t7": issue_token(conn, "table", "7"),
        "t8": issue_token(conn, "table", "8"),
    }
    conn.close()
    server = LeagueServer(pg_dsn)
    yield server.url, tok
    server.close()


def test_a_confirmed_camera_rolls_frame_reaches_the_judge(league, tmp_path):
    import cv2

    from web.play import reading_from_faces

    url, tok = league
    db = tmp_path / "table7.sqlite"
    app, c, host, tablet, box = paired_league_table(db, url, tok["t7"])
    try:
        store = app.extensions["game_store"]
        pending = c.get("/api/state").json["pending"]
        assert pending["kind"] == "roll"
        # a 1920x1080 camera frame (a gradient with a mark, so its JPEG is not trivial)
        frame = np.zeros((1080, 1920, 3), np.uint8)
        frame[:, :, 1] = np.linspace(0, 255, 1920, dtype=np.uint8)[None, :]
        cv2.circle(frame, (600, 500), 120, (0, 0, 255), -1)
        with app.app_context():
            store.set_reading(
                reading_from_faces(
                    store, {d["uid"]: d["faces"][0] for d in pending["dice"]}, "camera", frame=frame
                )
            )
        r = c.post("/api/rolls/confirm", json={}, headers=tablet)
        assert r.status_code == 200, r.json
        [event] = r.json["events"]
        seq = event["seq"]
        assert event["by"] == {"role": "tablet", "name": "kitchen tablet", "source": "camera"}
        game_id = c.get("/api/state").json["game_id"]
        with GameSession.open(db) as s:
            local = s.frame(seq)
        assert local is not None and local[:3] == b"\xff\xd8\xff"
        h, w = cv2.imdecode(np.frombuffer(local, np.uint8), cv2.IMREAD_COLOR).shape[:2]
        assert (w, h) == (1280, 720)  # the longer side brought down to 1280 px

        def framed():
            status, game = call(url, f"/league/api/games/{game_id}", tok["judge"])
            return status == 200 and len(game["events"]) >= seq and game["events"][seq - 1]["frame"]

        assert wait_for(framed), box.status()
    finally:
        box.stop()
    status, game = call(url, f"/league/api/games/{game_id}", tok["judge"])
    assert [e["seq"] for e in game["events"] if e["frame"]] == [seq]
    # the judge's page shows it under the roll's explanation; the league serves the same JPEG bytes
    status, page = call(url, f"/league/judge/{game_id}?token={tok['judge']}")
    roll_item = page.split(f'<li value="{seq}"', 1)[1].split('<li value="', 1)[0]
    src = f"/league/api/games/{game_id}/frames/{seq}?token={tok['judge']}"
    assert f'<img class="frame" src="{src}"' in roll_item
    assert roll_item.index("<img") > roll_item.index(event["log"][0][:20].replace("'", "&#39;"))
    status, body, kind = _get_bytes(url + src)
    assert status == 200 and kind == "image/jpeg" and body == local
    # judges only: a table token does not read it; an event without a frame has none
    assert _get_bytes(f"{url}/league/api/games/{game_id}/frames/{seq}?token={tok['t7']}")[0] == 403
    assert _get_bytes(f"{url}/league/api/games/{game_id}/frames/1?token={tok['judge']}")[0] == 404
    # pushed again: idempotent; another frame for the same roll: a conflict, nothing changed
    assert _put_frame(url, tok["t7"], game_id, seq, local) == (
        200,
        {"game_id": game_id, "seq": seq, "stored": 0},
    )
    status, answer = _put_frame(url, tok["t7"], game_id, seq, b"\xff\xd8\xff" + b"x" * 100)
    assert status == 409 and answer["error"] == "conflict"
    # another table's game, a non-roll event, not a JPEG: refused with a clear error
    status, answer = _put_frame(url, tok["t8"], game_id, seq, local)
    assert status == 403 and answer == {
        "error": "forbidden",
        "message": f"game {game_id} belongs to table 7; this token is table 8's",
    }
    status, answer = _put_frame(url, tok["t7"], game_id, 1, local)
    assert status == 400 and "is a create, not a roll" in answer["message"]
    assert _put_frame(url, tok["t7"], game_id, seq, b"GIF89a", kind="image/jpeg")[1]["error"] == "malformed"
    assert _put_frame(url, tok["t7"], game_id, 9999, local)[0] == 404
    assert _put_frame(url, "forged", game_id, seq, local)[0] == 403
    assert _get_bytes(url + src)[1] == local


def test_a_table_playing_on_postgresql_keeps_the_frame_in_the_league(league, pg_dsn):
    import cv2

    from companion.session.pg_store import create_session

    url, tok = league
    ok, buf = cv2.imencode(".jpg", np.full((90, 160, 3), 120, np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 80])
    jpeg = buf.tobytes()
    s = create_session(
        pg_dsn,
        {
            "force_size": 24,
            "players": [{"name": "A", "species": "Dwarves"}, {"name": "B", "species": "Goblins"}],
        },
        table="7",
    )
    try:
        pending = s.pending()
        [event] = s.submit(
            {"type": "roll", "faces": [d["faces"][0] for d in pending["dice"]]},
            by={"role": "host", "source": "camera"},
            frame=jpeg,
        )
        assert s.frame(event["seq"]) == jpeg and s.frames(0, 10) == [(event["seq"], jpeg)]
        with pytest.raises(Exception, match="must be a JPEG"):  # not a JPEG: refused, the event with it
            s.submit({"type": "roll", "faces": [d["faces"][0] for d in s.pending()["dice"]]}, frame=b"GIF89a")
        assert s.events()[-1]["seq"] == event["seq"]
        game_id = s.game_id
    finally:
        s.close()
    status, body, kind = _get_bytes(
        f"{url}/league/api/games/{game_id}/frames/{event['seq']}?token={tok['judge']}"
    )
    assert (status, kind, body) == (200, "image/jpeg", jpeg)
