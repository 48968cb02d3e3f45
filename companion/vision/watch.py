"""The camera loop: wait for a roll to settle, read it once, emit a roll event."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np

from companion.vision.settle import SettleDetector


def watch(
    frames: Iterable[tuple[float, np.ndarray]],
    model,
    *,
    still_ms: float = 150.0,
    roster=None,
    on_event: Callable[[dict], None] | None = None,
    max_events: int | None = None,
) -> list[dict]:
    """Run the settle detector over ``frames`` and read each settled frame once.

    An event holds the readings, the dice to reroll or check (cocked, unreadable), the unit
    assignment when a roster is given, and ``settle_to_reading_ms``: wall time from the first
    still frame's arrival to the end of reading, as measured here.
    """
    from companion.vision.assign import assign  # noqa: PLC0415

    settle = SettleDetector(still_ms=still_ms)
    events: list[dict] = []
    still_wall: float | None = None
    for t, frame in frames:
        now = time.perf_counter()
        ev = settle.update(t, frame)
        if settle.last_motion > settle.motion_fraction:
            still_wall = None
        elif still_wall is None:
            still_wall = now
        if ev is None:
            continue
        det = model.detect(frame)
        readings = model.readings(frame, det)
        event = {
            "t": round(ev.t, 3),
            "still_since": round(ev.still_since, 3),
            "dice": [r.to_dict() for r in readings],
            "flagged": [i for i, r in enumerate(readings) if r.cocked or r.unreadable],
            "reading_ms": round(1000 * (time.perf_counter() - now), 1),
            "settle_to_reading_ms": round(
                1000 * (ev.t - ev.still_since) + 1000 * (time.perf_counter() - now), 1
            ),
        }
        if roster:
            units, unassigned = assign(
                roster,
                det,
                [r.colour for r in readings],
                [r.kind for r in readings],
                model.heads,
                profile=getattr(model, "profile", None),
            )
            event["units"] = [u.to_dict() for u in units]
            event["unassigned"] = unassigned
        events.append(event)
        if on_event:
            on_event(event)
        if max_events and len(events) >= max_events:
            break
    return events
