"""The shipped face embedding's cocked head on real photographs of flat dice (issue 20: ``cocked``
comes from the die's geometry, and flat dice called cocked <= 1 %).

``fixtures/d6/val`` holds real photographs of pip d6 lying flat (``../shared/datasets/d6-real``,
CC BY 4.0) with their labelled boxes.  The head trained on renders alone called about half of these
dice cocked; the shipped head (retrained with photographic faults, ``train/cocked_head.py``) must
call at most one of these 42 cocked at the threshold its ``model.json`` reads with.  A test on
committed fixtures with the committed model: it fails if the renders-only head (or its threshold) comes
back.  The 1 % target itself is measured on the 611 flat dice of the held-out half of the photographs
(``bench``/model card), not on this small sample.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from companion.vision.crops import crop_die
from companion.vision.embedding import FaceEmbedder
from companion.vision.yolo_dataset import label_path_for, read_labels

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "models" / "face-embed"
PHOTOS = Path(__file__).parent / "fixtures" / "d6" / "val" / "images"


def _flat_dice_crops() -> np.ndarray:
    crops = []
    for path in sorted(PHOTOS.glob("*.jpg")):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        h, w = img.shape[:2]
        _, boxes = read_labels(label_path_for(path))
        for cx, cy, bw, bh in boxes:
            crops.append(
                crop_die(img, ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h))
            )
    return np.stack(crops)


def test_the_shipped_cocked_head_calls_real_flat_dice_flat():
    meta = json.loads((SHIPPED / "model.json").read_text())
    threshold = float(meta["reading"]["cocked_threshold"])
    crops = _flat_dice_crops()
    assert len(crops) >= 30  # the fixture photographs' labelled dice
    _, p_cocked = FaceEmbedder(SHIPPED / meta["onnx"], int(meta["turns"]))(crops)
    called = int((p_cocked >= threshold).sum())
    assert called <= 1, f"{called} of {len(crops)} real flat dice called cocked at {threshold}"
