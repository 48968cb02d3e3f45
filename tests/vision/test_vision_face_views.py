"""Shifted views: the face reader reads each die's crop also moved a little each way and averages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from companion.vision.crops import crop_die
from companion.vision.reader import DiceModel, ModelError, read_image, shifted_boxes

FIXTURES = Path(__file__).parent / "fixtures" / "dd"
SHIPPED = Path(__file__).resolve().parents[2] / "models" / "dragon-dice"


def test_no_shift_keeps_one_view_per_box():
    boxes = np.array([[10, 20, 50, 40], [0, 0, 8, 8]], float)
    views = shifted_boxes(boxes, 0.0)
    assert views.shape == (2, 1, 4) and np.array_equal(views[:, 0], boxes)
    assert shifted_boxes(np.zeros((0, 4)), 0.1).shape == (0, 5, 4)


def test_shifted_views_move_by_a_share_of_the_box():
    views = shifted_boxes(np.array([[10, 20, 50, 40]], float), 0.1)[0]  # 40 wide, 20 high
    assert views.tolist() == [
        [10, 20, 50, 40],
        [14, 20, 54, 40],
        [6, 20, 46, 40],
        [10, 22, 50, 42],
        [10, 18, 50, 38],
    ]
    assert np.allclose(views[:, 2] - views[:, 0], 40) and np.allclose(views[:, 3] - views[:, 1], 20)


def _bundle(tmp_path: Path, shift) -> Path:
    out = tmp_path / f"dd-{shift}"
    shutil.copytree(SHIPPED, out, ignore=shutil.ignore_patterns("*.pt", "*.png"))
    meta = json.loads((out / "model.json").read_text())
    meta["face_shift"] = shift
    (out / "model.json").write_text(json.dumps(meta))
    return out


def test_the_reading_is_the_mean_over_the_shifted_crops(tmp_path):
    image = read_image(next(iter(sorted((FIXTURES / "train" / "images").glob("*.jpg")))))
    plain, shifted = DiceModel(_bundle(tmp_path, 0.0)), DiceModel(_bundle(tmp_path, 0.05))
    raw = plain.detector(image)
    assert len(raw) >= 2
    det = shifted.detect(image)
    # the finder's boxes, less any the veto drops; each box's icon probabilities are the mean of what
    # the reader gives its five crops
    assert 2 <= len(det) <= len(raw)
    for i in range(len(det)):
        k = int(np.argmin(np.abs(raw.xyxy - det.xyxy[i]).sum(1)))
        crops = np.stack(
            [
                crop_die(image, b, shifted.crop_size, shifted.crop_margin)
                for b in shifted_boxes(raw.xyxy[k : k + 1], 0.05)[0]
            ]
        )
        assert np.allclose(det.face_probs[i], shifted.faces(crops)["icon"].mean(0), atol=1e-5)
    one = plain.detect(image)
    same = [int(np.argmin(np.abs(one.xyxy - b).sum(1))) for b in det.xyxy]
    assert not np.allclose(one.face_probs[same], det.face_probs, atol=1e-4)  # one view reads otherwise


@pytest.mark.parametrize("shift", [-0.1, 0.5, 2])
def test_a_shift_out_of_range_is_refused(tmp_path, shift):
    with pytest.raises(ModelError, match="face_shift"):
        DiceModel(_bundle(tmp_path, shift))


def test_a_frame_without_dice_reads_nothing_with_shifted_views(tmp_path):
    model = DiceModel(_bundle(tmp_path, 0.05))
    blank = np.full((320, 320, 3), 128, np.uint8)
    assert len(model.detect(blank)) == 0 and model.readings(blank) == []
