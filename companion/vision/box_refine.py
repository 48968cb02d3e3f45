"""A second look at each found die that moves its box's four sides (run time: onnxruntime only).

The d6 detector finds the dice but its box sides are each off by 6-7 % of the die's width (sd),
and mAP50-95 is bound by that noise (models/d6/CHANGELOG.md, 2026-11-28).  The refiner reads a
square crop around a found box (``margin`` x its longer side, ``size`` px, cut by
``crops.crop_die`` as the face reader's crops are) and says where the die's sides lie in that crop,
as fractions of the crop's side from its centre.  Read over the eight turns and flips of the crop
(``looks`` 8) the answers are turned back and averaged; ``passes`` 2 cuts a second crop around the
first answer and reads again; ``blend`` below 1 returns that share of the way from the found box
to the refined one (0.5: their mean, the two read side by side).  ``kinds``: where given, only the dice
the reader first reads as one of these kinds on the finder's box are moved (``numerals.NumeralModel``),
and one of them read as another kind on its moved box is left unread (the two looks disagree).
``from_px``: where given, only the dice whose found box is at least that many pixels across (its longer
side) are moved (candidate R3 of models/polyhedral-oblique/CHANGELOG.md, stops 46-47: at 1280 px the
d20's crop, not its box, limits it; shipped in stop 47 in ``polyhedral-oblique`` with ``kinds`` d20 and
``from_px`` 90).

Training: ``companion.vision.train.box_refiner`` (torch); it uses the same geometry below.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from companion.vision.crops import crop_die
from companion.vision.die_pixels import die_sides
from companion.vision.onnx_session import ModelError

# The eight symmetries of a square crop, as (transpose, flip x, flip y), applied in that order.
VIEWS: tuple[tuple[bool, bool, bool], ...] = tuple(
    (t, fx, fy) for t in (False, True) for fx in (False, True) for fy in (False, True)
)


def crop_frame(box, margin: float) -> tuple[float, float, float]:
    """Centre and side (pixels) of the square crop ``crop_die`` cuts around ``box`` at ``margin``."""
    x1, y1, x2, y2 = (float(v) for v in box)
    return (x1 + x2) / 2, (y1 + y2) / 2, max(x2 - x1, y2 - y1, 2.0) * margin


def to_crop(boxes: np.ndarray, frame: tuple[float, float, float]) -> np.ndarray:
    """Boxes (x1 y1 x2 y2, pixels) in a crop's coordinates: fractions of its side from its centre."""
    cx, cy, side = frame
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    return (b - np.array([cx, cy, cx, cy], np.float32)) / side


def from_crop(rel: np.ndarray, frame: tuple[float, float, float]) -> np.ndarray:
    cx, cy, side = frame
    return np.asarray(rel, np.float32).reshape(-1, 4) * side + np.array([cx, cy, cx, cy], np.float32)


def view_image(crop: np.ndarray, view: tuple[bool, bool, bool]) -> np.ndarray:
    """A crop (H W C) seen in one of the eight ``VIEWS``."""
    t, fx, fy = view
    out = crop.transpose(1, 0, 2) if t else crop
    if fx:
        out = out[:, ::-1]
    if fy:
        out = out[::-1]
    return np.ascontiguousarray(out)


def view_box(rel: np.ndarray, view: tuple[bool, bool, bool]) -> np.ndarray:
    """Crop-relative boxes (N x 4) as they lie in ``view_image(crop, view)``."""
    t, fx, fy = view
    b = np.asarray(rel, np.float32).reshape(-1, 4).copy()
    if t:
        b = b[:, [1, 0, 3, 2]]
    if fx:
        b[:, [0, 2]] = -b[:, [2, 0]]
    if fy:
        b[:, [1, 3]] = -b[:, [3, 1]]
    return b


def unview_box(rel: np.ndarray, view: tuple[bool, bool, bool]) -> np.ndarray:
    """The inverse of ``view_box``: a box read in a view, back in the crop's own frame."""
    t, fx, fy = view
    b = np.asarray(rel, np.float32).reshape(-1, 4).copy()
    if fy:
        b[:, [1, 3]] = -b[:, [3, 1]]
    if fx:
        b[:, [0, 2]] = -b[:, [2, 0]]
    if t:
        b = b[:, [1, 0, 3, 2]]
    return b


