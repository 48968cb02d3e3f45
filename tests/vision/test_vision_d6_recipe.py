"""The d6 training recipe: the held-out split keeps every augmented copy of a photo on one side,
the detector set is one-class with a cap on copies, and the face stage trains on the real path."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from companion.vision.d6_prep import D6_NAMES, prepare_d6
from companion.vision.yolo_dataset import load_data_yaml, read_labels, source_group

FIXTURES = Path(__file__).parent / "fixtures" / "d6" / "val"


@pytest.fixture
def d6_real(tmp_path) -> Path:
    """A folder in the d6-real form: each fixture photo with three 'augmented copies' of it."""
    src = tmp_path / "d6-real"
    for i, img in enumerate(sorted((FIXTURES / "images").glob("*.jpg"))):
        for k in range(3):
            name = f"{i:05d}_jpg.rf.{k:032x}"
            (src / "train" / "images").mkdir(parents=True, exist_ok=True)
            (src / "train" / "labels").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(img, src / "train" / "images" / f"{name}.jpg")
            shutil.copyfile(FIXTURES / "labels" / f"{img.stem}.txt", src / "train" / "labels" / f"{name}.txt")
    return src


def test_split_keeps_copies_together_and_caps_detector_copies(d6_real, tmp_path):
    split = prepare_d6(d6_real, tmp_path / "split", holdout_percent=30, copies_per_photo=2)
    train_groups = {source_group(p.name) for p in split["train"]}
    val_groups = {source_group(p.name) for p in split["val"]}
    assert train_groups and val_groups and not train_groups & val_groups
    det = sorted((tmp_path / "split" / "det" / "train" / "images").iterdir())
    assert len(det) == 2 * len(train_groups)  # three copies each, two kept
    for img in det:
        classes, _ = read_labels(tmp_path / "split" / "det" / "train" / "labels" / f"{img.stem}.txt")
        assert set(classes.tolist()) == {0}
    assert load_data_yaml(tmp_path / "split" / "det")["names"] == ["die"]
    faces = sorted((tmp_path / "split" / "faces" / "train" / "images").iterdir())
    assert len(faces) == len(split["train"]) == 3 * len(train_groups)
    assert load_data_yaml(tmp_path / "split" / "faces")["names"] == D6_NAMES
    held = sorted((tmp_path / "split" / "heldout" / "val" / "images").iterdir())
    assert {p.name for p in held} == {p.name for p in split["val"]}
    # the held-out labels keep their real classes
    img = held[0]
    classes, _ = read_labels(tmp_path / "split" / "heldout" / "val" / "labels" / f"{Path(img).stem}.txt")
    original, _ = read_labels(d6_real / "train" / "labels" / f"{Path(img).stem}.txt")
    assert np.array_equal(classes, original)


@pytest.mark.slow
def test_face_stage_trains_a_pip_reader(d6_real, tmp_path, monkeypatch):
    import torch

    from companion.vision.d6_training import train_face

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo-config"))
    prepare_d6(d6_real, tmp_path / "split", holdout_percent=30)
    pt = train_face(tmp_path / "split" / "faces", tmp_path / "face", start=None, epochs=1, lr=1e-3, threads=1,
                    repeats=2, jitter=0.15, width=8)
    state = torch.load(pt, map_location="cpu", weights_only=False)
    assert state["meta"]["heads"] == {"icon": D6_NAMES}
    assert state["meta"]["input"] == 64 and state["meta"]["epochs"] == 1
    dice = sum(len(read_labels(p)[0]) for p in (tmp_path / "split" / "faces" / "train" / "labels").iterdir())
    assert state["meta"]["samples"] == 2 * dice
