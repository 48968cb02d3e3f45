"""Settle detection on a rendered roll video: silent while dice move, exactly one event per roll."""

from __future__ import annotations

import pytest

from companion.vision.roll_frames import roll_video
from companion.vision.settle import SettleDetector

FPS = 15.0
DICE = [("Dwarves/Mammoth Rider", 2), ("Amazons/Javelineer", 0), ("Goblins/Thug", 1)]


@pytest.fixture(scope="module")
def video():
    return roll_video(DICE, seed=11, rolls=3, size=200, fps=FPS, move_s=1.2, still_s=0.8)


def _events(frames, still_ms):
    det = SettleDetector(still_ms=still_ms)
    return [(k, ev) for k, f in enumerate(frames) if (ev := det.update(k / FPS, f)) is not None]


def test_one_event_per_roll_and_none_while_moving(video):
    frames, spans = video
    events = _events(frames, 150)
    assert len(events) == len(spans) == 3
    for (k, ev), span in zip(events, spans, strict=True):
        first_still, last_still = span["still"]
        assert first_still <= k <= last_still  # never during the moving frames
        # the last tumbling frame already shows the dice where they stop: the still time counts from it,
        # and the roll is read the first frame 150 ms after it, not a frame later
        assert ev.still_since == pytest.approx((first_still - 1) / FPS)
        assert ev.t - ev.still_since >= 0.15 and ev.t - ev.still_since - 1 / FPS < 0.15


def test_waiting_longer_than_the_dice_rest_gives_no_event(video):
    frames, _ = video
    assert _events(frames, 900) == []


def test_a_still_table_never_fires(video):
    frames, spans = video
    still = frames[spans[0]["still"][0] : spans[0]["still"][1] + 1]
    assert _events(still * 3, 100) == []


def test_negative_wait_is_refused():
    with pytest.raises(ValueError, match="still_ms"):
        SettleDetector(still_ms=-1)
