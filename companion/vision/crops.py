"""Cutting a square crop around a detected die, the same way at training and at run time."""

from __future__ import annotations

import cv2
import numpy as np

CROP_SIZE = 64
CROP_MARGIN = 1.15


def crop_die(image: np.ndarray, box, size: int = CROP_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """A ``size`` x ``size`` crop centred on ``box`` (x1 y1 x2 y2), side = longer box side x margin."""
    x1, y1, x2, y2 = (float(v) for v in box)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    half = max(x2 - x1, y2 - y1, 2.0) * margin / 2
    s = size / (2 * half)
    M = np.array([[s, 0, size / 2 - cx * s], [0, s, size / 2 - cy * s]], np.float32)
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, M, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)
