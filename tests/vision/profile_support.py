"""Helpers shared by the table-profile tests."""

from __future__ import annotations

#: The margin gate of a test profile, opened wide: whatever face is nearest is read (what such tests
#: look at is the assignment, not the gate).
OPEN = {
    "scale": 12.0,
    "max_distance": 1.9,
    "min_margin": 0.0,
    "max_distance_full": 1.9,
    "min_margin_full": 0.0,
    "min_confidence": 0.0,
    "cocked_threshold": 0.6,
}
