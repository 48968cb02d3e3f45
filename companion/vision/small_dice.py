"""A second look for small dice: the frame cut into overlapping tiles, each run through the detector.

The detector sees the whole frame shrunk to its input size (512 px for ``d6``), where a die 20 px
across in a 640 px photo is 16 px: it is found 13 % of the time (``models/d6/MODEL_CARD.md``).  A
tile is a part of the frame enlarged to the same input size, so the same die is larger there.
Slicing the frame this way and merging what the slices find is the idea of SAHI (Akyon et al.,
"Slicing Aided Hyper Inference", 2022); this is a small, numpy-only version of it:

* the frame is cut into ``grid`` x ``grid`` tiles that overlap by ``overlap`` of a tile's side;
* a box that a tile's inner edge cuts is dropped (the overlap shows that die whole in a neighbour);
* only boxes smaller than ``max_side`` (a share of the frame's longer side) are taken from the
  tiles: large dice are read from the whole frame, where their boxes are tighter;
* a tile box is scored with the whole frame's view of the same place (``SmallDicePass.merge``), and
  a tile box and a whole-frame box that overlap at IoU >= ``same_die`` are one die.

``model.json`` turns it on with ``"small_dice": {"grid": 2, "overlap": 0.25, "max_side": 0.06,
"same_die": 0.3}``; it costs ``grid`` x ``grid`` more detector runs per frame.

With ``"window": 192`` (a detector exported with a free input size) the detector is not run on whole
tiles but on squares of ``window`` px cut around the small whole-frame boxes that would open a tile, at
the tiles' scale (``SmallDicePass.windows_around``): the dice are seen as large as a tile shows them, at
a fraction of a tile's cost.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision.detections import Detections, box_iou, kept_by_nms
from companion.vision.onnx_session import ModelError

EDGE_PX = 2.0  # a box within this many pixels of a tile's inner edge is cut by it
SUPPORT_FLOOR = 0.005  # the whole frame's faint boxes down to this score vouch for the tiles' boxes


@dataclass(frozen=True)
class SmallDicePass:
    grid: int = 2
    overlap: float = 0.25
    max_side: float = 0.06
    same_die: float = 0.3
    #: a tile is opened only for a supporting whole-frame box whose longer side is under this share of
    #: the frame's longer side (None: any box that could support one, the exact bound of ``worth_a_look``)
    support_side: float | None = None
    #: the detector's input side (px) for a small-die window (None: whole tiles)
    window: int | None = None

    @classmethod
    def from_meta(cls, value) -> SmallDicePass | None:
        """The ``small_dice`` entry of a ``model.json`` (absent or null: no second look)."""
        if value is None:
            return None
        if not isinstance(value, dict):
            raise ModelError(f"small_dice must be an object such as {{'grid': 2}}, not {value!r}")
        unknown = set(value) - {"grid", "overlap", "max_side", "same_die", "support_side", "window"}
        if unknown:
            raise ModelError(f"small_dice: unknown key(s) {', '.join(sorted(unknown))}")
        try:
            out = cls(
                **{
                    k: (
                        None
                        if (k in ("support_side", "window") and v is None)
                        else int(v)
                        if k in ("grid", "window")
                        else float(v)
                    )
                    for k, v in value.items()
                }
            )
        except (TypeError, ValueError) as exc:
            raise ModelError(f"small_dice: not a number in {value!r}") from exc
        if out.window is not None and (out.window < 64 or out.window % 32):
            raise ModelError(f"small_dice: window must be a multiple of 32 px, 64 or more, not {out.window}")
        if out.support_side is not None and not out.max_side <= out.support_side <= 1.0:
            raise ModelError(
                f"small_dice: support_side must lie between max_side ({out.max_side}) and 1, "
                f"not {out.support_side}"
            )
        if out.grid < 2 or out.grid > 6:
            raise ModelError(f"small_dice: grid must be 2 to 6 tiles per side, not {out.grid}")
        if not 0.0 <= out.overlap < 0.5:
            raise ModelError(
                f"small_dice: overlap must be a share of a tile from 0 to 0.5, not {out.overlap}"
            )
        if not 0.0 < out.max_side <= 1.0:
            raise ModelError(f"small_dice: max_side must be a share of the frame above 0, not {out.max_side}")
        if not 0.0 < out.same_die <= 1.0:
            raise ModelError(f"small_dice: same_die must be an IoU above 0, not {out.same_die}")
        return out

    def windows(self, w: int, h: int) -> list[tuple[int, int, int, int]]:
        """The tiles (x1, y1, x2, y2) of a ``w`` x ``h`` frame: square where the frame allows, each
        ``1 / (grid - (grid - 1) * overlap)`` of the longer side, spread evenly from edge to edge."""
        side = max(w, h) / (self.grid - (self.grid - 1) * self.overlap)
        tw, th = min(side, w), min(side, h)
        xs = np.linspace(0, w - tw, self.grid)
        ys = np.linspace(0, h - th, self.grid)
        tiles = {
            (int(round(x)), int(round(y)), int(round(x + tw)), int(round(y + th))) for y in ys for x in xs
        }
        return sorted(tiles, key=lambda t: (t[1], t[0]))

    def whole_in_tile(self, boxes: np.ndarray, tile: tuple[int, int, int, int], w: int, h: int) -> np.ndarray:
        """Mask of the boxes (frame pixels) that no inner edge of ``tile`` cuts."""
        x1, y1, x2, y2 = tile
        ok = np.ones(len(boxes), bool)
        if x1 > 0:
            ok &= boxes[:, 0] > x1 + EDGE_PX
        if y1 > 0:
            ok &= boxes[:, 1] > y1 + EDGE_PX
        if x2 < w:
            ok &= boxes[:, 2] < x2 - EDGE_PX
        if y2 < h:
            ok &= boxes[:, 3] < y2 - EDGE_PX
        return ok

    def is_small(self, boxes: np.ndarray, w: int, h: int) -> np.ndarray:
        return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) < self.max_side * max(w, h)

    def worth_a_look(
        self, whole: Detections, tile: tuple[int, int, int, int], conf: float, w: int, h: int
    ) -> bool:
        """Whether a box from ``tile`` could reach ``conf`` after ``merge``; a tile that could not is
        not run.  A tile box reaches ``conf`` only with a supporting whole-frame box scored at least
        ``conf**2`` (its own score is at most 1), which overlaps it at IoU >= ``same_die``, so lies in
        the tile and is at most ``1 / same_die`` times the tile box's sides.  Below a ``conf`` of
        0.001 an unsupported tile box (1e-6 support) can pass too, and every tile is run.  With
        ``support_side`` set, only supporting boxes under that share of the frame's longer side open a
        tile (not exact: a setting, chosen by rule in models/d6/CHANGELOG.md)."""
        if conf <= 1e-3:
            return True
        if not len(whole):
            return False
        x1, y1, x2, y2 = tile
        b = whole.xyxy
        near = (b[:, 0] < x2) & (b[:, 2] > x1) & (b[:, 1] < y2) & (b[:, 3] > y1)
        limit = self.max_side / self.same_die if self.support_side is None else self.support_side
        fits = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) < limit * max(w, h)
        return bool((near & fits & (whole.confidence >= conf * conf)).any())

    def supports(self, whole: Detections, conf: float, w: int, h: int) -> np.ndarray:
        """Indices of the whole-frame boxes that open a tile (``worth_a_look``'s supporting boxes,
        wherever they lie), highest score first."""
        b = whole.xyxy.reshape(-1, 4)
        limit = self.max_side / self.same_die if self.support_side is None else self.support_side
        fits = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) < limit * max(w, h)
        idx = np.flatnonzero(fits & (whole.confidence >= conf * conf))
        return idx[np.argsort(-whole.confidence[idx], kind="stable")]

    def tile_scale(self, imgsz: int, w: int, h: int) -> float:
        """How much a tile is enlarged to reach the detector's ``imgsz`` input."""
        x1, y1, x2, y2 = self.windows(w, h)[0]
        return imgsz / max(x2 - x1, y2 - y1)

    def windows_around(
        self, whole: Detections, conf: float, w: int, h: int, imgsz: int
    ) -> list[tuple[int, int, int, int]]:
        """Squares of the frame (x1, y1, x2, y2), each ``window`` detector px at the tiles' scale, placed
        greedily on the supporting boxes (highest score first) until every supporting box, with a margin
        of ``max_side`` of the frame round it, lies inside one (or reaches the frame's edge there)."""
        if self.window is None:
            raise ValueError("no window size set")
        side = min(self.window / self.tile_scale(imgsz, w, h), float(max(w, h)))
        pad = self.max_side * max(w, h)
        b = whole.xyxy.reshape(-1, 4)
        need = np.clip(b + [-pad, -pad, pad, pad], 0, [w, h, w, h])
        out: list[tuple[int, int, int, int]] = []
        left = list(self.supports(whole, conf, w, h))
        while left:
            i = left[0]
            cx, cy = (b[i, 0] + b[i, 2]) / 2, (b[i, 1] + b[i, 3]) / 2
            x1 = int(round(min(max(cx - side / 2, 0.0), max(w - side, 0.0))))
            y1 = int(round(min(max(cy - side / 2, 0.0), max(h - side, 0.0))))
            win = (x1, y1, min(int(round(x1 + side)), w), min(int(round(y1 + side)), h))
            out.append(win)
            inside = [
                j
                for j in left[1:]
                if need[j, 0] >= win[0]
                and need[j, 1] >= win[1]
                and need[j, 2] <= win[2]
                and need[j, 3] <= win[3]
            ]
            left = [j for j in left[1:] if j not in inside]
        return out

    def merge(self, whole: Detections, tiles: Detections, conf: float) -> Detections:
        """The dice of the whole frame and of the tiles, one box per die.

        ``whole``: the whole frame's boxes kept down to ``SUPPORT_FLOOR``; ``tiles``: the tiles' small
        boxes kept at ``conf``.  A tile box scores the geometric mean of its own score and the best
        score of the whole-frame boxes it overlaps at IoU >= ``same_die`` (1e-6 where none does): a die
        the whole frame saw faintly rises, a speck that only an enlarged tile took for a die sinks.
        Then the whole frame's boxes at ``conf`` and the tiles' boxes go through one more suppression
        at IoU ``same_die`` (the higher score keeps its box)."""
        support = np.zeros(len(tiles))
        if len(tiles) and len(whole):
            overlap = box_iou(tiles.xyxy, whole.xyxy) >= self.same_die
            support = np.where(overlap, whole.confidence[None, :], 0.0).max(1)
        fused = np.sqrt(tiles.confidence * np.maximum(support, 1e-6))
        whole = whole[np.flatnonzero(whole.confidence >= conf)]
        boxes = np.concatenate([whole.xyxy, tiles.xyxy])
        scores = np.concatenate([whole.confidence, fused])
        classes = np.concatenate([whole.class_id, tiles.class_id])
        if not len(boxes):
            return Detections.empty()
        idx = kept_by_nms(boxes, scores, conf, self.same_die)
        return Detections(boxes[idx], scores[idx].astype(float), classes[idx].astype(int))
