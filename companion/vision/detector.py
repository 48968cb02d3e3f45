"""The die finder at run time: a YOLO detector exported to ONNX, read with onnxruntime only.

A frame is letterboxed to the detector's input, the network's candidate boxes are suppressed (and
voted: ``vote_boxes``), and with a ``SmallDicePass`` small dice get a second look over tiles or over
small windows round them (``companion.vision.small_dice``).  A detector exported with a free input
size is pinned by onnxruntime to each size it is read at, so it runs as fast as a fixed-size export.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.vision.detections import Detections, box_iou, kept_by_nms
from companion.vision.onnx_session import ModelError, onnx_session
from companion.vision.small_dice import SUPPORT_FLOOR, SmallDicePass

#: a YOLO detector's coarsest stride: an input side of free size is rounded up to a multiple of it
STRIDE = 32


def letterbox(
    image: np.ndarray, size: int, rect: bool = False
) -> tuple[np.ndarray, float, tuple[float, float]]:
    """``image`` shrunk (or enlarged) to fit ``size`` x ``size`` and centred on grey bars; with ``rect`` the
    bars only round each side up to a multiple of ``STRIDE`` (a 16:9 frame at 512 px: 512 x 288)."""
    h, w = image.shape[:2]
    s = min(size / h, size / w)
    nh, nw = int(round(h * s)), int(round(w * s))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    oh, ow = (-(-nh // STRIDE) * STRIDE, -(-nw // STRIDE) * STRIDE) if rect else (size, size)
    top, left = (oh - nh) // 2, (ow - nw) // 2
    out = np.full((oh, ow, 3), 114, np.uint8)
    out[top : top + nh, left : left + nw] = resized
    return out, s, (left, top)


def vote_boxes(kept: np.ndarray, boxes: np.ndarray, scores: np.ndarray, threshold: float) -> np.ndarray:
    """Box voting: each kept box becomes the score-weighted mean of every candidate box (before
    non-maximum suppression) that overlaps it at IoU >= ``threshold``, itself included.

    The network proposes several slightly different boxes for one die; their weighted mean is
    tighter than the single best one, which is what mAP50-95 rewards (models/d6/MODEL_CARD.md)."""
    kept = np.asarray(kept, float).reshape(-1, 4)
    if not len(kept):
        return kept
    boxes, scores = np.asarray(boxes, float).reshape(-1, 4), np.asarray(scores, float).reshape(-1)
    weights = (box_iou(kept, boxes) >= threshold) * scores[None, :]  # (kept, candidates)
    total = weights.sum(1, keepdims=True)
    return np.where(total > 0, weights @ boxes / np.maximum(total, 1e-12), kept)


def _pins(shape: list, height: int, width: int | None = None) -> dict[str, int]:
    """The free dimensions of a detector's (batch, 3, height, width) input, pinned to one image of
    ``height`` x ``width`` (square when ``width`` is None)."""
    return {
        str(d): v
        for d, v in zip(shape, (1, 3, height, height if width is None else width), strict=True)
        if not isinstance(d, int) and d is not None
    }


class OnnxDetector:
    """A YOLO (v8/11 head) detector exported to ONNX; output (1, 4+nc, anchors).

    ``vote`` > 0 replaces each box kept by non-maximum suppression with the score-weighted mean of
    the candidates of its class that overlap it at that IoU (``vote_boxes``); 0 keeps the boxes as
    the network gave them.  ``small`` (a ``SmallDicePass``) also runs the detector over overlapping
    tiles of the frame, or with its ``window`` set over small windows round the small dice the whole
    frame saw faintly (a second session of the same file, pinned at the window's size), and merges in
    the small dice they find (``companion.vision.small_dice``).
    ``rect`` (a detector of free input size) reads a frame that is not square at its own shape, its
    sides rounded up to a multiple of ``STRIDE`` (a session pinned per shape, opened on first use),
    instead of on a square with grey bars."""

    def __init__(
        self,
        path: Path,
        imgsz: int,
        conf: float = 0.25,
        iou: float = 0.6,
        vote: float = 0.0,
        small: SmallDicePass | None = None,
        rect: bool = False,
    ):
        if not 0.0 <= vote < 1.0:
            raise ModelError(f"box_vote must be 0 (off) or an IoU below 1, not {vote!r}")
        self.session = onnx_session(path)
        inp = self.session.get_inputs()[0]
        self.input = inp.name
        fixed = [d for d in inp.shape[2:] if isinstance(d, int)]
        if fixed and fixed != [imgsz] * len(fixed):
            raise ModelError(f"{path} takes {fixed[0]} px input, but the bundle asks for {imgsz} px")
        self.imgsz, self.conf, self.iou, self.vote, self.small = imgsz, conf, iou, vote, small
        self.window_session = None
        self.path, self.rect, self.shaped = path, rect, {}
        if not fixed and len(inp.shape) == 4:  # a free input size: pinned, so it runs as fast as a fixed one
            self.session = onnx_session(path, _pins(inp.shape, imgsz))
            self.shaped = {(imgsz, imgsz): self.session}  # the sessions ``rect`` reads with, by input shape
            self.input_shape = list(inp.shape)
            if small is not None and small.window is not None:  # the same file, pinned at the window's size
                self.window_session = onnx_session(path, _pins(inp.shape, small.window))
        elif small is not None and small.window is not None:
            raise ModelError(
                f"{path} takes a fixed {imgsz} px input: small_dice 'window' needs a detector exported "
                "with a free input size"
            )
        elif rect:
            raise ModelError(
                f"{path} takes a fixed {imgsz} px input: 'rect' needs a detector of free input size"
            )

    def candidates(self, image: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every box the network scores at ``conf`` or more, before suppression: (boxes in ``image``
        pixels, scores, classes)."""
        lb, s, (left, top) = letterbox(image, self.imgsz, rect=self.rect)
        return self._decode(self._session_for(lb.shape[:2]), lb, conf, s, left, top, image.shape[:2])

    def _session_for(self, shape: tuple[int, int]):
        """The session for an input of ``shape`` (height, width): pinned to it, opened on first use."""
        if not self.rect:
            return self.session
        if shape not in self.shaped:
            self.shaped[shape] = onnx_session(
                self.path, _pins(self.input_shape, int(shape[0]), int(shape[1]))
            )
        return self.shaped[shape]

    def window_candidates(
        self, image: np.ndarray, window: tuple[int, int, int, int], conf: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``candidates`` of one small-die window of the frame, read at the tiles' scale by the window
        session (boxes in frame pixels)."""
        assert self.small is not None and self.small.window is not None and self.window_session is not None
        H, W = image.shape[:2]
        x1, y1, x2, y2 = window
        scale = self.small.tile_scale(self.imgsz, W, H)
        size = self.small.window
        nw, nh = min(int(round((x2 - x1) * scale)), size), min(int(round((y2 - y1) * scale)), size)
        part = cv2.resize(
            image[y1:y2, x1:x2], (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        )
        canvas = np.full((size, size, 3), 114, np.uint8)
        canvas[:nh, :nw] = part
        b, sc, cl = self._decode(self.window_session, canvas, conf, nw / (x2 - x1), 0, 0, (y2 - y1, x2 - x1))
        return b + [x1, y1, x1, y1], sc, cl

    def _decode(self, session, lb: np.ndarray, conf: float, s: float, left: float, top: float, hw):
        x = cv2.cvtColor(lb, cv2.COLOR_BGR2RGB).transpose(2, 0, 1)[None].astype(np.float32) / 255
        out = session.run(None, {self.input: x})[0][0]  # (4+nc, A)
        scores = out[4:]
        cls = scores.argmax(0)
        best = scores[cls, np.arange(scores.shape[1])]
        keep = best >= conf
        cx, cy, w, h = out[:4, keep]
        boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1).reshape(-1, 4)
        H, W = hw
        boxes = np.clip((boxes - [left, top, left, top]) / s, 0, [W, H, W, H])
        return boxes, best[keep], cls[keep]

    def suppress(self, boxes: np.ndarray, sc: np.ndarray, cl: np.ndarray, conf: float) -> Detections:
        """Non-maximum suppression (and box voting) of candidate boxes."""
        if not len(boxes):
            return Detections.empty()
        idx = kept_by_nms(boxes, sc, conf, self.iou)
        kept = boxes[idx].copy()
        if self.vote:
            for c in np.unique(cl[idx]):
                mine = cl[idx] == c
                kept[mine] = vote_boxes(kept[mine], boxes[cl == c], sc[cl == c], self.vote)
        return Detections(kept, sc[idx].astype(float), cl[idx].astype(int))

    def __call__(self, image: np.ndarray, conf: float | None = None) -> Detections:
        conf = self.conf if conf is None else conf
        if self.small is None:
            return self.suppress(*self.candidates(image, conf), conf)
        floor = min(conf, SUPPORT_FLOOR)  # faint whole-frame boxes still vouch for the tiles' boxes
        whole = self.suppress(*self.candidates(image, floor), floor)
        H, W = image.shape[:2]
        parts = []
        tiles = [t for t in self.small.windows(W, H) if self.small.worth_a_look(whole, t, conf, W, H)]
        wins = (
            self.small.windows_around(whole, conf, W, H, self.imgsz)
            if self.window_session is not None and conf > 1e-3
            else None
        )
        # small squares around the boxes that open tiles, unless they would take more pixels than the tiles
        if wins is not None and len(wins) * (self.small.window or 0) ** 2 < len(tiles) * self.imgsz**2:
            for win in wins:
                b, sc, cl = self.window_candidates(image, win, conf)
                keep = self.small.whole_in_tile(b, win, W, H) & self.small.is_small(b, W, H)
                parts.append((b[keep], sc[keep], cl[keep]))
            tiles = []
        for tile in tiles:
            x1, y1, x2, y2 = tile
            b, sc, cl = self.candidates(image[y1:y2, x1:x2], conf)
            b = b + [x1, y1, x1, y1]
            keep = self.small.whole_in_tile(b, tile, W, H) & self.small.is_small(b, W, H)
            parts.append((b[keep], sc[keep], cl[keep]))
        small_found = (
            self.suppress(*(np.concatenate(p) for p in zip(*parts, strict=True)), conf)
            if parts
            else Detections.empty()
        )
        return self.small.merge(whole, small_found, conf)
