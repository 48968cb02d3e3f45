"""Box voting: a kept box becomes the score-weighted mean of the candidate boxes that overlap it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.bundle import reading_settings
from companion.vision.detector import vote_boxes
from companion.vision.reader import DiceModel, ModelError

D6 = Path(__file__).resolve().parents[2] / "models" / "d6"
D6_PHOTOS = Path(__file__).parent / "fixtures" / "d6" / "val" / "images"


def test_vote_is_the_score_weighted_mean_of_overlapping_candidates():
    kept = np.array([[10, 10, 50, 50]], float)
    candidates = np.array([[10, 10, 50, 50], [12, 12, 52, 52], [100, 100, 140, 140]], float)
    scores = np.array([0.9, 0.3, 0.8])
    voted = vote_boxes(kept, candidates, scores, 0.6)
    # the far box (IoU 0) takes no part; (0.9 * 10 + 0.3 * 12) / 1.2 = 10.5
    assert voted.tolist() == [[10.5, 10.5, 50.5, 50.5]]


def test_candidates_under_the_threshold_do_not_vote():
    kept = np.array([[0, 0, 10, 10]], float)
    near = np.array([[0, 0, 10, 10], [5, 0, 15, 10]], float)  # IoU 1/3
    assert vote_boxes(kept, near, np.array([0.5, 0.9]), 0.5).tolist() == [[0, 0, 10, 10]]
    shift = 5 * 0.9 / 1.4
    assert np.allclose(vote_boxes(kept, near, np.array([0.5, 0.9]), 0.3), [[shift, 0, 10 + shift, 10]])


def test_vote_keeps_boxes_with_no_candidates_and_handles_empty_input():
    kept = np.array([[0, 0, 10, 10]], float)
    assert vote_boxes(kept, np.zeros((0, 4)), np.zeros(0), 0.6).tolist() == kept.tolist()
    assert vote_boxes(np.zeros((0, 4)), kept, np.ones(1), 0.6).shape == (0, 4)


def _bundle(tmp_path: Path, vote) -> Path:
    """The shipped d6 bundle (its networks linked, not copied) with ``box_vote`` set to ``vote``."""
    out = tmp_path / f"d6-{vote}"
    out.mkdir()
    for name in ("detector.onnx", "face.onnx"):
        (out / name).symlink_to(D6 / name)
    meta = json.loads((D6 / "model.json").read_text())
    meta["box_vote"] = vote
    (out / "model.json").write_text(json.dumps(meta))
    return out


def test_fine_tuning_carries_the_vote_with_the_other_reading_settings():
    meta = {"name": "d6", "imgsz": 512, "conf": 0.25, "box_vote": 0.6, "face_turns": 8, "crop": {"size": 64}}
    assert reading_settings(meta) == {"conf": 0.25, "box_vote": 0.6, "face_turns": 8}
    assert reading_settings(json.loads((D6 / "model.json").read_text()))["box_vote"] == 0.6  # shipped setting


def test_bundle_setting_reaches_the_detector_and_bad_values_are_refused(tmp_path):
    photo = cv2.imread(str(sorted(D6_PHOTOS.glob("*.jpg"))[0]))
    plain = DiceModel(_bundle(tmp_path, 0.0)).detector(photo)
    voted = DiceModel(_bundle(tmp_path, 0.6)).detector(photo)
    # the same dice at the same confidences, only the boxes move (a little)
    assert len(plain) == len(voted) > 0
    assert np.array_equal(plain.confidence, voted.confidence) and np.array_equal(
        plain.class_id, voted.class_id
    )
    assert not np.array_equal(plain.xyxy, voted.xyxy)
    assert np.abs(plain.xyxy - voted.xyxy).max() < 0.25 * (plain.xyxy[:, 2:] - plain.xyxy[:, :2]).max()
    for bad in (1.0, -0.1):
        with pytest.raises(ModelError, match="box_vote"):
            DiceModel(_bundle(tmp_path, bad))
