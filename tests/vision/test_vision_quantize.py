"""8-bit copies of a bundle's networks: the copy finds the dice the float bundle finds, and bad requests
are refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from companion.vision.detections import box_iou
from companion.vision.reader import DiceModel, resolve_model
from companion.vision.train.quantize import quantize_bundle

D6_FIXTURES = Path(__file__).parent / "fixtures" / "d6"


@pytest.fixture(scope="module")
def int8_bundle(tmp_path_factory) -> Path:
    pytest.importorskip("onnxruntime.quantization")
    out = tmp_path_factory.mktemp("q") / "d6-int8"
    return quantize_bundle("d6", D6_FIXTURES, out, photos_used=4)


def test_the_copy_is_quantised_and_says_so(int8_bundle):
    import onnx  # noqa: PLC0415

    meta = json.loads((int8_bundle / "model.json").read_text())
    assert meta["quantized"]["networks"] == ["detector", "face"]
    assert "4 photos" in meta["quantized"]["calibration"]
    for name in ("detector.onnx", "face.onnx"):
        ops = {n.op_type for n in onnx.load(str(int8_bundle / name)).graph.node}
        assert "QuantizeLinear" in ops and "DequantizeLinear" in ops
        assert (int8_bundle / name).stat().st_size < (resolve_model("d6") / name).stat().st_size / 2


def test_the_copy_finds_and_reads_the_dice_the_float_bundle_does(int8_bundle):
    plain, q = DiceModel(resolve_model("d6")), DiceModel(int8_bundle)
    matched = total = same_face = 0
    for photo in sorted((D6_FIXTURES / "val" / "images").glob("*.jpg"))[:6]:
        image = cv2.imread(str(photo))
        a, b = plain.detect(image), q.detect(image)
        total += len(a)
        if len(a) and len(b):
            iou = box_iou(a.xyxy, b.xyxy)
            hit = iou.max(1) >= 0.7
            matched += int(hit.sum())
            same_face += int((a.face_id[hit] == b.face_id[iou.argmax(1)[hit]]).sum())
    assert total >= 10
    assert matched >= 0.9 * total and same_face >= 0.9 * matched


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"networks": ("detector", "sieve")}, "networks must be among detector, face, not sieve"),
        ({"recipe": "fp4"}, "recipe must be one of"),
    ],
)
def test_bad_requests_are_refused_and_write_nothing(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        quantize_bundle("d6", D6_FIXTURES, tmp_path / "out", **kwargs)
    assert not (tmp_path / "out").exists()


def test_an_empty_photo_folder_or_an_existing_output_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no data.yaml"):
        quantize_bundle("d6", tmp_path / "empty", tmp_path / "out")
    (tmp_path / "taken").mkdir()
    with pytest.raises(FileExistsError, match="exists"):
        quantize_bundle("d6", D6_FIXTURES, tmp_path / "taken")
    assert list((tmp_path / "taken").iterdir()) == []
