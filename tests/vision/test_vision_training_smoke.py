"""A CI-sized training run on the real code path (renders -> detector + face reader -> ONNX bundle),
with every network connection refused, so an attempt to download anything fails the test."""

from __future__ import annotations

import json
import os
import socket

import pytest

from companion.vision.bundle import READING_SETTINGS, train_bundle
from companion.vision.evaluation import evaluate
from companion.vision.reader import DiceModel, read_image
from companion.vision.synth import write_dataset

pytestmark = pytest.mark.train  # training needs torch and ultralytics


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network access attempted during an offline test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.slow
def test_smoke_training_writes_a_bundle_that_reads_and_evaluates(
    tmp_path, catalogue, no_network, monkeypatch
):
    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo-config"))
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mpl"))
    data = tmp_path / "data"
    write_dataset(data, 16, 3, catalogue, size=128, val_fraction=0.25, progress=False)
    bundle = train_bundle(
        data,
        tmp_path / "smoke-model",
        epochs=1,
        imgsz=128,
        face_epochs=1,
        batch=8,
        work=tmp_path / "runs",
        crop_repeats=1,
        progress=False,
    )
    # the offline switches were set and the font was provided locally
    assert os.environ["YOLO_OFFLINE"] == "1" and os.environ["YOLO_AUTOINSTALL"] == "0"
    assert (tmp_path / "yolo-config" / "Ultralytics" / "Arial.ttf").stat().st_size > 10_000
    for name in ("detector.onnx", "face.onnx", "detector.pt", "face.pt", "model.json"):
        assert (bundle / name).stat().st_size > 1000, name
    meta = json.loads((bundle / "model.json").read_text())
    # the detector finds dice; the face reader names kind, icon kind (or cocked) and count
    assert meta["detector_classes"] == ["die"]
    assert meta["face_heads"]["kind"] == ["d4", "d6", "d8", "d10", "d12"]
    assert meta["face_heads"]["icon"][-1] == "cocked"
    assert meta["crop"] == {"size": 80, "margin": 0.9}
    assert ["Melee", 2] in meta["faces_by_kind"]["d6"]
    model = DiceModel(bundle)
    image = read_image(next((data / "train" / "images").glob("*.jpg")))
    readings = model.readings(image)
    h, w = image.shape[:2]
    for r in readings:  # an untrained model may find nothing; whatever it finds is well-formed
        assert 0 <= r.box[0] <= r.box[2] <= w and 0 <= r.box[1] <= r.box[3] <= h
        assert r.kind in meta["face_heads"]["kind"]
    result = evaluate(model, data, progress=False)
    assert result["images"] == 4 and 0.0 <= result["map50"] <= 1.0


def test_offline_prepare_sets_switches_before_ultralytics_loads(tmp_path, monkeypatch):
    from companion.vision import offline

    monkeypatch.delenv("YOLO_OFFLINE", raising=False)
    base = offline.prepare(tmp_path / "cfg")
    assert os.environ["YOLO_OFFLINE"] == "1" and os.environ["YOLO_AUTOINSTALL"] == "0"
    assert os.environ["YOLO_CONFIG_DIR"] == str(base)
    assert (base / "Ultralytics" / "Arial.ttf").is_file()
    import ultralytics.utils.torch_utils as tu

    assert tu.NUM_THREADS == 2


@pytest.mark.slow
def test_finetuning_the_shipped_model_keeps_its_reader_and_reading_settings(
    tmp_path, catalogue, no_network, monkeypatch
):
    import numpy as np
    import torch

    from companion.vision.reader import resolve_model

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo-config"))
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mpl"))
    shipped = resolve_model("dragon-dice")
    data = tmp_path / "data"
    write_dataset(data, 12, 5, catalogue, size=256, val_fraction=0.25, progress=False)
    bundle = train_bundle(
        data,
        tmp_path / "mine",
        epochs=1,
        imgsz=128,
        face_epochs=1,
        batch=8,
        work=tmp_path / "runs",
        crop_repeats=1,
        progress=False,
        finetune=shipped,
    )
    base, meta = (json.loads((b / "model.json").read_text()) for b in (shipped, bundle))
    assert meta["face_heads"] == base["face_heads"] and meta["crop"] == base["crop"]
    for key in READING_SETTINGS:
        assert meta.get(key) == base.get(key), key
    assert meta["finetuned_from"] == "dragon-dice"
    # trained at 128 px, it reads at the shipped model's run-time input (the finder is fully convolutional)
    assert meta["train_imgsz"] == 128 and meta["imgsz"] == base["imgsz"]
    # the die finder starts from the shipped one's weights, class head included (a network rebuilt
    # from the yaml would not); 9 images at batch 8 are too few for an optimizer step
    first, after = (
        torch.load(b / "detector.pt", map_location="cpu", weights_only=False)["model"].float().state_dict()
        for b in (shipped, bundle)
    )
    assert max(float((first[k] - after[k]).abs().max()) for k in first if k.endswith(".weight")) < 0.01
    start, tuned = (
        torch.load(b / "face.pt", map_location="cpu", weights_only=False) for b in (shipped, bundle)
    )
    assert tuned["meta"]["widths"] == start["meta"].get(
        "widths", tuned["meta"]["widths"]
    )  # same reader shape
    head = "heads.1.weight"
    assert start["model"][head].shape == tuned["model"][head].shape
    assert not torch.equal(start["model"][head], tuned["model"][head]), "the reader learned from the new data"
    model = DiceModel(bundle)  # refuses an ONNX finder whose input differs from model.json's imgsz
    assert model.detector.imgsz == base["imgsz"]
    assert model.face_shift == float(base.get("face_shift", 0.0))
    image = read_image(next((data / "train" / "images").glob("*.jpg")))
    assert isinstance(model.readings(image), list)
    assert np.isfinite(evaluate(model, data, progress=False)["map50"])
