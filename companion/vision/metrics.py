"""Detection metrics: mAP50, mAP50-95 (COCO-style, 101-point), recall, confusion matrix, face accuracy.

Plain numpy; the same numbers as a standard YOLO validator up to its interpolation details.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.detections import box_iou

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)


@dataclass
class ImageResult:
    gt_boxes: np.ndarray  # (m, 4)
    gt_classes: np.ndarray  # (m,)
    boxes: np.ndarray  # (n, 4)
    scores: np.ndarray  # (n,)
    classes: np.ndarray  # (n,)
    gt_faces: list = field(default_factory=list)  # optional, per gt: (icon, count, cocked)
    faces: list = field(default_factory=list)  # optional, per detection: (icon, count, cocked)


def _match(res: ImageResult) -> np.ndarray:
    """(n, 10) bool: detection i is a true positive at each IoU threshold (same class, greedy by score)."""
    n = len(res.boxes)
    tp = np.zeros((n, len(IOU_THRESHOLDS)), bool)
    if n == 0 or len(res.gt_boxes) == 0:
        return tp
    iou = box_iou(res.boxes, res.gt_boxes)
    iou[res.classes[:, None] != res.gt_classes[None, :]] = 0
    order = np.argsort(-res.scores)
    for t, thr in enumerate(IOU_THRESHOLDS):
        taken = np.zeros(len(res.gt_boxes), bool)
        for i in order:
            cand = np.where((iou[i] >= thr) & ~taken)[0]
            if len(cand):
                j = cand[np.argmax(iou[i, cand])]
                taken[j] = True
                tp[i, t] = True
    return tp


def _ap(recall: np.ndarray, precision: np.ndarray) -> float:
    mrec = np.concatenate([[0.0], recall, [1.0]])
    mpre = np.concatenate([[1.0], precision, [0.0]])
    mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
    x = np.linspace(0, 1, 101)
    return float(np.trapezoid(np.interp(x, mrec, mpre), x))


def detection_metrics(results: list[ImageResult], nc: int) -> dict:
    tps, confs, pcls = [], [], []
    gt_counts = np.zeros(nc, int)
    for r in results:
        tps.append(_match(r))
        confs.append(r.scores)
        pcls.append(r.classes)
        gt_counts += np.bincount(r.gt_classes.astype(int), minlength=nc)[:nc]
    tp = np.concatenate(tps) if tps else np.zeros((0, 10), bool)
    conf = np.concatenate(confs) if confs else np.zeros(0)
    pc = np.concatenate(pcls) if pcls else np.zeros(0, int)
    ap = np.zeros((nc, len(IOU_THRESHOLDS)))
    for c in range(nc):
        sel = pc == c
        if gt_counts[c] == 0:
            ap[c] = np.nan
            continue
        if not sel.any():
            continue
        order = np.argsort(-conf[sel])
        t = tp[sel][order]
        ctp = np.cumsum(t, 0)
        cfp = np.cumsum(~t, 0)
        rec = ctp / gt_counts[c]
        prec = ctp / np.maximum(ctp + cfp, 1e-9)
        for k in range(len(IOU_THRESHOLDS)):
            ap[c, k] = _ap(rec[:, k], prec[:, k])
    present = gt_counts > 0
    return {
        "map50": float(np.nanmean(ap[present, 0])) if present.any() else 0.0,
        "map50_95": float(np.nanmean(ap[present])) if present.any() else 0.0,
        "ap50_per_class": [None if not present[c] else round(float(ap[c, 0]), 4) for c in range(nc)],
        "instances": int(gt_counts.sum()),
    }


def confusion_matrix(
    results: list[ImageResult], nc: int, conf: float = 0.25, iou: float = 0.45
) -> np.ndarray:
    """(nc+1, nc+1): rows predicted class (last = missed), columns true class (last = background)."""
    m = np.zeros((nc + 1, nc + 1), int)
    for r in results:
        keep = r.scores >= conf
        boxes, classes = r.boxes[keep], r.classes[keep]
        used = np.zeros(len(boxes), bool)
        if len(boxes) and len(r.gt_boxes):
            ious = box_iou(r.gt_boxes, boxes)
        else:
            ious = np.zeros((len(r.gt_boxes), len(boxes)))
        for g in np.argsort(-ious.max(1) if ious.size else np.zeros(len(r.gt_boxes))):
            cand = np.where((ious[g] >= iou) & ~used)[0] if ious.size else []
            if len(cand):
                j = cand[np.argmax(ious[g, cand])]
                used[j] = True
                m[classes[j], r.gt_classes[g]] += 1
            else:
                m[nc, r.gt_classes[g]] += 1
        for j in np.where(~used)[0]:
            m[classes[j], nc] += 1
    return m


SIZE_BUCKETS = (25.0, 40.0)  # die sizes (longest box side, px) where a d6 detector's recall changes most


def recall_by_size(results: list[ImageResult], edges=SIZE_BUCKETS, iou: float = 0.5) -> dict:
    """Share of the true dice that some box overlaps at IoU >= ``iou``, per die size: the longest
    side of the true box in pixels, cut at ``edges`` (``"<25"``, ``"25-40"``, ``">=40"`` by default)."""
    names = [f"<{edges[0]:g}"] + [f"{a:g}-{b:g}" for a, b in itertools.pairwise(edges)] + [f">={edges[-1]:g}"]
    dice, found = np.zeros(len(names), int), np.zeros(len(names), int)
    for r in results:
        if not len(r.gt_boxes):
            continue
        side = np.maximum(r.gt_boxes[:, 2] - r.gt_boxes[:, 0], r.gt_boxes[:, 3] - r.gt_boxes[:, 1])
        bucket = np.searchsorted(np.asarray(edges, float), side, side="right")
        hit = box_iou(r.gt_boxes, r.boxes).max(1) >= iou if len(r.boxes) else np.zeros(len(side), bool)
        np.add.at(dice, bucket, 1)
        np.add.at(found, bucket, hit.astype(int))
    return {
        n: {"dice": int(d), "found": int(f), "recall": round(f / d, 4) if d else None}
        for n, d, f in zip(names, dice, found, strict=True)
    }


def face_accuracy(results: list[ImageResult], iou: float = 0.5) -> dict:
    """Per-die reading accuracy: a true die counts as read right when a box overlaps it (IoU >= iou)
    and its face reading (icon, count) matches; a cocked die counts as right when flagged cocked."""
    total = detected = correct = 0
    for r in results:
        if not r.gt_faces:
            continue
        ious = (
            box_iou(r.gt_boxes, r.boxes)
            if len(r.boxes) and len(r.gt_boxes)
            else np.zeros((len(r.gt_boxes), 0))
        )
        used = set()
        for g in range(len(r.gt_boxes)):
            total += 1
            if ious.shape[1] == 0:
                continue
            order = [j for j in np.argsort(-ious[g]) if ious[g, j] >= iou and j not in used]
            if not order:
                continue
            j = order[0]
            used.add(j)
            detected += 1
            gi, gc, gcock = r.gt_faces[g]
            pi, pcnt, pcock = r.faces[j]
            if (gcock and pcock) or (
                not gcock and not pcock and pi == gi and (gc is None or pc_eq(pcnt, gc))
            ):
                correct += 1
    return {
        "dice": total,
        "detected": detected,
        "read_correctly": correct,
        "recall": detected / total if total else 0.0,
        "face_accuracy": correct / total if total else 0.0,
        "face_accuracy_detected": correct / detected if detected else 0.0,
    }


def pc_eq(a, b) -> bool:
    return a is not None and int(a) == int(b)


def confusion_png(matrix: np.ndarray, names: list[str], path, title: str = "confusion matrix") -> None:
    """Write the confusion matrix as a PNG heat map (rows predicted, columns true)."""
    labels = list(names) + ["background"]
    n = len(labels)
    cell = max(18, min(60, 900 // n))
    pad_l, pad_t = 150, 150
    img = np.full((pad_t + cell * n + 20, pad_l + cell * n + 20, 3), 255, np.uint8)
    col_tot = matrix.sum(0, keepdims=True).clip(min=1)
    norm = matrix / col_tot
    for i in range(n):
        for j in range(n):
            v = norm[i, j]
            colour = tuple(int(c) for c in (255 - 200 * v, 255 - 120 * v, 255 - 30 * v))
            x, y = pad_l + j * cell, pad_t + i * cell
            cv2.rectangle(img, (x, y), (x + cell, y + cell), colour, -1)
            cv2.rectangle(img, (x, y), (x + cell, y + cell), (200, 200, 200), 1)
            if matrix[i, j] and cell >= 24:
                cv2.putText(
                    img,
                    str(matrix[i, j]),
                    (x + 3, y + cell // 2 + 4),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    0.33,
                    (0, 0, 0) if v < 0.6 else (255, 255, 255),
                    1,
                    cv2.LINE_AA,
                )
    fs = 0.4 if cell >= 24 else 0.3
    for k, name in enumerate(labels):
        cv2.putText(
            img,
            name[:18],
            (4, pad_t + k * cell + cell // 2 + 4),
            cv2.FONT_HERSHEY_SIMPLEX,
            fs,
            (0, 0, 0),
            1,
            cv2.LINE_AA,
        )
        tmp = np.full((cell, pad_t - 10, 3), 255, np.uint8)
        cv2.putText(
            tmp, name[:18], (2, cell // 2 + 4), cv2.FONT_HERSHEY_SIMPLEX, fs, (0, 0, 0), 1, cv2.LINE_AA
        )
        rot = cv2.rotate(tmp, cv2.ROTATE_90_COUNTERCLOCKWISE)
        x = pad_l + k * cell
        img[5 : 5 + rot.shape[0], x : x + rot.shape[1]] = np.minimum(
            img[5 : 5 + rot.shape[0], x : x + rot.shape[1]], rot
        )
    cv2.putText(
        img,
        f"{title} (rows: predicted, columns: true)",
        (pad_l, pad_t - 8 if pad_t > 20 else 12),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.4,
        (0, 0, 0),
        1,
        cv2.LINE_AA,
    )
    if not cv2.imwrite(str(path), img):
        raise OSError(f"could not write {path}")
