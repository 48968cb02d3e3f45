"""The d6 training recipe: the held-out split keeps every augmented copy of a photo on one side,
the detector set is one-class with a cap on copies, and the face stage trains on the real path."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from companion.vision.train.d6_prep import D6_NAMES, hidden_like_names, prepare_d6
from companion.vision.yolo_dataset import load_data_yaml, read_labels, source_group, write_labels

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


def test_unseen_copies_are_trained_sources_the_detector_never_saw(d6_real, tmp_path):
    split = prepare_d6(d6_real, tmp_path / "split", holdout_percent=30, copies_per_photo=2)
    det_names = set(split["det_train"])
    unseen = {p.name for p in split["unseen"]}
    train_groups = {source_group(p.name) for p in split["train"]}
    # one copy of every training source photo is left over (three copies, two kept)
    assert len(unseen) == len(train_groups) and not unseen & det_names
    assert {source_group(n) for n in unseen} == train_groups
    on_disk = {p.name for p in (tmp_path / "split" / "unseen" / "val" / "images").iterdir()}
    assert on_disk == unseen
    # the detector-only face set holds exactly the detector's photos, with their real classes
    faces_det = sorted((tmp_path / "split" / "faces-det" / "train" / "images").iterdir())
    assert {p.name for p in faces_det} == det_names
    classes, _ = read_labels(
        tmp_path / "split" / "faces-det" / "train" / "labels" / f"{faces_det[0].stem}.txt"
    )
    original, _ = read_labels(d6_real / "train" / "labels" / f"{faces_det[0].stem}.txt")
    assert np.array_equal(classes, original)
    assert load_data_yaml(tmp_path / "split" / "hidden-like")["names"] == D6_NAMES


def test_hidden_like_mix_keeps_the_held_out_share(d6_real, tmp_path):
    split = prepare_d6(d6_real, tmp_path / "split", holdout_percent=30, copies_per_photo=2)
    names = {p.name for p in split["hidden_like"]}
    unseen = {p.name for p in split["unseen"]}
    held = names - unseen
    assert unseen <= names and held <= {p.name for p in split["val"]}
    share = len(split["val"]) / (len(split["val"]) + len(split["train"]))
    assert len(held) == min(len(split["val"]), round(len(unseen) * share / (1 - share)))
    assert held  # this fixture has both sides


def test_hidden_like_names_proportion_and_stability():
    val = [f"{i:05d}_jpg.rf.{k}.jpg" for i in range(100) for k in range(2)]
    unseen = [f"u{i}.jpg" for i in range(880)]
    picked = hidden_like_names(unseen, val, n_train=1800)
    # 200 held-out of 2,000 photos is 10 %: 880 unseen need 98 held-out photos beside them
    assert len(picked) == round(880 * 0.1 / 0.9) == 98
    assert picked == hidden_like_names(list(reversed(unseen)), list(reversed(val)), n_train=1800)
    assert len({n.split(".rf.")[0] for n in picked}) > 60  # spread over many photos, not name order
    assert hidden_like_names([], val, 1800) == [] and hidden_like_names(unseen, [], 1800) == []
    assert len(hidden_like_names(unseen * 10, val[:5], 10)) == 5  # never more than there are


@pytest.mark.slow
@pytest.mark.train
def test_face_stage_trains_a_pip_reader(d6_real, tmp_path, monkeypatch):
    import torch

    from companion.vision.train.d6_training import train_face

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo-config"))
    prepare_d6(d6_real, tmp_path / "split", holdout_percent=30)
    pt = train_face(
        tmp_path / "split" / "faces",
        tmp_path / "face",
        start=None,
        epochs=1,
        lr=1e-3,
        threads=1,
        repeats=2,
        jitter=0.15,
        width=8,
    )
    state = torch.load(pt, map_location="cpu", weights_only=False)
    assert state["meta"]["heads"] == {"icon": D6_NAMES}
    assert state["meta"]["input"] == 64 and state["meta"]["epochs"] == 1
    dice = sum(len(read_labels(p)[0]) for p in (tmp_path / "split" / "faces" / "train" / "labels").iterdir())
    assert state["meta"]["samples"] == 2 * dice


@pytest.mark.slow
def test_bench_scores_the_shipped_model_on_all_three_splits(d6_real, tmp_path):
    import json
    import subprocess
    import sys

    from companion.vision.evaluation import evaluate
    from companion.vision.reader import load_model

    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [
            sys.executable,
            str(root / "bench" / "d6.py"),
            "--src",
            str(d6_real),
            "--copies",
            "2",
            "--split-dir",
            str(tmp_path / "bench"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["model"] == "d6"
    assert out["heldout"]["images"] == out["photos"]["val"]
    assert out["unseen"]["images"] == out["photos"]["unseen"]
    assert out["hidden-like"]["images"] == out["photos"]["hidden_like"] > out["photos"]["unseen"]
    # the figures are the evaluator's own, on the split the script wrote
    direct = evaluate(load_model("d6"), tmp_path / "bench" / "split-c2" / "heldout", progress=False)
    assert out["heldout"]["map50"] == pytest.approx(direct["map50"])
    assert out["heldout"]["map50_95"] == pytest.approx(direct["map50_95"])
    # these are copies of fixture photos the shipped model reads well (test_vision_shipped_models)
    assert out["unseen"]["map50"] > 0.8 and out["unseen"]["recall"] > 0.9


def _photo_with_dice(
    folder: Path, name: str, boxes_px: list[tuple[int, int, int, int]], w=640, h=480
) -> None:
    """A grey photo with a white square per box (x1, y1, x2, y2), labelled as one-class dice."""
    import cv2

    image = np.full((h, w, 3), 90, np.uint8)
    for x1, y1, x2, y2 in boxes_px:
        image[y1:y2, x1:x2] = 255
    (folder / "images").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "images" / f"{name}.jpg"), image)
    boxes = np.array(
        [[(a + c) / 2 / w, (b + d) / 2 / h, (c - a) / w, (d - b) / h] for a, b, c, d in boxes_px]
    )
    write_labels(folder / "labels" / f"{name}.txt", [0] * len(boxes_px), boxes)


def test_small_die_tiles_are_the_second_looks_tiles_with_the_boxes_moved_into_them(tmp_path):
    from companion.vision.small_dice import SmallDicePass
    from companion.vision.train.d6_prep import small_die_tiles

    det = tmp_path / "det"
    # a 20 px die near the top left, a 100 px die across the middle, and a photo with large dice only
    _photo_with_dice(det / "train", "small", [(30, 40, 50, 60), (260, 180, 360, 280)])
    _photo_with_dice(det / "train", "large", [(100, 100, 200, 200)])
    assert small_die_tiles(det) == 1  # only the top-left tile holds the small die whole
    tiles = sorted((det / "train-tiles" / "images").iterdir())
    assert [p.name for p in tiles] == ["small.tile0.jpg"]
    x1, y1, x2, y2 = SmallDicePass().windows(640, 480)[0]
    import cv2

    assert cv2.imread(str(tiles[0])).shape[:2] == (y2 - y1, x2 - x1)
    classes, boxes = read_labels(det / "train-tiles" / "labels" / "small.tile0.txt")
    tw, th = x2 - x1, y2 - y1
    px = [
        ((cx - bw / 2) * tw + x1, (cy - bh / 2) * th + y1, (cx + bw / 2) * tw + x1, (cy + bh / 2) * th + y1)
        for cx, cy, bw, bh in boxes
    ]
    assert classes.tolist() == [0] * len(px)
    assert px[0] == pytest.approx((30, 40, 50, 60), abs=1e-3)  # the small die, back in frame pixels
    # the large die: in the tile clipped to its edge when at least half of it lies inside, else dropped
    inside = (min(360, x2) - 260) * (min(280, y2) - 180) / (100 * 100)
    assert len(px) == (2 if inside >= 0.5 else 1)
    if len(px) == 2:
        assert px[1] == pytest.approx((260, 180, min(360, x2), min(280, y2)), abs=1e-3)


def test_a_packed_detector_set_opens_where_it_is_copied(d6_real, tmp_path):
    from companion.vision.train.d6_prep import open_packed, pack_detector_set
    from companion.vision.yolo_dataset import dataset_images

    split = prepare_d6(d6_real, tmp_path / "split", holdout_percent=30, copies_per_photo=2)
    n = pack_detector_set(tmp_path / "split", tmp_path / "packed")
    assert n == len(split["det_train"])
    # plain files, no links to the source photos: the folder can travel to another machine
    assert not any(p.is_symlink() for p in (tmp_path / "packed").rglob("*"))
    moved = tmp_path / "elsewhere" / "packed"
    moved.parent.mkdir()
    shutil.move(str(tmp_path / "packed"), moved)
    opened = open_packed(moved)
    det = load_data_yaml(opened / "det")
    assert Path(det["path"]) == (moved / "det").resolve() and det["names"] == ["die"]
    assert det["train"] == ["train/images"]
    faces = opened / "faces-det"
    assert load_data_yaml(faces)["names"] == D6_NAMES
    photos = dataset_images(faces, "train")
    assert {p.name for p in photos} == set(split["det_train"])
    # the face set keeps the real classes of each photo
    stem = Path(split["det_train"][0]).stem
    real, _ = read_labels(d6_real / "train" / "labels" / f"{stem}.txt")
    assert np.array_equal(read_labels(faces / "train" / "labels" / f"{stem}.txt")[0], real)
    assert open_packed(moved) == opened  # opening again changes nothing


@pytest.mark.train
def test_results_are_read_without_polars_where_it_is_missing(tmp_path, monkeypatch):
    import sys

    from companion.vision import offline

    offline.prepare(config_dir=tmp_path / "yolo")
    from ultralytics.engine.trainer import BaseTrainer

    from companion.vision.train.d6_training import _results_without_polars

    monkeypatch.setattr(BaseTrainer, "read_results_csv", BaseTrainer.read_results_csv)  # put back afterwards
    monkeypatch.setitem(sys.modules, "polars", None)  # 'import polars' now fails
    _results_without_polars()
    (tmp_path / "results.csv").write_text("epoch, train/box_loss\n1,1.5\n2,1.25\n")

    class Run:
        csv = tmp_path / "results.csv"

    assert BaseTrainer.read_results_csv(Run()) == {"epoch": [1.0, 2.0], "train/box_loss": [1.5, 1.25]}


def test_yolo_boxes_and_pixel_corners_convert_both_ways():
    from companion.vision.yolo_dataset import boxes_norm, boxes_px

    norm = np.array([[0.5, 0.25, 0.2, 0.1], [0.1, 0.9, 0.05, 0.2]])
    px = boxes_px(norm, 640, 480)
    assert px[0] == pytest.approx([256, 96, 384, 144]) and px[1] == pytest.approx([48, 384, 80, 480])
    assert boxes_norm(px, 640, 480) == pytest.approx(norm)
    assert boxes_px(np.zeros((0, 4)), 10, 10).shape == (0, 4)


@pytest.mark.train
def test_the_detector_stage_passes_its_loss_weights_and_rate_to_the_training(tmp_path, monkeypatch):
    """`--box-gain` / `--dfl-gain` (the second GPU run's candidate DB) reach ultralytics' train call;
    left out, they are ultralytics' own defaults, so the first run's recipe is unchanged."""
    import ultralytics

    from companion.vision.train import d6_training

    calls = []

    class FakeYolo:
        def __init__(self, path):
            self.path = path

        def train(self, **kw):
            calls.append(kw)
            weights = Path(kw["project"]) / kw["name"] / "weights"
            weights.mkdir(parents=True)
            (weights / "last.pt").write_bytes(b"weights")
            return type("Results", (), {"save_dir": weights.parent})()

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo-config"))
    monkeypatch.setattr(ultralytics, "YOLO", FakeYolo)
    packed = tmp_path / "packed" / "det"
    packed.mkdir(parents=True)
    monkeypatch.setattr(d6_training, "open_packed", lambda path, tiles: tmp_path / "packed")
    common = ["--prepared", str(tmp_path / "packed"), "--hours", "0.01", "--start", "start.pt"]
    d6_training.main(["detector", *common, "--work", str(tmp_path / "a"), "--lr0", "0.0003"])
    d6_training.main(
        ["detector", *common, "--work", str(tmp_path / "b"), "--box-gain", "10", "--dfl-gain", "2"]
    )
    from ultralytics.utils import DEFAULT_CFG_DICT

    assert (d6_training.BOX_GAIN, d6_training.DFL_GAIN) == (DEFAULT_CFG_DICT["box"], DEFAULT_CFG_DICT["dfl"])
    assert [(c["box"], c["dfl"], c["lr0"]) for c in calls] == [(7.5, 1.5, 0.0003), (10.0, 2.0, 0.001)]
    assert calls[0]["data"] == str(packed / "data.yaml") and calls[0]["time"] == 0.01
    assert (tmp_path / "a" / "detector.pt").read_bytes() == b"weights"


STUB_PYTHON = """#!/usr/bin/env bash
# stands in for the GPU machine's python: pip and the packed-set check pass, a training writes its weights
if [ "$1" = -m ] && [ "$2" = pip ] || [ "$1" = -c ]; then exit 0; fi
echo "$*" >> "$CALLS"
work=$(sed -E 's/.*--work ([^ ]+).*/\\1/' <<<"$*")
if [ "$3" = face ]; then
  name=$(sed -E 's/.*--name ([^ ]+).*/\\1/' <<<"$*"); mkdir -p "$work/$name"; echo w > "$work/$name/face.pt"
else
  mkdir -p "$work"; echo w > "$work/detector.pt"
fi
"""


@pytest.mark.parametrize(
    "plan, weights, options",
    [
        ("first", {"d512", "d640", "f24", "f32"}, {"d640": "--imgsz 640", "f32": "--face-start  --width 32"}),
        ("second", {"da", "db", "fa"}, {"da": "--lr0 0.0003", "db": "--box-gain 10 --dfl-gain 2"}),
        ("third", {"dc"}, {"dc": "--workers 14 --threads 8 --lr0 0.0001"}),
    ],
)
def test_the_device_script_runs_each_plans_trainings_and_brings_back_their_weights(
    plan, weights, options, tmp_path
):
    """``d6_device.sh`` with a stand-in python: each plan starts its own trainings with their options
    and leaves each network's weights in $OUT under the candidate's name; an unknown plan starts nothing."""
    import subprocess

    script = Path(__file__).resolve().parents[2] / "companion" / "vision" / "train" / "d6_device.sh"
    stub = tmp_path / "python"
    stub.write_text(STUB_PYTHON)
    stub.chmod(0o755)
    env = {
        "PATH": "/usr/bin:/bin",
        "PY": str(stub),
        "OUT": str(tmp_path / "out"),
        "CALLS": str(tmp_path / "calls"),
    }
    (tmp_path / "work").mkdir()
    env["HOME"] = str(tmp_path)
    run = subprocess.run(
        ["bash", str(script), "0.1", "40", plan],
        cwd=tmp_path / "work",
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert {p.stem for p in (tmp_path / "out").glob("*.pt")} == weights
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) == len(weights)
    for name, option in options.items():
        assert any((f"/{name} " in c or f"--name {name} " in c) and option in c for c in calls)
    bad = subprocess.run(
        ["bash", str(script), "0.1", "40", "fourth"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert bad.returncode == 2 and "unknown plan fourth" in bad.stdout
