"""The second look for small dice over overlapping tiles (``small_dice`` in a bundle's model.json)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.vision.bundle import reading_settings
from companion.vision.detections import Detections, box_iou
from companion.vision.evaluation import evaluate
from companion.vision.reader import DiceModel, ModelError, load_model, read_image
from companion.vision.small_dice import SmallDicePass
from companion.vision.train.d6_prep import heldout_halves
from companion.vision.yolo_dataset import read_labels

D6 = Path(__file__).resolve().parents[2] / "models" / "d6"
SMALL = Path(__file__).parent / "fixtures" / "d6-small"
PHOTO = next((SMALL / "images").glob("*.jpg"))
# a held-out photo of one die of ordinary size (tests/vision/fixtures/d6)
ORDINARY = (
    Path(__file__).parent
    / "fixtures"
    / "d6"
    / "val"
    / "images"
    / "i_jpg.rf.43b302224eddfcab701775e563fe0556.jpg"
)


def _true_boxes() -> np.ndarray:
    _, b = read_labels(SMALL / "labels" / (PHOTO.stem + ".txt"))
    w = h = 640
    return np.stack(
        [
            (b[:, 0] - b[:, 2] / 2) * w,
            (b[:, 1] - b[:, 3] / 2) * h,
            (b[:, 0] + b[:, 2] / 2) * w,
            (b[:, 1] + b[:, 3] / 2) * h,
        ],
        1,
    )


def _bundle(tmp_path: Path, small) -> Path:
    """The shipped d6 bundle (its networks linked) with ``small_dice`` set to ``small`` (None: removed)."""
    out = tmp_path / f"d6-{'off' if small is None else 'set'}"
    out.mkdir(parents=True)
    for name in ("detector.onnx", "face.onnx"):
        (out / name).symlink_to(D6 / name)
    meta = json.loads((D6 / "model.json").read_text())
    meta.pop("small_dice", None)
    if small is not None:
        meta["small_dice"] = small
    (out / "model.json").write_text(json.dumps(meta))
    return out


def _found(boxes, truth: np.ndarray) -> np.ndarray:
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    return box_iou(truth, boxes).max(1) >= 0.5 if len(boxes) else np.zeros(len(truth), bool)


def test_tiles_cover_the_frame_and_overlap():
    tiles = SmallDicePass(grid=2, overlap=0.25).windows(640, 640)
    assert tiles == [(0, 0, 366, 366), (274, 0, 640, 366), (0, 274, 366, 640), (274, 274, 640, 640)]
    # a wide frame gets square tiles as tall as the frame: one row
    assert SmallDicePass(grid=2, overlap=0.25).windows(1280, 720) == [(0, 0, 731, 720), (549, 0, 1280, 720)]
    three = SmallDicePass(grid=3, overlap=0.2).windows(600, 600)
    assert len(three) == 9 and three[0][:2] == (0, 0) and three[-1][2:] == (600, 600)


def test_a_box_cut_by_a_tiles_inner_edge_is_dropped_but_the_frames_edge_cuts_nothing():
    small = SmallDicePass()
    tile = (274, 0, 640, 366)  # inner edges: left (x 274) and bottom (y 366)
    boxes = np.array(
        [
            [300, 0, 320, 20],  # at the frame's top edge: kept
            [270, 50, 290, 70],  # across the left inner edge: dropped
            [400, 350, 420, 366],  # on the bottom inner edge: dropped
            [620, 100, 640, 120],
        ],
        float,
    )  # at the frame's right edge: kept
    assert small.whole_in_tile(boxes, tile, 640, 640).tolist() == [True, False, False, True]


def test_only_boxes_under_max_side_of_the_frame_count_as_small():
    small = SmallDicePass(max_side=0.0625)  # 40 px of a 640 px frame
    boxes = np.array([[0, 0, 39, 10], [0, 0, 10, 40], [0, 0, 80, 80]], float)
    assert small.is_small(boxes, 640, 480).tolist() == [True, False, False]


def test_merge_scores_tile_boxes_with_the_whole_frames_view_and_keeps_one_box_per_die():
    small = SmallDicePass(same_die=0.3)
    whole = Detections(
        np.array([[10, 10, 30, 30], [100, 100, 200, 200]], float), np.array([0.09, 0.9]), np.zeros(2, int)
    )
    tiles = Detections(
        np.array([[11, 11, 31, 31], [300, 300, 320, 320]], float), np.array([0.81, 0.81]), np.zeros(2, int)
    )
    out = small.merge(whole, tiles, conf=0.25)
    order = np.argsort(out.xyxy[:, 0])
    # the faint die (0.09 whole, 0.81 tile) rises to sqrt(0.09 * 0.81) = 0.27 and keeps the tile's box;
    # the big die stays as the whole frame saw it; the speck only a tile saw sinks to sqrt(0.81e-6) = 0.0009
    assert out.xyxy[order].tolist() == [[11, 11, 31, 31], [100, 100, 200, 200]]
    assert np.allclose(out.confidence[order], [0.27, 0.9])
    assert len(small.merge(whole, tiles, conf=0.0005)) == 3  # at a lower threshold the speck is kept, once
    assert len(small.merge(Detections.empty(), Detections.empty(), conf=0.25)) == 0


@pytest.mark.parametrize(
    "bad, key",
    [
        ("yes", "must be an object"),
        ({"grid": 1}, "grid"),
        ({"grid": "two"}, "not a number"),
        ({"overlap": 0.5}, "overlap"),
        ({"max_side": 0}, "max_side"),
        ({"same_die": 0}, "same_die"),
        ({"tiles": 2}, "unknown key"),
        ({"support_side": 0.01}, "support_side"),  # under max_side: no small box could open a tile
        ({"support_side": 1.5}, "support_side"),
        ({"support_side": "big"}, "not a number"),
        ({"window": 100}, "window"),  # not a multiple of 32
        ({"window": 32}, "window"),
    ],
)
def test_a_bad_setting_is_refused_naming_it(tmp_path, bad, key):
    with pytest.raises(ModelError, match=key):
        DiceModel(_bundle(tmp_path, bad))
    assert SmallDicePass.from_meta(None) is None


def test_the_shipped_setting_finds_small_dice_the_whole_frame_misses(tmp_path):
    """Fails if ``small_dice`` in models/d6/model.json is ignored: on a crowded held-out photo of
    distant dice, the shipped bundle finds more of the labelled dice than the same bundle without it."""
    assert json.loads((D6 / "model.json").read_text())["small_dice"]  # shipped on
    image, truth = read_image(PHOTO), _true_boxes()
    shipped = load_model("d6")
    plain = DiceModel(_bundle(tmp_path, None))
    assert shipped.detector.small is not None and plain.detector.small is None
    found_on = _found([r.box for r in shipped.readings(image)], truth)
    found_off = _found([r.box for r in plain.readings(image)], truth)
    assert found_on.sum() > found_off.sum(), (found_on.sum(), found_off.sum())
    side = np.maximum(truth[:, 2] - truth[:, 0], truth[:, 3] - truth[:, 1])
    assert (found_on & (side < 25)).sum() > (found_off & (side < 25)).sum()
    # the size buckets `companion vision eval` prints say the same
    on, off = (evaluate(m, SMALL, progress=False)["recall_by_size"] for m in (shipped, plain))
    assert on["25-40"]["found"] + on["<25"]["found"] > off["25-40"]["found"] + off["<25"]["found"]
    assert on["<25"]["dice"] == off["<25"]["dice"] == int((side < 25).sum())


def test_cli_read_uses_the_shipped_setting():
    out = subprocess.run(
        [sys.executable, "-m", "companion", "vision", "read", str(PHOTO), "--model", "d6", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    boxes = [r["box"] for r in json.loads(out.stdout)]
    assert (
        _found(boxes, _true_boxes()).sum()
        == _found([r.box for r in load_model("d6").readings(read_image(PHOTO))], _true_boxes()).sum()
    )


def test_fine_tuning_carries_the_small_dice_setting():
    meta = json.loads((D6 / "model.json").read_text())
    assert reading_settings(meta)["small_dice"] == meta["small_dice"]


def test_cli_eval_prints_the_dice_found_per_size():
    out = subprocess.run(
        [sys.executable, "-m", "companion", "vision", "eval", "--model", "d6", "--data", str(SMALL)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    sizes = evaluate(load_model("d6"), SMALL, progress=False)["recall_by_size"]
    line = next(x for x in out.stdout.splitlines() if x.startswith("dice found by size"))
    for size in ("<25", "25-40", ">=40"):
        assert f"{size} px {sizes[size]['found']}/{sizes[size]['dice']}" in line


def test_the_held_out_photos_are_halved_by_source_photo():
    names = [f"{src}_jpg.rf.{copy}.jpg" for src in range(40) for copy in "abc"] + [
        "i_jpg.rf.x.jpg",
        "i_jpg.rf.y.jpg",
    ]
    halves = heldout_halves(names)
    assert sorted(halves["choice"] + halves["test"]) == sorted(names)
    assert halves["choice"] and halves["test"]
    for half in halves.values():  # every copy of a source photo is on the same side
        assert all(
            f"{n.split('.rf.')[0]}.rf.{c}.jpg" in half
            for n in half
            if not n.startswith("i_jpg")
            for c in "abc"
        )


def test_a_tile_is_looked_at_only_where_a_box_could_come_of_it():
    small = SmallDicePass(
        max_side=0.0625, same_die=0.3
    )  # tile boxes under 40 px of 640; whole boxes under 133 px
    tile = (0, 0, 366, 366)

    def whole(box, score):
        return Detections(np.array([box], float), np.array([score]), np.zeros(1, int))

    assert not small.worth_a_look(Detections.empty(), tile, 0.25, 640, 640)
    assert small.worth_a_look(whole([100, 100, 130, 130], 0.07), tile, 0.25, 640, 640)
    assert not small.worth_a_look(whole([100, 100, 130, 130], 0.06), tile, 0.25, 640, 640)  # under 0.25 ** 2
    assert not small.worth_a_look(whole([400, 400, 430, 430], 0.9), tile, 0.25, 640, 640)  # outside the tile
    assert not small.worth_a_look(whole([100, 100, 240, 140], 0.9), tile, 0.25, 640, 640)  # 140 px: too big
    assert small.worth_a_look(Detections.empty(), tile, 0.001, 640, 640)  # so low a threshold: always


def test_support_side_opens_a_tile_only_for_a_small_whole_frame_box():
    """``support_side``: a die of ordinary size no longer opens a tile; a small one still does, and
    without it (None) the exact bound of ``worth_a_look`` holds as before."""
    exact = SmallDicePass(max_side=0.0625, same_die=0.3)
    narrow = SmallDicePass(max_side=0.0625, same_die=0.3, support_side=0.0625)  # under 40 px of 640
    tile = (0, 0, 366, 366)

    def whole(box, score):
        return Detections(np.array([box], float), np.array([score]), np.zeros(1, int))

    ordinary = whole([100, 100, 160, 160], 0.9)  # 60 px across
    small = whole([100, 100, 130, 130], 0.07)  # 30 px across
    assert exact.worth_a_look(ordinary, tile, 0.25, 640, 640)
    assert not narrow.worth_a_look(ordinary, tile, 0.25, 640, 640)
    assert narrow.worth_a_look(small, tile, 0.25, 640, 640) and exact.worth_a_look(
        small, tile, 0.25, 640, 640
    )
    assert not narrow.worth_a_look(whole([100, 100, 130, 130], 0.06), tile, 0.25, 640, 640)  # under 0.25 ** 2
    assert SmallDicePass.from_meta({"support_side": None}).support_side is None


def test_the_shipped_support_side_runs_fewer_tiles_on_a_frame_of_ordinary_dice(monkeypatch, tmp_path):
    """Fails if ``support_side`` in models/d6/model.json is ignored: a held-out photo of one die of
    ordinary size opens no tile, where the exact bound would open all four, and the dice found are the same."""
    shipped = load_model("d6")
    assert (
        shipped.detector.small.support_side
        == json.loads((D6 / "model.json").read_text())["small_dice"]["support_side"]
    )
    tiles = {**shipped.meta["small_dice"], "window": None}  # whole tiles, so that runs count tiles
    shipped = DiceModel(_bundle(tmp_path / "narrow", tiles))
    exact = DiceModel(_bundle(tmp_path / "exact", {**tiles, "support_side": None}))
    frame = read_image(ORDINARY)
    runs = {}
    for name, model in (("shipped", shipped), ("exact", exact)):
        real = model.detector.candidates
        seen: list = []
        monkeypatch.setattr(
            model.detector,
            "candidates",
            lambda image, conf, real=real, seen=seen: seen.append(1) or real(image, conf),
        )
        found = model.detector(frame)
        runs[name] = (len(seen), found)
    assert (runs["shipped"][0], runs["exact"][0]) == (1, 5), runs
    a, b = runs["shipped"][1].xyxy, runs["exact"][1].xyxy
    assert len(a) == len(b) and np.allclose(np.sort(a, 0), np.sort(b, 0), atol=1.0)


def test_a_frame_without_dice_costs_one_detector_run(monkeypatch):
    detector = load_model("d6").detector
    runs = []
    real = detector.candidates
    monkeypatch.setattr(
        detector, "candidates", lambda image, conf: runs.append(image.shape) or real(image, conf)
    )
    bare = np.full((640, 640, 3), 200, np.uint8)  # an empty, evenly lit table
    assert len(detector(bare)) == 0 and len(runs) == 1
    runs.clear()
    detector(read_image(PHOTO))  # the crowded fixture: windows round its small dice would outweigh the tiles
    assert len(runs) == 5 and runs[1][:2] == (366, 366)


# a held-out photo with one labelled small die and small dark specks (tests/vision/fixtures/d6)
SMALL_BOXES = next(
    (Path(__file__).parent / "fixtures" / "d6" / "val" / "images").glob("fOF50olNgDtXpGNkg6QY*.jpg")
)


def _finds_the_labelled_die(found) -> bool:
    _, b = read_labels(SMALL_BOXES.parent.parent / "labels" / f"{SMALL_BOXES.stem}.txt")
    truth = np.column_stack([b[:, :2] - b[:, 2:] / 2, b[:, :2] + b[:, 2:] / 2]) * 640
    return bool(len(truth) == 1 and _found(found.xyxy, truth).all())


def test_windows_are_cut_round_the_small_boxes_at_the_tiles_scale():
    """``windows_around``: squares of ``window`` detector px at the tiles' scale, each supporting box (small,
    scored at least conf^2) inside one with a margin of ``max_side``; a large or faint box opens none."""
    small = SmallDicePass(max_side=0.0625, same_die=0.3, support_side=0.0625, window=192)

    def boxes(*rows):
        rows = np.array(rows, float)
        return Detections(rows[:, :4], rows[:, 4], np.zeros(len(rows), int))

    scale = small.tile_scale(512, 640, 640)
    assert scale == pytest.approx(512 / 366)
    whole = boxes(
        [100, 100, 130, 130, 0.9],  # small: opens a window
        [105, 108, 128, 131, 0.5],  # small, beside the first: in its window, margin and all
        [500, 500, 530, 530, 0.2],  # small, far: a window of its own
        [300, 300, 380, 380, 0.9],  # 80 px: not small, opens nothing
        [10, 600, 30, 620, 0.05],  # faint (under 0.25 ** 2): opens nothing
    )
    wins = small.windows_around(whole, 0.25, 640, 640, 512)
    assert len(wins) == 2
    side = 192 / scale
    for x1, y1, x2, y2 in wins:
        assert abs((x2 - x1) - side) <= 1 and abs((y2 - y1) - side) <= 1
        assert 0 <= x1 and 0 <= y1 and x2 <= 640 and y2 <= 640
    pad = 0.0625 * 640
    for b in whole.xyxy[:3]:
        need = np.clip(b + [-pad, -pad, pad, pad], 0, 640)
        assert any(w[0] <= need[0] and w[1] <= need[1] and need[2] <= w[2] and need[3] <= w[3] for w in wins)
    assert not any(w[0] <= 340 <= w[2] and w[1] <= 340 <= w[3] for w in wins)  # the large die's centre
    assert small.windows_around(Detections.empty(), 0.25, 640, 640, 512) == []


def test_the_shipped_reading_runs_windows_round_small_dice_and_tiles_when_windows_would_cost_more(
    monkeypatch,
):
    """Fails if ``window`` in models/d6/model.json is ignored: a photo with two small boxes (one
    labelled die, one dark speck) is read by the whole frame and two small windows (192 px input)
    instead of tiles (512 px each); on the crowded
    fixture, where windows would hold more pixels than the four tiles, the tiles run."""
    detector = load_model("d6").detector
    assert detector.small.window == json.loads((D6 / "model.json").read_text())["small_dice"]["window"] == 192
    runs: list = []
    whole, window = detector.candidates, detector.window_candidates
    monkeypatch.setattr(
        detector, "candidates", lambda image, conf: runs.append(image.shape[:2]) or whole(image, conf)
    )
    sizes: list = []

    def counted(image, win, conf):
        runs.append("window")
        sizes.append(win)
        return window(image, win, conf)

    monkeypatch.setattr(detector, "window_candidates", counted)
    shown = detector.window_session.run
    inputs: list = []
    monkeypatch.setattr(
        detector,
        "window_session",
        type(
            "S",
            (),
            {"run": lambda self, o, feed: inputs.append(next(iter(feed.values())).shape) or shown(o, feed)},
        )(),
    )
    found = detector(read_image(SMALL_BOXES))
    assert runs == [(640, 640), "window", "window"] and _finds_the_labelled_die(found), (runs, found)
    assert all(x2 - x1 < 366 / 2 for x1, _, x2, _ in sizes)  # far smaller than a tile
    assert inputs == [(1, 3, 192, 192)] * 2
    runs.clear()
    detector(read_image(PHOTO))
    assert runs == [(640, 640)] + [(366, 366)] * 4


def test_a_window_needs_a_detector_of_free_input_size(tmp_path):
    """The Dragon Dice detector takes a fixed 448 px input: a ``window`` setting over it is refused, naming it."""
    out = tmp_path / "fixed"
    out.mkdir()
    dd = Path(__file__).resolve().parents[2] / "models" / "dragon-dice"
    (out / "detector.onnx").symlink_to(dd / "detector.onnx")
    (out / "face.onnx").symlink_to(D6 / "face.onnx")
    meta = json.loads((D6 / "model.json").read_text())
    meta["imgsz"] = 448
    (out / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="free input size"):
        DiceModel(out)
    meta["small_dice"]["window"] = None  # whole tiles: the fixed-size detector serves
    (out / "model.json").write_text(json.dumps(meta))
    assert DiceModel(out).detector.window_session is None


@pytest.mark.train  # exporting the .pt weights to ONNX needs torch
def test_a_bundle_written_with_windows_exports_a_detector_of_free_input_size(tmp_path):
    """Fine-tuning d6 keeps its reading settings (``reading_settings``), windows included: the bundle written
    from them exports its detector with a free input size, which reads at 512 px and at the window's 192."""
    from companion.vision.bundle import write_bundle

    meta = json.loads((D6 / "model.json").read_text())
    out = write_bundle(
        tmp_path / "d6-again",
        "d6",
        D6 / "detector.pt",
        D6 / "face.pt",
        512,
        extra={**reading_settings(meta), "eval_classes": meta["eval_classes"]},
    )
    model = DiceModel(out)
    assert model.detector.session.get_inputs()[0].shape == [1, 3, 512, 512]
    assert model.detector.window_session.get_inputs()[0].shape == [1, 3, 192, 192]
    found, shipped = model.detect(read_image(SMALL_BOXES)), load_model("d6").detect(read_image(SMALL_BOXES))
    assert len(found) == len(shipped) and np.abs(found.xyxy - shipped.xyxy).max() < 1.0
    assert _finds_the_labelled_die(found)


def test_the_bench_scores_off_tiles_and_windows_times_them_and_draws_where_windows_run(
    tmp_path, d6_real_form
):
    """``bench/d6_small.py`` on the fixture photos in the d6-real form: the three readings scored on the
    evaluator's path, the windows counted in the timing, the shipped reading timed alone, and the picture."""
    src = d6_real_form
    picture = tmp_path / "windows.png"
    run = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve().parents[2] / "bench" / "d6_small.py"),
            *("--src", str(src), "--sets", "heldout", "--frames", "4", "--json", "--picture", str(picture)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(out["heldout"]) == {"off", "tiles", "on"}
    cost = out["frame_1280"]
    assert cost["off"]["window_runs"] == 0 == cost["tiles"]["window_runs"]
    assert cost["on"]["detector_runs"] <= cost["tiles"]["detector_runs"]
    assert out["frame_1280_alone"]["wall_ms"] > 0 and out["frame_1280_alone"]["frames"] >= 4
    image = read_image(picture)
    assert image.shape[:2] == (1280, 1280) and "windows of 192 px" in out["picture"]
