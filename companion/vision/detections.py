"""``Detections``: every die found in one frame, as one dataclass of numpy arrays.

Modelled on supervision's Detections: index it with a boolean mask or an index array to
filter, ``len()`` counts the dice.  Face fields are filled by the face reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np


@dataclass
class Detections:
    xyxy: np.ndarray  # (n, 4) float pixels
    confidence: np.ndarray  # (n,) detector score
    class_id: np.ndarray  # (n,) detector class (die kind for Dragon Dice, "die" for pip d6)
    face_id: np.ndarray = field(default=None)  # (n,) index into the face vocabulary
    face_confidence: np.ndarray = field(default=None)
    count: np.ndarray = field(default=None)  # (n,) number printed on the face (-1 if the model has none)
    count_confidence: np.ndarray = field(default=None)
    face_probs: np.ndarray = field(default=None)  # (n, n_faces)
    count_probs: np.ndarray = field(default=None)  # (n, n_counts) or (n, 0)
    kind_confidence: np.ndarray = field(
        default=None
    )  # (n,) how sure the die kind (class_id) is; 1 if untested
    embedding: np.ndarray = field(default=None)  # (n, dim) face embeddings (a bundle with a table profile)
    cocked_prob: np.ndarray = field(default=None)  # (n,) p(cocked) from the embedding network's geometry head
    # (n,) bool: the box was moved by a box refiner (``box_refine``; ``numerals.NumeralModel.find_dice``)
    refined: np.ndarray = field(default=None)

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        self.xyxy = np.asarray(self.xyxy, float).reshape(n, 4)
        defaults = {
            "face_id": (-1, int),
            "face_confidence": (0.0, float),
            "count": (-1, int),
            "count_confidence": (0.0, float),
            "kind_confidence": (1.0, float),
        }
        for name, (value, dtype) in defaults.items():
            if getattr(self, name) is None:
                setattr(self, name, np.full(n, value, dtype))
        if self.face_probs is None:
            self.face_probs = np.zeros((n, 0))
        if self.count_probs is None:
            self.count_probs = np.zeros((n, 0))
        if self.embedding is None:
            self.embedding = np.zeros((n, 0), np.float32)
        if self.cocked_prob is None:
            self.cocked_prob = np.zeros(n)
        if self.refined is None:
            self.refined = np.zeros(n, bool)

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4)), np.zeros(0), np.zeros(0, int))

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index) -> Detections:
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Detections(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    @property
    def area(self) -> np.ndarray:
        return (self.xyxy[:, 2] - self.xyxy[:, 0]) * (self.xyxy[:, 3] - self.xyxy[:, 1])


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU matrix between (n,4) and (m,4) xyxy boxes."""
    a, b = np.asarray(a, float).reshape(-1, 4), np.asarray(b, float).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(rb - lt, 0, None).prod(2)
    area_a = (a[:, 2:] - a[:, :2]).prod(1)
    area_b = (b[:, 2:] - b[:, :2]).prod(1)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def kept_by_nms(boxes: np.ndarray, scores: np.ndarray, conf: float, iou: float) -> np.ndarray:
    """Indices of the xyxy ``boxes`` that non-maximum suppression keeps (scores at ``conf`` or more; a box
    overlapping a higher-scored kept one at IoU above ``iou`` goes), highest score first (OpenCV's)."""
    import cv2  # noqa: PLC0415

    idx = cv2.dnn.NMSBoxes(
        [[float(b[0]), float(b[1]), float(b[2] - b[0]), float(b[3] - b[1])] for b in boxes],
        np.asarray(scores, float).tolist(),
        conf,
        iou,
    )
    return np.array(idx, int).reshape(-1)


def same_dice(boxes: np.ndarray, scores: np.ndarray, same_die: float | None) -> np.ndarray:
    """Indices (in order) of ``boxes`` to keep when two overlapping at IoU above ``same_die`` are one die:
    the lower-scored one goes (every index where ``same_die`` is None).  A finder keeps boxes that overlap
    at up to its own NMS IoU, and a box refiner moves two boxes of one die onto the same edges: read
    both, and the die counts twice in a roll."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    if same_die is None or len(boxes) < 2:
        return np.arange(len(boxes))
    return np.sort(kept_by_nms(boxes, scores, 0.0, same_die))


def box_problem(box, w: int, h: int) -> str | None:
    """Why ``box`` is not one die's box ``[x1, y1, x2, y2]`` (a list of numbers) inside a ``w`` x ``h``
    frame, or None when it is.  Callers put it into their own error naming where the box came from."""
    if not (
        isinstance(box, list)
        and len(box) == 4
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box)  # true is no number
    ):
        return f"must be [x1, y1, x2, y2], four numbers, not {box!r}"
    x1, y1, x2, y2 = box
    if not (0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h):
        return f"{box} is not inside the {w}x{h} frame"
    if x2 - x1 < 1 or y2 - y1 < 1:
        return f"{box} is {x2 - x1:g} x {y2 - y1:g} px: a die's box is at least 1 px each way"
    return None
