"""How big a die should look in the frame: the size cue that tells apart unit dice of one species.

Dragon Dice units come in sizes (small, medium, large units; champions larger:
``../shared/vision/real-dice-appearance.md``, "Bodies"), and two dice of one species share the look of
every face they share, so their up faces alone rarely say which die is which (models/face-embed/
CHANGELOG.md, stop 39: 83 % of the units on the calibration frames share the table with another die type
of their species and kind).  Their size in the frame does, once the frame's scale is known.

The scale is fitted per frame, as no camera is calibrated: the log of a six-sided die's longest box
side, less the log of its size in mm, is ``a + b * y`` (``y``: the box centre's row, in thousands of
pixels; dice higher in an oblique frame are farther, so smaller).  ``fit_scale`` fits it on pairs of
(detection, unit) a first assignment made, trimming pairs far off the line (a box cut by the frame's
edge, two touching dice in one box), and ``size_costs`` adds, for every six-sided (detection, unit)
pair, the squared distance of the box from the size that unit should have there, in ``sigma`` units,
capped so that one odd box never outweighs the faces.  Other kinds are one size each (a monster is a
monster): no term.  The spread ``sigma`` is a profile setting (``size_sigma``), measured on frames.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision.die_pixels import die_sides

#: Physical size (mm across) of six-sided unit dice by catalogue size (issue 5 gives 16/18/20/22 mm).
SIZE_MM = {
    "Small": 16,
    "Medium": 18,
    "Large": 20,
    "Champion": 22,
    "Monster": 24,
    "Artifact": 24,
    "Relic": 20,
    "Medallion": 20,
}
#: Dice of the other kinds, one size each.
KIND_MM = {"d4": 20, "d8": 30, "d10": 24, "d12": 30}

#: A pair's size cost is capped at this many sigma (squared, halved): one box cut by the frame's edge
#: or holding two dice weighs at most as much as a face about 3 sigma off.
CAP_SIGMA = 3.0
#: The slope over the frame's rows is fitted only from this many pairs on, spread over at least
#: ``MIN_ROWS`` pixels; with fewer the scale is one number (a median).
MIN_PAIRS_SLOPE = 5
MIN_ROWS = 150.0
#: Pairs more than this many sigma off the first line are left out of the second fit.
TRIM_SIGMA = 2.5


class SizeError(ValueError):
    """A size setting that cannot be used (names the value)."""


def unit_mm(die) -> float | None:
    """The size in mm of a six-sided die of the catalogue, or None (another kind, or no size known)."""
    if len(die.faces) != 6 or not die.size or die.size not in SIZE_MM:
        return None
    return float(SIZE_MM[die.size])


@dataclass(frozen=True)
class FrameScale:
    """``log(longest side px) - log(mm) = a + b * y`` (``y`` the box centre's row / 1000)."""

    a: float
    b: float = 0.0
    pairs: int = 0

    def expected_log(self, y_px, mm) -> np.ndarray:
        return self.a + self.b * np.asarray(y_px, float) / 1000.0 + np.log(np.asarray(mm, float))


def _rows(boxes) -> np.ndarray:
    b = np.asarray(boxes, float).reshape(-1, 4)
    return (b[:, 1] + b[:, 3]) / 2.0


def _line(t: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    if len(t) >= MIN_PAIRS_SLOPE and np.ptp(y) * 1000.0 >= MIN_ROWS:
        coef, *_ = np.linalg.lstsq(np.c_[np.ones_like(y), y], t, rcond=None)
        return float(coef[0]), float(coef[1])
    return float(np.median(t)), 0.0


def fit_scale(boxes, mms, sigma: float) -> FrameScale | None:
    """The frame's scale from (box, mm) pairs thought to be one die each; None under 2 pairs."""
    sides = die_sides(boxes)
    mm = np.asarray(mms, float).reshape(-1)
    if len(sides) != len(mm):
        raise SizeError(f"{len(sides)} boxes but {len(mm)} sizes")
    ok = (sides > 0) & (mm > 0)
    if ok.sum() < 2:
        return None
    t = np.log(sides[ok]) - np.log(mm[ok])
    y = _rows(np.asarray(boxes, float).reshape(-1, 4)[ok]) / 1000.0
    a, b = _line(t, y)
    keep = np.abs(t - a - b * y) <= TRIM_SIGMA * sigma
    if 2 <= keep.sum() < len(t):
        a, b = _line(t[keep], y[keep])
    return FrameScale(a, b, int(keep.sum()))


def size_costs(boxes, units_mm, pairs, sigma: float, flat=None) -> np.ndarray:
    """Cost (n detections x m units) of each pair's size: ``min(r**2, CAP_SIGMA**2) / 2`` with ``r`` the
    box's log side off the size the unit should have there, in ``sigma``; 0 where the unit has no size
    (``units_mm`` None), the detection is not ``flat`` (a cocked die's box is another shape) or the frame's
    scale cannot be fitted.  ``pairs``: (detection, unit) pairs of a first assignment, to fit it from."""
    if not (isinstance(sigma, (int, float)) and np.isfinite(sigma) and sigma > 0):
        raise SizeError(f"size_sigma is {sigma!r}: a positive number (the spread of log sizes)")
    b = np.asarray(boxes, float).reshape(-1, 4)
    n, m = len(b), len(units_mm)
    out = np.zeros((n, m))
    flat = np.ones(n, bool) if flat is None else np.asarray(flat, bool)
    fit = [(i, units_mm[j]) for i, j in pairs if units_mm[j] is not None and flat[i]]
    if not fit:
        return out
    scale = fit_scale(b[[i for i, _ in fit]], [mm for _, mm in fit], sigma)
    sized = [j for j in range(m) if units_mm[j] is not None]
    if scale is None or len({units_mm[j] for j in sized}) < 2:
        return out  # one size on the table: the term would say nothing
    sides = die_sides(b)
    y = _rows(b)
    for j in sized:
        r = (np.log(np.maximum(sides, 1e-6)) - scale.expected_log(y, units_mm[j])) / sigma
        out[:, j] = np.where(flat, np.minimum(r**2, CAP_SIGMA**2) / 2.0, 0.0)
    return out
