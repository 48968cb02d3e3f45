"""Test-time turns of the face reader: the averaged reading cannot depend on how the die lies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.vision.reader import ModelError, OnnxFaceReader

D6 = Path(__file__).resolve().parents[2] / "models" / "d6"


@pytest.fixture(scope="module")
def crops() -> np.ndarray:
    rng = np.random.default_rng(5)
    return rng.integers(0, 256, (3, 64, 64, 3), dtype=np.uint8)


def _reader(turns: int) -> OnnxFaceReader:
    heads = json.loads((D6 / "model.json").read_text())["face_heads"]
    return OnnxFaceReader(D6 / "face.onnx", heads, turns)


def test_four_turns_read_a_turned_crop_the_same(crops):
    read = _reader(4)
    turned = np.ascontiguousarray(np.rot90(crops, 1, (1, 2)))
    assert np.allclose(read(crops)["icon"], read(turned)["icon"], atol=1e-5)
    # one turn is not invariant: the test would catch turns being ignored
    one = _reader(1)
    assert not np.allclose(one(crops)["icon"], one(turned)["icon"], atol=1e-5)


def test_eight_turns_read_a_mirrored_crop_the_same(crops):
    mirrored = np.ascontiguousarray(crops[:, :, ::-1])
    assert np.allclose(_reader(8)(crops)["icon"], _reader(8)(mirrored)["icon"], atol=1e-5)
    assert not np.allclose(_reader(4)(crops)["icon"], _reader(4)(mirrored)["icon"], atol=1e-5)
    assert np.allclose(_reader(8)(crops)["icon"].sum(1), 1.0)


@pytest.mark.parametrize("turns", [0, 3, 16])
def test_an_unknown_number_of_views_is_refused(turns):
    with pytest.raises(ModelError, match="face_turns"):
        _reader(turns)


def test_many_crops_are_read_in_batches_as_one_run_reads_them():
    many = np.random.default_rng(9).integers(0, 256, (7, 64, 64, 3), dtype=np.uint8)
    read = _reader(4)
    whole = read(many)
    read.batch = 3  # 3 + 3 + 1
    parts = read(many)
    assert set(parts) == set(whole)
    for k in whole:
        assert parts[k].shape == whole[k].shape and np.allclose(parts[k], whole[k], atol=1e-5)
