"""The die finder's optional second look: boxes it adds, and bundles that describe it wrongly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from companion.vision.detections import Detections, add_unmatched
from companion.vision.reader import DiceModel, ModelError, read_image

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "dragon-dice"
SIZE = json.loads((SHIPPED / "model.json").read_text())["imgsz"]  # the shipped finder's input (static ONNX)
FIXTURES = Path(__file__).parent / "fixtures" / "dd"


def _dets(boxes, scores):
    return Detections(np.array(boxes, float).reshape(-1, 4), np.array(scores, float), np.zeros(len(scores), int))


def test_second_look_adds_only_boxes_the_first_look_lacks():
    first = _dets([[0, 0, 10, 10], [50, 50, 60, 60]], [0.9, 0.8])
    second = _dets([[1, 1, 11, 11],      # the first die again, shifted (IoU 0.68): not added
                    [52, 50, 64, 60],    # the second die, a looser box (IoU 0.57): not added
                    [7, 0, 17, 10],      # beside the first (IoU 0.18): a die of its own
                    [100, 100, 110, 110]], [0.7, 0.95, 0.4, 0.3])  # far from both: added
    merged = add_unmatched(first, second, 0.3)
    assert merged.xyxy.tolist() == [[0, 0, 10, 10], [50, 50, 60, 60], [7, 0, 17, 10], [100, 100, 110, 110]]
    assert merged.confidence.tolist() == [0.9, 0.8, 0.4, 0.3]  # the first look's boxes keep their scores
    assert len(add_unmatched(first, second, 0.1)) == 3  # stricter: the neighbour counts as the first die
    assert len(add_unmatched(Detections.empty(), second, 0.3)) == 4
    assert add_unmatched(first, Detections.empty(), 0.3) is first


def _bundle(tmp_path, **meta_changes) -> Path:
    out = tmp_path / "bundle"
    shutil.copytree(SHIPPED, out)
    meta = json.loads((out / "model.json").read_text())
    meta.update(meta_changes)
    (out / "model.json").write_text(json.dumps(meta))
    return out


def test_a_second_look_at_the_same_size_adds_nothing(tmp_path):
    # the first look's own boxes overlap themselves: a second look that sees the same never duplicates a die
    out = _bundle(tmp_path, second_look={"imgsz": SIZE, "file": "detector.onnx", "max_iou": 0.3})
    image = read_image(FIXTURES / json.loads((FIXTURES / "manifest.jsonl").read_text().splitlines()[0])["image"])
    model = DiceModel(out)
    once = model.detector(image)
    assert len(once) > 0 and model.find(image).xyxy.tolist() == once.xyxy.tolist()


@pytest.mark.parametrize("look, message", [
    ({"file": "detector.onnx"}, "second_look needs an imgsz"),
    ({"imgsz": "big"}, "second_look needs an imgsz"),
    ({"imgsz": 480, "file": "detector-480.onnx"}, "lacks detector-480.onnx"),
    ({"imgsz": SIZE + 32, "file": "detector.onnx"}, f"takes {SIZE} px input, but the bundle asks for {SIZE + 32} px"),
])
def test_a_bundle_with_a_wrong_second_look_is_refused_by_name(tmp_path, look, message):
    with pytest.raises(ModelError, match=message):
        DiceModel(_bundle(tmp_path, second_look=look))
