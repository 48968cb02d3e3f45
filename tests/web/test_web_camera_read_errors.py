"""The camera source keeps reading dice after a read fails (issue 22): each failure is reported to
the pages as a notice, and the next read waits a growing pause (1 s, 2 s, 5 s, 10 s), reset by a read
that works."""

from __future__ import annotations

import numpy as np


class FakeStore:
    def __init__(self):
        self.notices = []

    def notice(self, kind, payload):
        self.notices.append((kind, payload))


class Settled:
    """A settle detector that says the table is still on every frame."""

    def update(self, now, frame):
        return frame


def test_camera_keeps_reading_after_a_failed_read_and_backs_off(monkeypatch):
    import web.play as play
    from web.sources import CameraSource

    store = FakeStore()
    cam = CameraSource("0", store)
    cam._settle = Settled()
    now = [100.0]
    cam._clock = lambda: now[0]
    outcomes = [RuntimeError("model file is damaged"), RuntimeError("model file is damaged"), {"faces": {}}]
    calls = []

    def camera_reading(st, frame, model, frame_no=None, standard_model="polyhedral", turn_check=None):
        calls.append(now[0])
        result = outcomes.pop(0)
        if isinstance(result, Exception):
            raise result
        return result

    monkeypatch.setattr(play, "camera_reading", camera_reading)
    frame = np.zeros((8, 8, 3), np.uint8)
    cam._maybe_read(frame)  # fails: reported, next read after 1 s
    assert calls == [100.0]
    assert cam.read_error == "model file is damaged"
    problems = [p for k, p in store.notices if k == "camera_problem"]
    assert (
        problems and "model file is damaged" in problems[-1]["problem"] and problems[-1]["retry_in_s"] == 1.0
    )
    now[0] = 100.5
    cam._maybe_read(frame)  # backing off: not read
    assert calls == [100.0]
    now[0] = 101.1
    cam._maybe_read(frame)  # read again: fails again, the pause grows to 2 s
    assert calls == [100.0, 101.1]
    assert [p for k, p in store.notices if k == "camera_problem"][-1]["retry_in_s"] == 2.0
    now[0] = 102.5
    cam._maybe_read(frame)
    assert len(calls) == 2
    now[0] = 103.2
    cam._maybe_read(frame)  # works: the error is cleared, reads go on
    assert len(calls) == 3 and cam.reads == 1 and cam.read_error is None


def test_the_camera_status_says_when_the_turn_check_finds_the_frames_turned_and_when_not(monkeypatch):
    """What the standard dice read say of the frames' turn reaches the pages: a ``camera_turn`` notice and
    the camera's status message; when more dice show the frames right after all, the message goes."""
    import web.play as play
    from companion.vision.camera_turn import MIN_DICE
    from web.sources import CameraSource

    store = FakeStore()
    cam = CameraSource("0", store)
    cam._settle = Settled()
    rows = [[[0.1, 0.1, 0.1, 0.9]] * MIN_DICE, [[0.9, 0.1, 0.1, 0.1]] * (2 * MIN_DICE)]

    def camera_reading(st, frame, model, frame_no=None, standard_model="polyhedral", turn_check=None):
        turn_check.check.add(rows.pop(0))  # what the standard-dice reader would say of this frame
        return {"faces": {}}

    monkeypatch.setattr(play, "camera_reading", camera_reading)
    frame = np.zeros((8, 8, 3), np.uint8)
    cam._maybe_read(frame)
    told = [p for k, p in store.notices if k == "camera_turn"]
    assert len(told) == 1 and told[0]["needed"] == 270 and "--turn 270" in told[0]["problem"]
    assert "--turn 270" in cam.status()["message"] and cam.status()["turn_check"]["needed"] == 270
    cam._maybe_read(frame)  # more dice, read surest as they come: the frames were right after all
    assert cam.status()["turn_check"]["needed"] == 0
    assert "--turn" not in cam.status()["message"] and "turn_advice" not in cam.status()
    assert len([p for k, p in store.notices if k == "camera_turn"]) == 1
