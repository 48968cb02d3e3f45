"""Dice the camera read together (a table profile's ``read_together``; models/face-embed/CHANGELOG.md, stop
41): the camera is sure of some look-alike dice's faces but not of which die shows which; the game says
whether every way of giving them out gives the pending roll the same results, and only then does the staged
reading fill them (``web.play.read_together``).  Through ``camera_reading`` with the real game behind a real
app; the camera's read is given (what ``read_roll`` returns), so the dice and ways are fixed."""

from __future__ import annotations

import numpy as np
import pytest


def _shared(pending: dict) -> tuple[int, int, str, str]:
    """Two dice of the pending roll with two faces in common: their slots and those faces."""
    dice = pending["dice"]
    for a in range(len(dice)):
        for b in range(a + 1, len(dice)):
            both = sorted(set(dice[a]["faces"]) & set(dice[b]["faces"]))
            if len(both) >= 2:
                return a, b, both[0], both[1]
    raise AssertionError("no two dice of the quick-start roll share two faces")


def _read(pending: dict, group: dict | None, own: dict | None = None) -> dict:
    """What ``read_roll`` returns for the pending roll: every die found, none read on its own but those of
    ``own`` (slot -> face index); the dice of ``group`` proposed together."""

    class Found:
        xyxy = np.array([[10.0 + 60 * i, 10.0, 60.0 + 60 * i, 60.0] for i in range(len(pending["dice"]))])

        def __len__(self):
            return len(self.xyxy)

    units = []
    for j, d in enumerate(pending["dice"]):
        unit = {
            "unit": d["die"],
            "slot": j,
            "detection": j,
            "face": None,
            "face_index": None,
            "confidence": 0.5,
            "cocked": False,
            "unreadable": True,
            "alternatives": [],
            "together": group if group and j in group["slots"] else None,
        }
        if j in (own or {}):
            k = own[j]
            unit.update(face=d["faces"][k], face_index=k, unreadable=False, confidence=0.95)
        units.append(unit)
    dice = [{"box": list(b), "confidence": 0.9} for b in Found.xyxy]
    return {"units": units, "dice": dice, "unassigned": [], "detections": Found()}


@pytest.fixture
def staged(app, client, host, game, monkeypatch):
    """``stage(group)``: the camera's reading of the quick-start roll with ``group`` proposed, staged."""
    import companion.vision.roll_reading as rr
    from web.play import camera_reading

    store = app.extensions["game_store"]
    pending = client.get("/api/state").json["pending"]

    def stage(group, own=None):
        monkeypatch.setattr(
            rr, "read_roll", lambda frame, slots, model=None, **kw: _read(pending, group, own)
        )
        with app.app_context():
            return camera_reading(store, np.zeros((120, 320, 3), np.uint8))

    return pending, stage


def _index(pending, slot, face):
    return pending["dice"][slot]["faces"].index(face)


def test_look_alike_dice_whose_ways_give_the_same_results_are_filled(staged, client):
    pending, stage = staged
    a, b, x, y = _shared(pending)
    ways = [[_index(pending, a, x), _index(pending, b, y)], [_index(pending, a, y), _index(pending, b, x)]]
    ua, ub = pending["dice"][a]["uid"], pending["dice"][b]["uid"]
    reading = stage({"slots": [a, b], "options": ways, "identity": 0.93})
    assert reading["faces"][ua] == x and reading["faces"][ub] == y  # the best way's faces
    assert reading["together"] == [
        {"dice": [ua, ub], "identity": 0.93, "face_index": {ua: ways[0][0], ub: ways[0][1]}}
    ]
    for uid, face in ((ua, x), (ub, y)):
        assert reading["readings"][uid]["state"] == "read" and reading["readings"][uid]["face"] == face
        assert reading["readings"][uid]["confidence"] == pytest.approx(0.93)
        assert uid not in reading["unread"]
    others = [d["uid"] for d in pending["dice"] if d["uid"] not in (ua, ub)]
    assert sorted(reading["unread"]) == sorted(others)  # the rest still wait for a tap
    state = client.get("/api/state").json
    assert state["reading"]["together"][0]["dice"] == [ua, ub]  # the page gets it


def test_look_alike_dice_whose_ways_differ_in_results_wait_for_taps(staged):
    pending, stage = staged
    a, b, x, y = _shared(pending)
    ua, ub = pending["dice"][a]["uid"], pending["dice"][b]["uid"]
    roll = pending["roll"]
    # another face of b that the roll counts differently from y (so the two ways' totals differ)
    from companion.rules.catalogue import load_catalogue

    die = load_catalogue()[pending["dice"][b]["die"]]

    def worth(face: str) -> int:
        f = die.find_face(face)
        return die.health if f.is_id else (f.count if f.icon.lower() == roll else 0)

    other = next(
        f for f in pending["dice"][b]["faces"] if worth(f) != worth(y) and not die.find_face(f).is_sai
    )
    ways = [
        [_index(pending, a, x), _index(pending, b, y)],
        [_index(pending, a, x), _index(pending, b, other)],
    ]
    reading = stage({"slots": [a, b], "options": ways, "identity": 0.93})
    assert ua not in reading["faces"] and ub not in reading["faces"]
    assert {ua, ub} <= set(reading["unread"]) and "together" not in reading
    assert reading["readings"][ua]["state"] == "unreadable"


def test_without_a_group_nothing_is_filled(staged):
    pending, stage = staged
    reading = stage(None)
    assert reading["faces"] == {} and "together" not in reading
    assert sorted(reading["unread"]) == sorted(d["uid"] for d in pending["dice"])


def test_a_die_read_on_its_own_in_the_group_keeps_its_face_and_the_others_are_filled(staged):
    """A group holds every die of the species whose face is read, those read on their own too: they keep
    their faces in every way; only the others are filled, and only they are listed as read together."""
    pending, stage = staged
    a, b, x, y = _shared(pending)
    c = next(j for j in range(len(pending["dice"])) if j not in (a, b))
    kc = 0
    ua, ub, uc = (pending["dice"][j]["uid"] for j in (a, b, c))
    ways = [
        [_index(pending, a, x), _index(pending, b, y), kc],
        [_index(pending, a, y), _index(pending, b, x), kc],
    ]
    reading = stage({"slots": [a, b, c], "options": ways, "identity": 0.9}, own={c: kc})
    assert reading["faces"][uc] == pending["dice"][c]["faces"][kc]
    assert (reading["faces"][ua], reading["faces"][ub]) == (x, y)
    assert [g["dice"] for g in reading["together"]] == [[ua, ub]]
    # a way that would give the die read on its own another face: the camera is not sure of the group
    other = next(k for k, f in enumerate(pending["dice"][c]["faces"]) if f != pending["dice"][c]["faces"][kc])
    ways[1][2] = other
    reading = stage({"slots": [a, b, c], "options": ways, "identity": 0.9}, own={c: kc})
    assert ua not in reading["faces"] and ub not in reading["faces"] and "together" not in reading
