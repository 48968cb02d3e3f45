"""Fixtures of the vision tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "0")
os.environ.setdefault("OMP_NUM_THREADS", "2")


@pytest.fixture(scope="session")
def catalogue():
    from companion.rules.catalogue import load_catalogue

    return load_catalogue()


@pytest.fixture
def d6_real_form(tmp_path) -> Path:
    """The d6 fixture photos in the d6-real form (train/images, train/labels), two copies of each: what
    the benches and ``companion.vision.train.d6_prep`` read from ``../shared/datasets/d6-real``."""
    fixtures, folder = Path(__file__).parent / "fixtures" / "d6", tmp_path / "d6-real"
    for sub in ("images", "labels"):
        (folder / "train" / sub).mkdir(parents=True)
    for i, img in enumerate(sorted((fixtures / "val" / "images").glob("*.jpg"))):
        for k in range(2):
            name = f"{i:05d}_jpg.rf.{k:032x}"
            shutil.copyfile(img, folder / "train" / "images" / f"{name}.jpg")
            shutil.copyfile(
                fixtures / "val" / "labels" / f"{img.stem}.txt", folder / "train" / "labels" / f"{name}.txt"
            )
    return folder
