"""mAP, recall and face accuracy on hand-made cases."""

from __future__ import annotations

import numpy as np

from companion.vision.metrics import (
    ImageResult,
    confusion_matrix,
    confusion_png,
    detection_metrics,
    face_accuracy,
)

GT = np.array([[0, 0, 10, 10], [20, 20, 40, 40]], float)


def _res(boxes, classes, scores=None, faces=None, gt_faces=None):
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    scores = np.ones(len(boxes)) if scores is None else np.asarray(scores, float)
    return ImageResult(
        GT, np.array([0, 1]), boxes, scores, np.asarray(classes, int), gt_faces or [], faces or []
    )


def test_perfect_predictions_score_one():
    m = detection_metrics([_res(GT, [0, 1])], 2)
    assert m["map50"] >= 0.99 and m["map50_95"] >= 0.99  # 101-point interpolation tops out at 0.995


def test_loose_boxes_pass_at_iou_half_but_not_at_stricter_thresholds():
    loose = GT + np.array([0, 0, 3, 3])  # IoU 0.59 and 0.75
    m = detection_metrics([_res(loose, [0, 1])], 2)
    assert m["map50"] >= 0.99
    assert 0.1 < m["map50_95"] < 0.6


def test_wrong_class_and_missing_boxes_cost_precision_and_recall():
    m = detection_metrics([_res(GT[:1], [1])], 2)
    assert m["map50"] == 0.0
    cm = confusion_matrix([_res(GT[:1], [1])], 2)
    assert cm[1, 0] == 1 and cm[2, 1] == 1  # class 0 read as 1; class 1 missed


def test_face_accuracy_counts_missed_dice_as_wrong_and_cocked_as_right_when_flagged():
    r = _res(
        GT,
        [0, 1],
        faces=[("Melee", 2, False), ("cocked", 0, True)],
        gt_faces=[("Melee", 2, False), ("Save", 1, True)],
    )
    acc = face_accuracy([r])
    assert acc["face_accuracy"] == 1.0 and acc["recall"] == 1.0
    r2 = _res(GT[:1], [0], faces=[("Melee", 3, False)], gt_faces=[("Melee", 2, False), ("Save", 1, False)])
    acc2 = face_accuracy([r2])
    assert acc2["recall"] == 0.5 and acc2["face_accuracy"] == 0.0


def test_confusion_png_is_written(tmp_path):
    import cv2

    cm = confusion_matrix([_res(GT, [0, 1])], 2)
    confusion_png(cm, ["a", "b"], tmp_path / "cm.png")
    img = cv2.imread(str(tmp_path / "cm.png"))
    assert img is not None and img.shape[0] > 100
