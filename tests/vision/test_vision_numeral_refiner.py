"""A numerals bundle with a box refiner (``box_refiner`` in its ``model.json``): the finder's boxes are moved
before any crop is cut, a bundle naming a refiner it lacks is refused, and the frame bench reads the same
frames with and without one (the rule of models/polyhedral-oblique/CHANGELOG.md, stop 43)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from profile_support import bench_module, enrol_one_d20

from companion.vision.box_refine import BoxRefiner
from companion.vision.crops import crop_die
from companion.vision.detections import box_iou, same_dice
from companion.vision.die_pixels import die_sides
from companion.vision.numerals import NumeralModel, load_numeral_model
from companion.vision.onnx_session import ModelError
from companion.vision.reader import models_dir
from companion.vision.synth.real_dice import render_standard_table

ROLL = [("d6", 5, 200_001), ("d8", 3, 200_001), ("d12", 9, 200_002), ("d20", 17, 200_002)]


def _bundle_copy(tmp_path: Path, **meta) -> Path:
    out = tmp_path / "oblique"
    shutil.copytree(models_dir() / "polyhedral-oblique", out)
    m = json.loads((out / "model.json").read_text())
    (out / "model.json").write_text(json.dumps({**m, **meta}))
    return out


def test_a_bundle_naming_a_refiner_it_lacks_is_refused_naming_the_file(tmp_path):
    bundle = _bundle_copy(tmp_path, box_refiner={"onnx": "refine.onnx", "looks": 8})
    # the shipped bundle holds its refiner (R3, stop 47): this copy lacks it
    (bundle / "refine.onnx").unlink()
    with pytest.raises(ModelError, match=r"lacks refine\.onnx \(named by box_refiner"):
        NumeralModel(bundle)


class _Shift:
    """A stand-in refiner: every box moved right by ``dx`` px (what the model does with its answer)."""

    kinds = None  # every box it is given is moved (``box_refiner.kinds`` not set)
    from_px = None  # of any size (``box_refiner.from_px`` not set)
    large_enough = BoxRefiner.large_enough  # the real refiner's size test

    def __init__(self, dx: float):
        self.dx, self.calls = dx, 0

    def __call__(self, image, boxes):
        self.calls += 1
        return np.asarray(boxes, np.float32) + np.array([self.dx, 0, self.dx, 0], np.float32)


class _OntoFirst(_Shift):
    """A stand-in refiner that moves every box onto the first one."""

    def __call__(self, image, boxes):
        return np.repeat(np.asarray(boxes, np.float32)[:1], len(boxes), axis=0)


def test_the_dice_are_read_in_the_refined_boxes():
    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 640, 480)
    model = NumeralModel(models_dir() / "polyhedral-oblique")
    # the shipped refiner (R3, stop 47) moves only d20s at least 90 px across: none in a 640 px frame
    assert model.refiner.from_px == 90 and model.refiner.kinds == ("d20",)
    assert not model.find_dice(image).refined.any()
    found = model.find_dice(image).xyxy
    assert len(found) >= 3
    model.refiner = shift = _Shift(7.0)
    det = model.find_dice(image)
    moved = det.xyxy
    assert np.allclose(moved, found + [7, 0, 7, 0], atol=1e-3)
    readings = model.readings(image)
    assert shift.calls == 2
    assert np.allclose([r.box for r in readings], np.round(moved, 1), atol=0.051)
    # read exactly as the moved boxes read when given: the crops were cut around them
    given = model.read_boxes(image, moved, det.confidence)
    assert [(r.kind, r.value, r.confidence) for r in readings] == [
        (g.kind, g.value, g.confidence) for g in given
    ]


@pytest.mark.parametrize("bad", [1.5, 0, "0.5", True])
def test_a_bundle_with_a_bad_same_die_is_refused_naming_it(tmp_path, bad):
    with pytest.raises(ModelError, match=r"same_die must be an IoU above 0 and under 1"):
        NumeralModel(_bundle_copy(tmp_path, same_die=bad))


def test_two_found_boxes_of_one_die_are_read_once_with_same_die(tmp_path):
    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 640, 480)
    found = NumeralModel(models_dir() / "polyhedral-oblique").find_dice(image)
    twice = np.concatenate([found.xyxy, found.xyxy[:1] + [2, 0, 2, 0]])  # a second box on the first die
    model = NumeralModel(_bundle_copy(tmp_path, same_die=0.5))
    assert model.same_die == 0.5
    model.box_finder = lambda image, conf: type(found)(
        xyxy=twice,
        confidence=np.append(found.confidence, found.confidence[0] / 2),
        class_id=np.zeros(len(twice), int),
    )
    assert np.allclose(model.find_dice(image).xyxy, found.xyxy)
    assert len(model.readings(image)) == len(found)


def test_boxes_moved_onto_one_die_are_read_once():
    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 640, 480)
    model = NumeralModel(models_dir() / "polyhedral-oblique")
    found = model.find_dice(image)
    model.refiner, model.same_die = _OntoFirst(0), None
    assert len(model.find_dice(image)) == len(found)  # no same_die: every box read, the die counted again
    model.same_die = 0.5
    det = model.find_dice(image)
    assert len(found) >= 3 and len(det) == 1
    assert np.allclose(det.xyxy[0], found.xyxy[0]) and det.confidence[0] == found.confidence.max()
    assert len(model.readings(image)) == 1


def test_same_dice_drops_the_lower_scored_of_two_boxes_over_the_iou():
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 20, 30, 30], [0, 0, 10, 20]], float)
    scores = np.array([0.5, 0.9, 0.7, 0.95])
    # boxes 0 and 1 overlap at IoU 0.82: box 0 goes; box 3 overlaps box 1 at 0.38 (kept at 0.5, not at 0.3)
    assert same_dice(boxes, scores, 0.5).tolist() == [1, 2, 3]
    assert same_dice(boxes, scores, 0.3).tolist() == [2, 3]
    assert same_dice(boxes, scores, None).tolist() == [0, 1, 2, 3]
    assert same_dice(boxes[:1], scores[:1], 0.5).tolist() == [0]


@pytest.mark.slow
@pytest.mark.train
def test_a_trained_refiner_named_by_the_bundle_moves_boxes_and_the_bench_reads_with_and_without_it(
    tmp_path, capsys
):
    from companion.vision.standard_frames import enrolled_reads, figures
    from companion.vision.synth.real_tables import Standard, write_real_tables
    from companion.vision.synth.standard_styles import CALIBRATION_STYLES, SPLITS
    from companion.vision.train.box_refiner import train

    # the real training path, a smoke run on two folders of rendered frames at once
    write_real_tables(tmp_path / "t1", Standard(SPLITS["train"][:4]), 2, seed=1, progress=False)
    write_real_tables(tmp_path / "t2", Standard(SPLITS["train"][4:8]), 2, seed=2, width=960, progress=False)
    lines: list[str] = []
    train([tmp_path / "t1", tmp_path / "t2"], tmp_path / "r", steps=6, batch=8, threads=1, log=lines.append)
    meta = json.loads((tmp_path / "r" / "refine.json").read_text())
    assert meta["train_photos"] == 4 and len(meta["train_data"]) == 2 and any("step 6/6" in m for m in lines)

    bundle = _bundle_copy(tmp_path, box_refiner={"onnx": "refine.onnx", "looks": 8, "passes": 1})
    shutil.copy(tmp_path / "r" / "refine.onnx", bundle / "refine.onnx")
    refined = NumeralModel(bundle)
    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 640, 480)
    found = load_numeral_model("polyhedral-oblique").find_dice(image).xyxy
    moved = refined.find_dice(image).xyxy
    assert moved.shape == found.shape and not np.allclose(moved, found)
    assert (moved[:, 2] > moved[:, 0]).all() and (moved[:, 3] > moved[:, 1]).all()

    # the bench: one set of frames read without a refiner and with this one at two blends
    bench = bench_module("standard_frames")
    write_real_tables(
        tmp_path / "f" / "calibration-2-4", Standard(CALIBRATION_STYLES[:6]), 2, seed=4, progress=False
    )
    out = tmp_path / "fig.json"
    argv = ["--split", "calibration", "--frames", "2", "--seed", "4", "--data-root", str(tmp_path / "f")]
    onnx = str(tmp_path / "r" / "refine.onnx")  # a refiner named by its file (or by its folder, below)
    argv += ["--enrolled", "1", "--refiner", onnx, "--blend", "1", "--blend", "0.5"]
    argv += ["--same-die", "0.5"]
    assert bench.main([*argv, "--json", str(out)]) == 0
    enrolled = json.loads(out.read_text())["enrolled"]
    assert {"without_refiner", "refiner_blend_1_same_die_0.5", "refiner_blend_0.5_same_die_0.5"} <= set(
        enrolled
    )
    assert "without a box refiner" in capsys.readouterr().out
    # the reading without a refiner is the enrolled bundle's own (the renders taught, kept between the
    # readings, are the ones a fresh reading draws)
    own = NumeralModel(enrol_one_d20(tmp_path / "b")).kind_gate
    # (the shipped bundle's own refiner and same_die set aside, as the bench's reading without them does)
    frames = tmp_path / "f" / "calibration-2-4"
    fresh = figures(enrolled_reads(tmp_path / "b", frames, shots=1, refiner=False, same_die=False), own)
    assert enrolled["without_refiner"]["figures"] == json.loads(json.dumps(fresh))
    # one box a die without a refiner: read beside the reading without it
    alone = [*argv[:8], "--enrolled", "1", "--same-die", "0.5", "--json", str(out)]
    assert bench.main(alone) == 0
    enrolled = json.loads(out.read_text())["enrolled"]
    assert enrolled["same_die"] == 0.5 and enrolled["refiner"] is None
    assert enrolled["without_refiner"]["figures"] == json.loads(json.dumps(fresh))
    kept = enrolled["same_die_0.5"]["figures"]["all"]
    assert kept["false_boxes_per_frame"] <= fresh["all"]["false_boxes_per_frame"]
    # bad flags are refused by name
    with pytest.raises(SystemExit):
        bench.main([*argv[:8], "--refiner", str(tmp_path / "r")])  # no --enrolled
    assert "--refiner and --same-die need --enrolled" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main([*argv[:8], "--enrolled", "1", "--same-die", "1.5"])
    assert "--same-die must be an IoU above 0 and under 1, not 1.5" in capsys.readouterr().err


class _OntoBox(_Shift):
    """A stand-in refiner naming ``kinds``: every box it is given moved onto ``target``."""

    def __init__(self, target, kinds):
        super().__init__(0.0)
        self.target, self.kinds = np.asarray(target, np.float32), tuple(kinds)

    def __call__(self, image, boxes):
        self.calls += 1
        return np.repeat(self.target[None], len(boxes), axis=0)


def _first_kinds(model, image, boxes) -> np.ndarray:
    return np.array(model.read_crops(np.stack([crop_die(image, b) for b in boxes]))[0])


def test_a_refiner_naming_kinds_moves_only_the_dice_first_read_as_one_of_them():
    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 640, 480)
    model = NumeralModel(models_dir() / "polyhedral-oblique")
    found = model.find_dice(image)
    first = _first_kinds(model, image, found.xyxy)
    picked = first == "d12"
    assert picked.any() and not picked.all() and not found.refined.any()
    model.refiner = shift = _Shift(7.0)
    shift.kinds = ("d12",)
    det = model.find_dice(image)
    assert det.refined.tolist() == picked.tolist()
    assert np.allclose(det.xyxy[picked], found.xyxy[picked] + [7, 0, 7, 0], atol=1e-3)
    assert np.array_equal(det.xyxy[~picked], found.xyxy[~picked])
    shift.kinds = ("d4",)  # no die read as a d4: nothing is moved and the refiner is never run
    calls = shift.calls
    det = model.find_dice(image)
    assert np.array_equal(det.xyxy, found.xyxy) and not det.refined.any() and shift.calls == calls


@pytest.mark.parametrize("enrolled", [False, True])
def test_a_die_whose_two_looks_disagree_is_left_unread(tmp_path, enrolled):
    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 640, 480)
    bundle = enrol_one_d20(tmp_path / "e") if enrolled else models_dir() / "polyhedral-oblique"
    model = NumeralModel(bundle)
    assert (model.combined is not None) == enrolled  # the enrolled bundle reads by its combined rule
    found = model.find_dice(image)
    first = _first_kinds(model, image, found.xyxy)
    d6 = int(np.flatnonzero(first == "d6")[0])
    plain = model.readings(image)
    assert plain[d6].value == 5  # the d6 is read on its own box
    # the dice first read as a d12 are moved onto the d6: their second look reads a d6, not a d12
    model.refiner = _OntoBox(found.xyxy[d6], ["d12"])
    det = model.find_dice(image)
    moved = np.flatnonzero(det.refined)
    assert len(moved) and (first[moved] == "d12").all()
    readings = model.readings(image)
    for i in moved:
        assert readings[i].kind == "d6" and readings[i].value is None and readings[i].unreadable
    # the same boxes read without the refiner's mark read the d6's value: the disagreement is what
    # leaves them unread
    unmarked = model.read_boxes(image, det.xyxy, det.confidence)
    assert all(unmarked[i].value == 5 for i in moved)
    assert model.looks_disagree([r.kind for r in readings], det.refined).tolist() == det.refined.tolist()
    # a refiner naming no kinds moves every box, and no reading is left unread for its kind
    model.refiner = _Shift(0.0)
    assert not model.looks_disagree(["d6"] * len(found), np.ones(len(found), bool)).any()


@pytest.mark.parametrize(
    ("kinds", "match"),
    [
        (["d7"], r"box_refiner\.kinds: 'd7' is not a kind"),
        ("d20", "kinds must be a list"),
        ([], "kinds must"),
    ],
)
def test_a_bundle_with_bad_refiner_kinds_is_refused_naming_them(tmp_path, kinds, match):
    bundle = _bundle_copy(tmp_path, box_refiner={"onnx": "refine.onnx", "looks": 1, "kinds": kinds})
    shutil.copy(models_dir() / "polyhedral-oblique" / "candidates" / "refine-r.onnx", bundle / "refine.onnx")
    with pytest.raises(ModelError, match=match):
        NumeralModel(bundle)


def test_a_bundle_naming_refiner_kinds_reads_with_the_real_refiner(tmp_path):
    bundle = _bundle_copy(tmp_path, box_refiner={"onnx": "refine.onnx", "looks": 1, "kinds": ["d12"]})
    shutil.copy(models_dir() / "polyhedral-oblique" / "candidates" / "refine-r.onnx", bundle / "refine.onnx")
    model = NumeralModel(bundle)
    assert model.refiner.kinds == ("d12",)
    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 640, 480)
    found = NumeralModel(models_dir() / "polyhedral-oblique").find_dice(image)
    det = model.find_dice(image)
    picked = _first_kinds(model, image, found.xyxy) == "d12"
    assert det.refined.tolist() == picked.tolist()
    assert not np.allclose(det.xyxy[picked], found.xyxy[picked])
    assert np.array_equal(det.xyxy[~picked], found.xyxy[~picked])


class _Counted:
    """The reader, counting the crops it is given."""

    def __init__(self, faces):
        self.faces, self.outputs, self.crops = faces, faces.outputs, 0

    def __call__(self, crops):
        self.crops += len(crops)
        return self.faces(crops)


@pytest.mark.parametrize("enrolled", [False, True])
def test_each_crop_is_read_once_and_reads_as_when_read_twice(tmp_path, enrolled):
    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 640, 480)
    bundle = enrol_one_d20(tmp_path / "e") if enrolled else models_dir() / "polyhedral-oblique"
    model = NumeralModel(bundle)
    model.refiner = _Shift(3.0)
    model.refiner.kinds = ("d12",)
    model.faces = counted = _Counted(model.faces)
    once = model.readings(image)
    det = model.find_dice(image)
    moved = int(det.refined.sum())
    assert 0 < moved < len(det)
    counted.crops = 0
    model.readings(image)
    assert counted.crops == len(det) + moved  # the first look over every box, then the moved ones
    # so too ``read_crops`` (the frame bench's replay) after ``find_dice``, with the same readings
    counted.crops = 0
    det = model.find_dice(image)
    kinds, values, _ = model.read_crops(np.stack([crop_die(image, b) for b in det.xyxy]))
    assert counted.crops == len(det) + moved
    assert [(r.kind, r.value) for r in once if r.value is not None] == [
        (k, int(v)) for k, v, r in zip(kinds, values, once, strict=True) if r.value is not None
    ]
    # read twice (every crop read again after the first look): the same readings
    model.read_faces = model.faces
    counted.crops = 0
    twice = model.readings(image)
    assert counted.crops == 2 * len(det)
    assert [r.to_dict() for r in twice] == [r.to_dict() for r in once]
    # a refiner for every kind reads every crop once too, and nothing is kept between frames
    del model.read_faces
    model.refiner.kinds = None
    counted.crops = 0
    model.readings(image)
    assert counted.crops == len(det) and model._first_look == {}


def test_the_watch_reads_a_frame_as_the_bundle_does_two_looks_included():
    from companion.cli.watch import _StandardDice

    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 640, 480)
    model = NumeralModel(models_dir() / "polyhedral-oblique")
    found = model.find_dice(image)
    d6 = int(np.flatnonzero(_first_kinds(model, image, found.xyxy) == "d6")[0])
    model.refiner = _OntoBox(found.xyxy[d6], ["d12"])
    watched = _StandardDice(model)
    dice = watched.readings(image, watched.detect(image))
    assert [d.to_dict() for d in dice] == [dict(r.to_dict(), cocked=False) for r in model.readings(image)]
    moved = [d for d in dice if d.reading.kind == "d6" and d.unreadable]
    assert len(moved) == int(model.find_dice(image).refined.sum()) > 0


def test_a_refiner_naming_from_px_moves_only_the_dice_that_large_and_reads_small_ones_once():
    """Candidate R3 of models/polyhedral-oblique/CHANGELOG.md, stop 46: ``box_refiner.from_px``."""
    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 640, 480)
    model = NumeralModel(models_dir() / "polyhedral-oblique")
    found = model.find_dice(image)
    sides = np.maximum(found.xyxy[:, 2] - found.xyxy[:, 0], found.xyxy[:, 3] - found.xyxy[:, 1])
    first = _first_kinds(model, image, found.xyxy)
    model.refiner = shift = _Shift(7.0)
    shift.kinds = tuple(sorted(set(first.tolist())))  # every kind read: only the size picks
    shift.from_px = float(np.median(sides))
    big = sides >= shift.from_px
    assert big.any() and not big.all()
    det = model.find_dice(image)
    assert det.refined.tolist() == big.tolist()
    assert np.allclose(det.xyxy[big], found.xyxy[big] + [7, 0, 7, 0], atol=1e-3)
    assert np.array_equal(det.xyxy[~big], found.xyxy[~big])
    # no die that large: the refiner never runs and the reader reads each crop once
    shift.from_px = float(sides.max()) + 1.0
    model.faces = counted = _Counted(model.faces)
    calls = shift.calls
    readings = model.readings(image)
    assert shift.calls == calls and counted.crops == len(found)
    assert [r.box for r in readings] == [
        r.box for r in NumeralModel(models_dir() / "polyhedral-oblique").readings(image)
    ]


@pytest.mark.parametrize("bad", [0, -5, "big", True, [90]])
def test_a_bundle_with_a_bad_refiner_from_px_is_refused_naming_it(tmp_path, bad):
    bundle = _bundle_copy(
        tmp_path, box_refiner={"onnx": "refine.onnx", "looks": 1, "kinds": ["d20"], "from_px": bad}
    )
    shutil.copy(models_dir() / "polyhedral-oblique" / "candidates" / "refine-r.onnx", bundle / "refine.onnx")
    with pytest.raises(ModelError, match="from_px must be a die size in pixels"):
        NumeralModel(bundle)


def test_the_shipped_bundle_moves_a_d20_many_pixels_across_onto_the_die_and_nothing_else():
    """R3 as shipped (models/polyhedral-oblique/CHANGELOG.md, stop 47): on a 2560 px frame every die is
    over 90 px across, and only the d20's box is moved, tighter onto the die than the finder put it."""
    image, labels = render_standard_table(ROLL, np.random.default_rng(5), 2560, 1920)
    model = NumeralModel(models_dir() / "polyhedral-oblique")
    det = model.find_dice(image)
    model.refiner = None  # the same bundle without its refiner: the finder's boxes
    found = model.find_dice(image)
    assert len(det) == len(found) == len(ROLL)
    assert (die_sides(found.xyxy) >= 90).all()
    true_d20 = np.array([lab["box"] for lab in labels if lab["kind"] == "d20"])
    on_d20 = box_iou(found.xyxy, true_d20).ravel() > 0.5
    assert det.refined.tolist() == on_d20.tolist()  # the d20 only
    assert np.array_equal(det.xyxy[~on_d20], found.xyxy[~on_d20])
    assert box_iou(det.xyxy[on_d20], true_d20).item() > box_iou(found.xyxy[on_d20], true_d20).item() + 0.03


def test_a_bundle_enrolled_from_the_shipped_one_carries_its_refiner_and_reads_as_it_moves(tmp_path):
    """``companion vision enroll`` copies the base's networks: the table's own bundle moves the same d20."""
    enrolled = NumeralModel(enrol_one_d20(tmp_path / "ours"))
    assert (enrolled.bundle / "refine.onnx").read_bytes() == (
        models_dir() / "polyhedral-oblique" / "refine.onnx"
    ).read_bytes()
    assert enrolled.refiner.kinds == ("d20",) and enrolled.refiner.from_px == 90 and enrolled.same_die == 0.5
    image, _ = render_standard_table(ROLL, np.random.default_rng(5), 2560, 1920)
    shipped = NumeralModel(models_dir() / "polyhedral-oblique").find_dice(image)
    det = enrolled.find_dice(image)
    assert det.refined.sum() == 1 and det.refined.tolist() == shipped.refined.tolist()
    assert np.allclose(det.xyxy, shipped.xyxy)
