"""The Dragon Dice recipe: the hard-negative stage (crops of what the die finder finds that is no die)
and the die-finder stage (a one-class fine-tune)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.vision.train.dd_training import far_from_dice, main, mine_negatives

SHIPPED_FINDER = Path(__file__).resolve().parents[2] / "models" / "dragon-dice" / "detector.pt"


def test_negatives_are_reader_sized_crops_of_boxes_away_from_dice(tmp_path):
    # the shipped die finder leaves few boxes off the dice: look at its faint ones (conf 0.005)
    only_far = np.load(mine_negatives(tmp_path / "neg.npz", 6, 3003, conf=0.005, limit=50, progress=False))[
        "crops"
    ]
    everything = np.load(
        mine_negatives(tmp_path / "all.npz", 6, 3003, conf=0.005, limit=500, max_iou=1.01, progress=False)
    )["crops"]
    assert only_far.shape[1:] == (80, 80, 3) and only_far.dtype == np.uint8  # the shipped reader's crop
    # the same boxes, less the ones on dice: keeping every box gives strictly more crops
    assert 0 < len(only_far) < len(everything)
    capped = np.load(
        mine_negatives(tmp_path / "cap.npz", 6, 3003, conf=0.005, limit=2, max_iou=1.01, progress=False)
    )["crops"]
    assert len(capped) == 2 and np.array_equal(capped, everything[:2])


def test_mining_refuses_to_write_an_empty_set(tmp_path):
    with pytest.raises(ValueError, match="nothing but dice"):
        mine_negatives(tmp_path / "none.npz", 2, 3003, conf=0.999, progress=False)
    assert not (tmp_path / "none.npz").exists()


def test_negatives_stage_passes_its_score_threshold_on(tmp_path, capsys):
    main(
        [
            "negatives",
            "--out",
            str(tmp_path / "faint.npz"),
            "--scenes",
            "6",
            "--conf",
            "0.005",
            "--limit",
            "50",
        ]
    )
    faint = np.load(tmp_path / "faint.npz")["crops"]
    direct = np.load(mine_negatives(tmp_path / "direct.npz", 6, 3003, conf=0.005, limit=50, progress=False))[
        "crops"
    ]
    assert np.array_equal(faint, direct)
    with pytest.raises(ValueError, match="nothing but dice"):  # no box reaches this score
        main(["negatives", "--out", str(tmp_path / "strict.npz"), "--scenes", "2", "--conf", "0.999"])


def test_only_boxes_away_from_every_die_are_negatives():
    dice = np.array([[0, 0, 10, 10], [100, 100, 120, 120]], float)
    boxes = np.array(
        [
            [0, 0, 10, 10],  # on a die (IoU 1)
            [1, 1, 11, 11],  # nearly on it (IoU 0.68)
            [5, 0, 15, 10],  # half on it (IoU 0.33)
            [7, 0, 17, 10],  # barely touching (IoU 0.18)
            [50, 50, 60, 60],  # on the bare table
            [101, 100, 121, 120],
        ],
        float,
    )  # on the second die
    assert far_from_dice(boxes, dice, 0.3).tolist() == [3, 4]
    assert far_from_dice(boxes, dice, 0.5).tolist() == [2, 3, 4]
    assert far_from_dice(boxes, np.zeros((0, 4)), 0.3).tolist() == [0, 1, 2, 3, 4, 5]  # no die: all are


@pytest.mark.train
def test_die_finder_stage_fine_tunes_the_shipped_finder_into_one_class(tmp_path, catalogue):
    from companion.vision.synth import write_dataset
    from companion.vision.train.dd_training import train_die_finder

    data = write_dataset(
        tmp_path / "scenes", 8, 11, catalogue, size=128, val_fraction=0.25, progress=False
    ).parent
    pt = train_die_finder(
        data,
        SHIPPED_FINDER,
        tmp_path / "work",
        hours=0.05,
        epochs=1,
        threads=2,
        batch=4,
        lr0=1e-4,
        warmup_epochs=0,
    )
    import torch

    ckpt = torch.load(pt, map_location="cpu", weights_only=False)
    assert ckpt["model"].names == {0: "die"}  # the kinds are merged: the face reader names them
    # the shipped finder is one class already, so it is continued whole, its class head included:
    # 6 images at batch 4 are too few for an optimizer step, so every weight is still the shipped one
    # (a network rebuilt from the yaml, or a rebuilt head, would start from random weights)
    shipped = torch.load(SHIPPED_FINDER, map_location="cpu", weights_only=False)["model"].float().state_dict()
    tuned = ckpt["model"].float().state_dict()
    last = max(int(k.split(".")[1]) for k in shipped)  # the Detect module; its cv3 branch scores classes
    assert any(k.startswith(f"model.{last}.cv3.") for k in tuned)
    assert max(float((tuned[k] - shipped[k]).abs().max()) for k in shipped if k.endswith(".weight")) < 0.01
    # every label of the one-class copy says "die"; the boxes are the rendered ones, unchanged
    one = tmp_path / "work" / "dd-det-oneclass" / "train" / "labels"
    copied = sorted(one.glob("*.txt"))
    assert len(copied) == 6  # the 6 training scenes (2 of 8 are validation)
    for lab in copied:
        src = [r.split() for r in (data / "train" / "labels" / lab.name).read_text().splitlines() if r]
        got = [r.split() for r in lab.read_text().splitlines() if r]
        assert [r[0] for r in got] == ["0"] * len(src)
        assert np.allclose(
            np.array([r[1:] for r in got], float).reshape(-1, 4),
            np.array([r[1:] for r in src], float).reshape(-1, 4),
            atol=1e-5,
        )


@pytest.mark.train  # exporting the .pt weights to ONNX needs torch
def test_bundle_stage_exports_the_die_finder_at_the_run_time_size_asked_for(tmp_path):
    import json

    import onnxruntime as ort

    from companion.vision.reader import DiceModel, ModelError, read_image

    shipped = SHIPPED_FINDER.parent
    out = tmp_path / "bundle"
    main(
        [
            "bundle",
            "--detector",
            str(shipped / "detector.pt"),
            "--face",
            str(shipped / "face.pt"),
            "--out",
            str(out),
            "--imgsz",
            "416",
            "--conf",
            "0.05",
            "--turns",
            "4",
            "--min-face-conf",
            "0.7",
        ]
    )
    meta = json.loads((out / "model.json").read_text())
    assert meta["imgsz"] == 416 and meta["conf"] == 0.05 and meta["face_turns"] == 4
    assert ort.InferenceSession(str(out / "detector.onnx")).get_inputs()[0].shape == [1, 3, 416, 416]
    fixture = Path(__file__).parent / "fixtures" / "dd"
    first = json.loads((fixture / "manifest.jsonl").read_text().splitlines()[0])
    model = DiceModel(out)
    assert model.detector.imgsz == 416
    dice = model.detect(read_image(fixture / first["image"]))
    assert len(dice) == len(first["dice"])  # the same finder at a finer input still finds each die once
    # a model.json that names another input than the exported finder takes is refused by name
    meta["imgsz"] = 448
    (out / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="takes 416 px input, but the bundle asks for 448 px"):
        DiceModel(out)
