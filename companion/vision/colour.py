"""Cheap estimates from pixels: a die's material colour and its size class."""

from __future__ import annotations

import cv2
import numpy as np

#: Reference colours (BGR) of die materials, as printed on real Dragon Dice (V4.01c L138-164).
MATERIALS_BGR = {
    "Air": (190, 110, 30),
    "Death": (38, 36, 40),
    "Earth": (40, 190, 225),
    "Fire": (40, 40, 195),
    "Water": (60, 140, 40),
    "Ivory": (196, 222, 234),
    "White": (244, 244, 244),
    "Gold": (40, 165, 205),
    "Silver": (185, 185, 190),
    "Bronze": (60, 115, 170),
}
_NAMES = list(MATERIALS_BGR)
_LAB = cv2.cvtColor(np.array([list(MATERIALS_BGR.values())], np.uint8), cv2.COLOR_BGR2LAB)[0].astype(
    np.float32
)

#: Six-sided unit sizes across (mm), issue 5: 16/18/20/22.
D6_SIZES_MM = {"Small": 16, "Medium": 18, "Large": 20, "Champion": 22}


def estimate_colour(image: np.ndarray, box, top: int = 2) -> list[str]:
    """The one or two materials that best explain the die's pixels (most common first)."""
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    w, h = x2 - x1, y2 - y1
    if w < 4 or h < 4:
        return []
    patch = image[y1 + h // 5 : y2 - h // 5, x1 + w // 5 : x2 - w // 5]
    if patch.size == 0:
        return []
    step = max(1, int((patch.shape[0] * patch.shape[1] / 400) ** 0.5))  # ~400 pixels vote, whatever the size
    patch = np.ascontiguousarray(patch[::step, ::step])
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    d = ((lab[:, None, :] - _LAB[None]) ** 2).sum(2)
    votes = np.bincount(d.argmin(1), minlength=len(_NAMES)).astype(float)
    order = np.argsort(-votes)
    chosen = [_NAMES[order[0]]]
    if top > 1 and votes[order[1]] > 0.25 * votes[order[0]]:
        chosen.append(_NAMES[order[1]])
    return chosen


def size_class(kind: str, box, px_per_mm: float | None) -> str:
    """Size class of a six-sided die from its box, when the table scale is known."""
    if kind != "d6" or not px_per_mm:
        return "unknown" if kind == "d6" else kind
    side = min(box[2] - box[0], box[3] - box[1]) / px_per_mm
    return min(D6_SIZES_MM, key=lambda k: abs(D6_SIZES_MM[k] - side * 0.9))