class BoxRefiner:
    """Moves found boxes' sides to where a small network sees the die's edges."""

    def __init__(
        self,
        onnx_path: Path,
        *,
        size: int = 64,
        margin: float = 1.6,
        looks: int = 8,
        passes: int = 1,
        blend: float = 1.0,
        kinds: tuple[str, ...] | None = None,
        from_px: float | None = None,
    ):
        from companion.vision.onnx_session import onnx_session  # noqa: PLC0415

        if looks not in (1, 8) or passes not in (1, 2):
            raise ModelError(f"box refiner: looks must be 1 or 8 and passes 1 or 2, not {looks} and {passes}")
        self.session = onnx_session(Path(onnx_path))
        self.input = self.session.get_inputs()[0].name
        if not 0.0 < blend <= 1.0:
            raise ModelError(f"box refiner: blend must be above 0 and at most 1, not {blend}")
        self.size, self.margin, self.looks, self.passes = int(size), float(margin), looks, passes
        self.blend = float(blend)
        if kinds is not None and (
            isinstance(kinds, str) or not kinds or not all(isinstance(k, str) and k for k in kinds)
        ):
            raise ModelError(f"box refiner: kinds must be a list of die kinds such as ['d20'], not {kinds!r}")
        self.kinds = None if kinds is None else tuple(kinds)
        if from_px is not None and (
            isinstance(from_px, bool) or not isinstance(from_px, (int, float)) or not 0 < from_px < 100000
        ):
            raise ModelError(f"box refiner: from_px must be a die size in pixels above 0, not {from_px!r}")
        self.from_px = None if from_px is None else float(from_px)

    @classmethod
    def from_meta(cls, folder: Path, meta: dict | None) -> BoxRefiner | None:
        """The refiner a bundle's ``model.json`` names under ``box_refiner``, or None."""
        if not meta:
            return None
        path = Path(folder) / meta.get("onnx", "refine.onnx")
        if not path.is_file():
            raise ModelError(f"model bundle {folder} lacks {path.name} (named by box_refiner in model.json)")
        return cls(
            path,
            size=int(meta.get("size", 64)),
            margin=float(meta.get("margin", 1.6)),
            looks=int(meta.get("looks", 8)),
            passes=int(meta.get("passes", 1)),
            blend=float(meta.get("blend", 1.0)),
            kinds=meta.get("kinds"),
            from_px=meta.get("from_px"),
        )

    def large_enough(self, boxes) -> np.ndarray:
        """Per box (x1 y1 x2 y2): whether this refiner moves a die found there (``from_px``; every box
        where none is set)."""
        sides = die_sides(boxes)
        return np.ones(len(sides), bool) if self.from_px is None else sides >= self.from_px

    def _once(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        views = VIEWS[: self.looks]
        frames = [crop_frame(b, self.margin) for b in boxes]
        crops = [crop_die(image, b, self.size, self.margin) for b in boxes]
        batch = np.stack([view_image(c, v) for c in crops for v in views]).astype(np.float32) / 255.0
        out = self.session.run(None, {self.input: batch.transpose(0, 3, 1, 2)})[0].reshape(
            len(boxes), len(views), 4
        )
        refined = np.empty((len(boxes), 4), np.float32)
        for i, frame in enumerate(frames):
            rel = np.mean([unview_box(out[i, k], v)[0] for k, v in enumerate(views)], axis=0)
            refined[i] = from_crop(rel, frame)[0]
        return refined

    def __call__(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """``boxes`` (N x 4, x1 y1 x2 y2 pixels of ``image``) moved; the same boxes where none."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if not len(boxes):
            return boxes
        out = boxes
        for _ in range(self.passes):
            out = self._once(image, out)
        out = (1.0 - self.blend) * boxes + self.blend * out
        # a refined box never leaves the frame and never collapses
        h, w = image.shape[:2]
        out[:, [0, 2]] = np.clip(out[:, [0, 2]], 0, w)
        out[:, [1, 3]] = np.clip(out[:, [1, 3]], 0, h)
        bad = (out[:, 2] - out[:, 0] < 2) | (out[:, 3] - out[:, 1] < 2)
        out[bad] = boxes[bad]
        return out
