"""The box refiner: its crop geometry, its training path (a smoke run through torch and ONNX), and how a
bundle names it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from companion.vision.box_refine import (
    VIEWS,
    BoxRefiner,
    crop_frame,
    from_crop,
    to_crop,
    unview_box,
    view_box,
    view_image,
)
from companion.vision.onnx_session import ModelError
from companion.vision.reader import DiceModel, resolve_model

D6_FIXTURES = Path(__file__).parent / "fixtures" / "d6"


def test_eight_views_are_distinct_and_undo_exactly():
    rng = np.random.default_rng(3)
    rel = rng.uniform(-0.4, 0.4, (6, 4)).astype(np.float32)
    rel[:, 2:] = np.maximum(rel[:, 2:], rel[:, :2] + 0.05)
    seen = set()
    for v in VIEWS:
        moved = view_box(rel, v)
        assert np.allclose(unview_box(moved, v), rel)
        seen.add(tuple(np.round(moved[0], 5)))
        assert (moved[:, 2] > moved[:, 0]).all() and (moved[:, 3] > moved[:, 1]).all()
    assert len(seen) == 8


def test_a_box_moves_with_its_picture_in_every_view():
    crop = np.zeros((64, 64, 3), np.uint8)
    crop[10:30, 20:50] = 255  # a bright 30 x 20 rectangle off centre
    rel = (np.array([[20, 10, 50, 30]], np.float32) - 32) / 64
    for v in VIEWS:
        ys, xs = np.nonzero(view_image(crop, v)[:, :, 0])
        seen = (np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]) - 32) / 64
        assert np.allclose(seen, view_box(rel, v)[0]), v


def test_crop_coordinates_round_trip():
    box = np.array([[100.0, 50.0, 140.0, 96.0]], np.float32)
    frame = crop_frame(box[0], 1.6)
    assert frame == (120.0, 73.0, pytest.approx(46 * 1.6))
    rel = to_crop(box, frame)
    assert np.allclose(rel, [[-20 / 73.6, -23 / 73.6, 20 / 73.6, 23 / 73.6]])
    assert np.allclose(from_crop(rel, frame), box)


@pytest.fixture(scope="module")
def smoke_refiner(tmp_path_factory) -> Path:
    """A refiner trained for a few steps on the fixture photos through the real training path."""
    pytest.importorskip("torch")
    from companion.vision.train.box_refiner import train  # noqa: PLC0415

    out = tmp_path_factory.mktemp("refine")
    lines: list[str] = []
    onnx = train(D6_FIXTURES, out, steps=12, batch=16, threads=1, log=lines.append, split="val")
    assert onnx.is_file() and any("step 12/12" in m for m in lines)
    meta = json.loads((out / "refine.json").read_text())
    assert meta["steps"] == 12 and meta["train_dice"] > 12
    return out


def test_smoke_training_exports_a_refiner_that_keeps_boxes_in_the_frame(smoke_refiner):
    import cv2  # noqa: PLC0415

    image = cv2.imread(str(sorted((D6_FIXTURES / "val" / "images").glob("*.jpg"))[0]))
    boxes = np.array([[5.0, 5.0, 60.0, 60.0], [600.0, 600.0, 639.0, 639.0], [200, 220, 260, 270]], np.float32)
    for looks, passes in ((1, 1), (8, 2)):
        out = BoxRefiner(smoke_refiner / "refine.onnx", looks=looks, passes=passes)(image, boxes)
        assert out.shape == (3, 4)
        assert (out[:, 2] > out[:, 0]).all() and (out[:, 3] > out[:, 1]).all()
        assert (
            out.min() >= 0
            and out[:, [0, 2]].max() <= image.shape[1]
            and out[:, [1, 3]].max() <= image.shape[0]
        )
    empty = BoxRefiner(smoke_refiner / "refine.onnx")(image, np.zeros((0, 4), np.float32))
    assert empty.shape == (0, 4)


def _d6_bundle_with(tmp_path: Path, refiner: dict, onnx: Path | None) -> Path:
    src = resolve_model("d6")
    out = tmp_path / "bundle"
    out.mkdir()
    for name in ("detector.onnx", "face.onnx"):
        shutil.copyfile(src / name, out / name)
    if onnx is not None:
        shutil.copyfile(onnx, out / "refine.onnx")
    meta = json.loads((src / "model.json").read_text())
    meta["box_refiner"] = refiner
    (out / "model.json").write_text(json.dumps(meta))
    return out


def test_a_bundle_without_the_refiner_it_names_is_refused(tmp_path):
    bundle = _d6_bundle_with(tmp_path, {"onnx": "refine.onnx"}, None)
    with pytest.raises(ModelError, match=r"lacks refine\.onnx"):
        DiceModel(bundle)


def test_a_bundle_with_impossible_refiner_settings_is_refused(tmp_path, smoke_refiner):
    bundle = _d6_bundle_with(tmp_path, {"onnx": "refine.onnx", "looks": 3}, smoke_refiner / "refine.onnx")
    with pytest.raises(ModelError, match="looks must be 1 or 8"):
        DiceModel(bundle)


def test_a_bundle_reads_its_faces_in_the_refined_boxes(tmp_path, smoke_refiner):
    import cv2  # noqa: PLC0415

    image = cv2.imread(str(sorted((D6_FIXTURES / "val" / "images").glob("*.jpg"))[0]))
    plain = DiceModel(resolve_model("d6"))
    plain.meta.pop("box_refiner", None)
    plain.refiner = None
    refined = DiceModel(
        _d6_bundle_with(tmp_path, {"onnx": "refine.onnx", "looks": 1}, smoke_refiner / "refine.onnx")
    )
    found = plain.detect(image)
    moved = refined.detect(image)
    assert len(found) == len(moved) > 0
    expect = refined.refiner(image, found.xyxy)
    assert np.allclose(moved.xyxy, expect, atol=1e-3)
    assert not np.allclose(moved.xyxy, found.xyxy, atol=0.5)  # the smoke refiner does move them


def test_blend_moves_a_box_part_of_the_way(smoke_refiner):
    import cv2  # noqa: PLC0415

    image = cv2.imread(str(sorted((D6_FIXTURES / "val" / "images").glob("*.jpg"))[0]))
    boxes = np.array([[200, 220, 260, 270], [300, 100, 340, 150]], np.float32)
    full = BoxRefiner(smoke_refiner / "refine.onnx", looks=1)(image, boxes)
    half = BoxRefiner(smoke_refiner / "refine.onnx", looks=1, blend=0.5)(image, boxes)
    assert np.allclose(half, (boxes + full) / 2, atol=1e-3)
    with pytest.raises(ModelError, match="blend must be above 0"):
        BoxRefiner(smoke_refiner / "refine.onnx", blend=0.0)


def _bench(*args: str):
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    root = Path(__file__).resolve().parents[2]
    return subprocess.run(
        [sys.executable, str(root / "bench" / "d6_refine.py"), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_bench_scores_with_and_without_a_refiner_on_the_evaluators_path(
    smoke_refiner, tmp_path, d6_real_form
):
    from companion.vision.evaluation import evaluate  # noqa: PLC0415
    from companion.vision.train.d6_prep import prepare_d6  # noqa: PLC0415

    src = d6_real_form
    run = _bench(
        "--refiner", str(smoke_refiner), "--variants", "1x1,8x2", "--src", str(src), "--sets", "heldout",
        "--frames", "1", "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(out["heldout"]) == {"without", "1x1", "8x2"}
    assert out["variants"]["8x2"]["looks"] == 8 and out["variants"]["8x2"]["passes"] == 2
    prepare_d6(src, tmp_path / "split", copies_per_photo=4)
    plain = DiceModel(resolve_model("d6"))
    direct = evaluate(plain, tmp_path / "split" / "heldout", progress=False)
    assert out["heldout"]["without"]["map50_95"] == pytest.approx(direct["map50_95"])
    # the smoke refiner (12 steps) moves the boxes, so the figures differ from the plain bundle's
    assert out["heldout"]["1x1"]["map50_95"] != pytest.approx(direct["map50_95"])
    assert set(out["frame_1280"]) >= {"without", "8x2"}


def test_bench_refuses_a_variant_it_cannot_read(smoke_refiner):
    run = _bench("--refiner", str(smoke_refiner), "--variants", "8x3", "--frames", "0", "--sets", "")
    assert run.returncode == 2 and "passes 1 or 2" in run.stderr
