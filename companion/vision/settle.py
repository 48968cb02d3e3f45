"""Settle detection: cheap frame differencing decides when a roll has come to rest.

No detector runs while anything moves.  The detector is armed by motion (a roll or a hand),
and fires exactly once when the frame has been still for ``still_ms``; it re-arms only after
new motion.  Motion = share of pixels (on a small blurred grey copy) that changed by more than
``pixel_threshold`` grey levels since the previous frame.  The still time counts from the earlier
frame of the first still pair (the dice lay as they lie now already in that frame), so a roll is
read ``still_ms`` after the dice stopped, not a frame later.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class SettleEvent:
    t: float  # time of the frame that completed the still period
    still_since: float  # time of the first still frame


class SettleDetector:
    def __init__(
        self,
        still_ms: float = 150.0,
        motion_fraction: float = 0.002,
        pixel_threshold: int = 18,
        width: int = 160,
    ):
        if still_ms < 0:
            raise ValueError("still_ms must not be negative")
        self.still_s = still_ms / 1000
        self.motion_fraction = motion_fraction
        self.pixel_threshold = pixel_threshold
        self.width = width
        self._prev: np.ndarray | None = None
        self._armed = False
        self._still_since: float | None = None
        self._last_t: float | None = None
        self.last_motion = 0.0

    def _small(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        g = cv2.resize(g, (self.width, max(1, int(h * self.width / w))), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(g, (5, 5), 0)

    def motion(self, frame: np.ndarray) -> float:
        """Share of changed pixels since the previous frame (0 for the first)."""
        small = self._small(frame)
        if self._prev is None or self._prev.shape != small.shape:
            self._prev = small
            return 0.0
        diff = cv2.absdiff(small, self._prev)
        self._prev = small
        return float((diff > self.pixel_threshold).mean())

    def update(self, t: float, frame: np.ndarray) -> SettleEvent | None:
        m = self.motion(frame)
        self.last_motion = m
        before, self._last_t = self._last_t, t
        if m > self.motion_fraction:
            self._armed = True
            self._still_since = None
            return None
        if not self._armed:
            return None
        if self._still_since is None:  # still since the frame this one matches
            self._still_since = t if before is None else before
        if t - self._still_since >= self.still_s:
            self._armed = False
            return SettleEvent(t, self._still_since)
        return None

    @property
    def moving(self) -> bool:
        return self._armed and self._still_since is None
