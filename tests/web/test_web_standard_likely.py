"""A Battle Dice roll (standard dice) the camera read with a die it could not tell: the die is staged
unread, with its box and the values the table profile knows nearest (``DieReading.likely``, as the
roll names its faces); nothing is set from them, the roll cannot be confirmed until a player gives
that die a value, and the value given is the player's.

The phone's photo of the roll goes through the real ``read_standard_roll`` and ``assign_standard``; only
the numeral bundle is a stand-in (``FakeModel``), so the die left unread and its likely values are
known exactly."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from web_helpers import battle_dice_app

import companion.vision.numerals as numerals
from companion.vision.numerals import StandardReading

TOKEN = "standard-likely-host-token-0123"
HOST = {"X-Companion-Token": TOKEN}
LIKELY = [17, 3]  # nearest first


class FakeModel:
    """A numeral bundle that reads every die of the roll (on its face 1, or on ``values``) but the last
    d20, left unread with ``likely`` (default ``LIKELY``; what an enrolled bundle gives:
    ``NumeralModel.read_boxes``); ``boxes``: each die's box (default: a row of small boxes)."""

    def __init__(self, dice: list[dict], boxes=None, values=None, likely=LIKELY):
        self.dice, self.likely = dice, list(likely)
        self.boxes = boxes or [[20.0 + 24 * k, 30.0, 40.0 + 24 * k, 50.0] for k in range(len(dice))]
        self.values = values or [1] * len(dice)

    def weigh_turn(self, check, image, boxes) -> bool:  # a reader of dice seen from above: weighs nothing
        return bool(check.needed())

    def readings(self, image):
        out = []
        unread = max(k for k, d in enumerate(self.dice) if d["die"] == "d20")
        for k, d in enumerate(self.dice):
            box, v = list(self.boxes[k]), int(self.values[k])
            if k == unread:
                out.append(StandardReading(box, "d20", None, None, 0.31, True, list(self.likely)))
            else:
                out.append(StandardReading(box, d["die"], v, str(v), 0.93, False))
        return out


@pytest.fixture
def battle(tmp_path, monkeypatch):
    app, client, pending = battle_dice_app(tmp_path, TOKEN, STANDARD_MODEL="my-enrolled-dice")
    asked = []

    def load(name):
        asked.append(name)
        return FakeModel(pending["dice"])

    monkeypatch.setattr(numerals, "load_numeral_model", load)
    yield app, client, pending, asked
    app.extensions["game_store"].close()


def _photo(client) -> dict:
    frame = np.full((120, 400, 3), 90, np.uint8)
    ok, buf = cv2.imencode(".png", frame)
    assert ok
    r = client.post(
        "/api/camera/frames?photo=1", data=buf.tobytes(), headers={**HOST, "Content-Type": "image/png"}
    )
    assert r.status_code == 200 and r.json["read"] is True, r.json
    return client.get("/api/state").json


def test_an_unread_standard_die_is_staged_with_its_likely_values_never_set(battle, tmp_path):
    app, client, pending, asked = battle
    st = _photo(client)
    assert asked == ["my-enrolled-dice"]  # the server's standard-dice model read the photo
    reading = st["reading"]
    unread = [d for d in pending["dice"] if d["die"] == "d20"][-1]
    uid = unread["uid"]
    mine = reading["readings"][uid]
    assert mine["state"] == "unreadable" and mine["face"] is None and "face_index" not in mine
    assert mine["likely"] == [str(v) for v in LIKELY] and mine["problem"] == "face not read: tap it"
    assert uid not in reading["faces"] and uid in reading["unread"]
    assert reading["boxes"][uid] == mine["box"]  # its box is on the frame, labelled not read
    others = [d["uid"] for d in pending["dice"] if d["uid"] != uid]
    assert all(reading["faces"][u] == "1" for u in others)
    assert all("likely" not in reading["readings"][u] for u in others)
    # not confirmable: the unread die has no value, and the likely ones were not taken as one
    r = client.post("/api/rolls/confirm", json={}, headers=HOST)
    assert r.status_code == 400 and r.json["error"] == "incomplete_roll" and uid in r.json["message"]
    assert client.get("/api/state").json["seq"] == st["seq"]
    # the player gives it the second likely value: that value, a player's tap, keeping the camera's box
    r = client.post("/api/corrections", json={"uid": uid, "face": str(LIKELY[1])}, headers=HOST)
    assert r.status_code == 200, r.json
    r = client.post("/api/rolls/confirm", json={}, headers=HOST)
    assert r.status_code == 200, r.json
    saved = Path(r.json["record"])
    assert saved.parent == tmp_path / "corrections"
    record = json.loads(saved.with_suffix(".json").read_text())
    assert {"box": mine["box"], "kind": "d20", "value": LIKELY[1]} in record["dice"]  # enrolment learns it
    after = client.get("/api/state").json
    assert after["seq"] > st["seq"]
    store = app.extensions["game_store"]
    with store.lock:
        event = [e for e in store.session.events() if e["action"].get("readings")][-1]
    logged = {r["die"]: r for r in event["action"]["readings"]}
    assert logged[uid]["face"] == str(LIKELY[1]) and logged[uid]["source"] == "typed"  # the player's
    assert logged[uid]["box"] == mine["box"] and "likely" not in logged[uid]
    assert all(logged[u]["face"] == "1" and logged[u]["source"] == "camera" for u in others)
