"""``rect`` in a bundle's model.json: a frame that is not square read at its own shape (no grey bars) by
a detector of free input size.  Off in every shipped bundle (models/d6/CHANGELOG.md: tried, not shipped)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.bundle import reading_settings
from companion.vision.detector import letterbox
from companion.vision.metrics import box_iou
from companion.vision.reader import DiceModel, ModelError, read_image

ROOT = Path(__file__).resolve().parents[2]
D6 = ROOT / "models" / "d6"
PHOTOS = Path(__file__).parent / "fixtures" / "d6" / "val" / "images"


def _bundle(tmp_path: Path, detector: Path, **meta_changes) -> Path:
    out = tmp_path / "bundle"
    out.mkdir(parents=True)
    (out / "detector.onnx").symlink_to(detector)
    (out / "face.onnx").symlink_to(D6 / "face.onnx")
    meta = {**json.loads((D6 / "model.json").read_text()), **meta_changes}
    (out / "model.json").write_text(json.dumps(meta))
    return out


@pytest.mark.parametrize(
    "shape, rect, expected",
    [
        ((720, 1280), True, (288, 512)),
        ((720, 1280), False, (512, 512)),
        ((481, 640), True, (416, 512)),
        ((640, 640), True, (512, 512)),
        ((1280, 720), True, (512, 288)),
    ],
)
def test_letterbox_keeps_the_frames_shape_rounded_up_to_the_stride(shape, rect, expected):
    image = np.zeros((*shape, 3), np.uint8)
    out, scale, (left, top) = letterbox(image, 512, rect=rect)
    assert out.shape[:2] == expected and scale == pytest.approx(512 / max(shape))
    nh, nw = round(shape[0] * scale), round(shape[1] * scale)
    assert (top, left) == ((expected[0] - nh) // 2, (expected[1] - nw) // 2)  # the picture centred
    assert (out[top : top + nh, left : left + nw] == 0).all()  # the frame itself; the rest is grey bars
    assert out.sum() == 114 * 3 * (expected[0] * expected[1] - nh * nw)


def test_rect_reads_a_wide_frame_at_its_own_shape_and_finds_its_dice(tmp_path, monkeypatch):
    """Fails if ``rect`` is ignored: a 16:9 frame goes through the network at 512 x 288, not 512 x 512,
    and the dice come back in the frame's own pixels where the letterboxed reading puts them."""
    photo = read_image(next(PHOTOS.glob("00011_*.jpg")))  # 7 dice
    frame = cv2.resize(photo[140:500], (1280, 720), interpolation=cv2.INTER_LINEAR)
    square = DiceModel(_bundle(tmp_path / "a", D6 / "detector.onnx", small_dice=None))
    rect = DiceModel(_bundle(tmp_path / "b", D6 / "detector.onnx", small_dice=None, rect=True))
    shapes: list = []
    real = rect.detector._decode
    monkeypatch.setattr(
        rect.detector, "_decode", lambda session, lb, *a: shapes.append(lb.shape[:2]) or real(session, lb, *a)
    )
    a, b = square.detect(frame), rect.detect(frame)
    assert shapes == [(288, 512)] and (288, 512) in rect.detector.shaped
    assert len(a) >= 3 and len(b) >= 3
    # each rect box has a letterboxed twin: the two readings see the frame at different shapes, so
    # their boxes differ by a few per cent of a die; boxes mapped back with a wrong scale or offset
    # would miss their twins by far more
    twin = box_iou(b.xyxy, a.xyxy).max(1)
    assert twin.min() >= 0.85 and np.median(twin) >= 0.9, twin
    assert reading_settings(rect.meta)["rect"] is True


def test_rect_needs_a_detector_of_free_input_size(tmp_path):
    """The Dragon Dice detector takes a fixed 448 px input: ``rect`` over it is refused, naming it."""
    with pytest.raises(ModelError, match="rect"):
        DiceModel(
            _bundle(
                tmp_path,
                ROOT / "models" / "dragon-dice" / "detector.onnx",
                imgsz=448,
                small_dice=None,
                rect=True,
            )
        )


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_a_rect_that_is_not_true_or_false_is_refused_naming_it(tmp_path, value):
    with pytest.raises(ModelError, match="rect must be true or false"):
        DiceModel(_bundle(tmp_path, D6 / "detector.onnx", rect=value))
