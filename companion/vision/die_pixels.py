"""How many pixels across the dice are in a frame, and a note for the player when that is too few.

The readers were measured by die size: in the renders of held-out d20 styles a d20 whose box is under
40 px is read right 28.5 % of the time, 60-90 px 75.5 %, 90-135 px 85.6 %
(``models/polyhedral-oblique/MODEL_CARD.md``, "The camera's resolution").  A frame of small dice is
not wrong, it is read less: the player who places the camera should know, and move it closer.
"""

from __future__ import annotations

import numpy as np

#: Under this many pixels (a die box's longest side, the median of the frame's dice) the note is given.
SMALL_DIE_PX = 40.0


def die_sides(boxes) -> np.ndarray:
    """The longest side in pixels of each box (x1, y1, x2, y2)."""
    b = np.asarray(boxes, float).reshape(-1, 4)
    return np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])


def small_dice_note(boxes) -> str | None:
    """A sentence for the player when the median die in ``boxes`` is under ``SMALL_DIE_PX`` across,
    else None (no dice: nothing to say)."""
    sides = die_sides(boxes)
    if not len(sides):
        return None
    median = float(np.median(sides))
    if median >= SMALL_DIE_PX:
        return None
    return (
        f"the dice are about {median:.0f} px across in this picture: under {SMALL_DIE_PX:.0f} px many are left "
        "to tap (numerals most of all); move the camera closer, or take a photo"
    )
