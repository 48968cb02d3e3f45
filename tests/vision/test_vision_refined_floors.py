"""Kind gates and margin floors chosen again for refined boxes (candidate R1 of
models/polyhedral-oblique/CHANGELOG.md, stop 44): readings pooled across frame sets, a bundle copied
without its gates and floors whose replay under them is the bundle's own reading, and the bench that
chooses and scores them (``bench/refined_floors.py``)."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from profile_support import bench_module, enrol_one_d20

from companion.vision.combined_reading import parse_rule
from companion.vision.crops import crop_die
from companion.vision.numerals import NumeralModel, load_numeral_model
from companion.vision.reader import models_dir, read_image
from companion.vision.reader_gate import ReaderGate
from companion.vision.standard_frames import enrolled_reads, figures, floors_spec, gated_by_floor, pooled
from companion.vision.synth.real_tables import Standard, write_real_tables
from companion.vision.synth.standard_styles import CALIBRATION_STYLES

REFINER = models_dir() / "polyhedral-oblique" / "candidates" / "refine-r.onnx"


def _raw(kinds, values, confs, truth, dice) -> dict:
    return {
        "frames": 1,
        "ms": [1.0],
        "box": {
            "kind": np.array(kinds),
            "value": np.array(values),
            "conf": np.array(confs, float),
            "truth": np.array(truth),
        },
        "die": {
            "kind": np.array([k for k, _, _ in dice]),
            "value": np.array([v for _, v, _ in dice]),
            "cocked": np.array([c for _, _, c in dice]),
        },
    }


def test_pooled_readings_keep_each_box_on_its_own_true_die():
    one = _raw(["d6", "d20"], [3, 17], [0.9, 0.9], [1, -1], [("d20", 5, False), ("d6", 3, False)])
    two = _raw(["d20", "d8"], [5, 2], [0.9, 0.2], [0, 1], [("d20", 5, False), ("d8", 7, False)])
    both = pooled([one, two])
    assert both["frames"] == 2 and both["ms"] == [1.0, 1.0]
    assert both["box"]["truth"].tolist() == [1, -1, 2, 3]  # the second reading's dice come after the first's
    assert both["die"]["kind"].tolist() == ["d20", "d6", "d20", "d8"]
    gate = ReaderGate(0.5)
    fig, a, b = figures(both, gate), figures(one, gate), figures(two, gate)
    for key in ("flat_dice", "found", "read_right", "read_wrong", "unreadable"):
        assert fig["all"][key] == a["all"][key] + b["all"][key]
    assert (fig["all"]["read_right"], fig["all"]["unreadable"], fig["all"]["flat_dice"]) == (2, 1, 4)
    assert fig["all"]["phantoms_read_per_frame"] == 0.5  # the first frame's box on no die, over 2 frames


def test_pooled_refuses_nothing_and_readings_that_keep_other_arrays():
    one = _raw(["d6"], [3], [0.9], [0], [("d6", 3, False)])
    other = {**one, "box": {**one["box"], "margin": np.array([1.0])}}
    with pytest.raises(ValueError, match="no readings"):
        pooled([])
    with pytest.raises(ValueError, match=r"reading 1 keeps \['conf', 'kind', 'margin'"):
        pooled([one, other])


def test_a_reading_without_boxes_pools_with_others():
    empty = _raw([], [], [], [], [("d6", 2, False)])
    one = _raw(["d6"], [3], [0.9], [0], [("d6", 3, False)])
    both = pooled([empty, one])
    assert both["box"]["kind"].tolist() == ["d6"] and both["box"]["truth"].tolist() == [1]
    assert figures(both, ReaderGate(0.5))["all"]["flat_dice"] == 2


def test_the_set_flag_is_parsed_and_bad_ones_are_refused_naming_them():
    bench = bench_module("refined_floors")
    assert bench.parse_set("calibration:800:51:1280") == ("calibration", 800, 51, 1280)
    for bad in ("calibration:800:51", "train:1:1:1280", "test:x:1:1280", "test:0:1:1280", "test:1:1:100"):
        with pytest.raises(argparse.ArgumentTypeError, match=f"--set '{bad}'"):
            bench.parse_set(bad)


def test_a_floors_file_is_checked_naming_the_bad_key():
    bench = bench_module("refined_floors")
    model = load_numeral_model("polyhedral-oblique")
    combined = model.meta["combined_reading"]
    good = {"min_kind_confidence_by_kind": {"d20": 0.9}, "min_margin_floor": {"d20": 3, "d6": 0}}
    assert bench.read_floored(good, model.kinds, combined) == ({"d20": 0.9}, {"d20": 3.0, "d6": 0.0})
    for bad, named in (
        ({"min_margin_floor": {}}, "expected an object with 'min_kind_confidence_by_kind'"),
        ([1], "expected an object with"),
        ({**good, "min_kind_confidence_by_kind": {"d7": 0.5}}, r"min_kind_confidence_by_kind\.d7"),
        ({**good, "min_kind_confidence_by_kind": {"d6": -1}}, r"min_kind_confidence_by_kind\.d6"),
        ({**good, "min_margin_floor": {"d6": -1}}, r"min_margin_floor\.d6"),
        ({**good, "min_margin_floor": {"d6": True}}, r"min_margin_floor\.d6"),
        ({**good, "min_margin_floor": {"d9": 1}}, r"min_margin_floor\.d9"),
    ):
        with pytest.raises(ValueError, match=named):
            bench.read_floored(bad, model.kinds, combined)


@pytest.fixture(scope="module")
def frames(tmp_path_factory) -> Path:
    """Two CALIBRATION frames of sets on a table, at 640 px, where the bench finds them."""
    root = tmp_path_factory.mktemp("frames")
    write_real_tables(
        root / "calibration-2-4-w640",
        Standard(CALIBRATION_STYLES[:6]),
        2,
        seed=4,
        width=640,
        height=480,
        progress=False,
    )
    return root


def test_the_bundle_without_gates_and_floors_replayed_under_them_reads_as_the_bundle(tmp_path, frames):
    bench = bench_module("refined_floors")
    shipped = load_numeral_model("polyhedral-oblique")
    gates = dict(shipped.kind_gate.by_kind)
    floors = dict(shipped.meta["combined_reading"]["min_margin_floor"])
    assert gates and floors  # the shipped bundle has both: the replay below weighs them
    bare = bench.unfloored(shipped, tmp_path / "base")
    meta = json.loads((bare / "model.json").read_text())
    assert "min_kind_confidence_by_kind" not in meta and "min_margin_floor" not in meta["combined_reading"]
    assert meta["combined_reading"]["levels"] == shipped.meta["combined_reading"]["levels"]
    data = frames / "calibration-2-4-w640"
    own = enrolled_reads(enrol_one_d20(tmp_path / "own"), data, shots=1, resolution=0.5)
    raw = enrolled_reads(
        enrol_one_d20(tmp_path / "bare", str(bare)), data, shots=1, resolution=0.5, margins=True
    )
    assert len(raw["box"]["kind"]) >= 4
    # the margin the bare rule asks is the level's own, under the shipped floor for some box
    assert (raw["box"]["needed"] < np.array([floors.get(str(k), 0) for k in raw["box"]["kind"]])).any()
    assert figures(gated_by_floor(raw, gates, floors), ReaderGate(0.5)) == figures(own, shipped.kind_gate)
    # and without the floors the replay reads what the bundle leaves unread
    assert figures(gated_by_floor(raw, {}, {}), ReaderGate(0.5)) != figures(own, shipped.kind_gate)


def test_the_bench_chooses_gates_and_floors_for_refined_boxes_and_scores_them(tmp_path, frames, capsys):
    bench = bench_module("refined_floors")
    argv = ["--refiner", str(REFINER), "--looks", "1", "--same-die", "0.5", "--shots", "1"]
    argv += ["--data-root", str(frames), "--set", "calibration:2:4:640"]
    chosen = tmp_path / "floors.json"
    assert bench.main([*argv, "--choose", str(chosen), "--json", str(tmp_path / "c.json")]) == 0
    shipped = load_numeral_model("polyhedral-oblique")
    gates, floors = bench.read_floored(
        json.loads(chosen.read_text()), shipped.kinds, shipped.meta["combined_reading"]
    )
    out = json.loads((tmp_path / "c.json").read_text())
    assert out["chosen"] == {"min_kind_confidence_by_kind": gates, "min_margin_floor": floors}
    assert out["all_sets"] == out["w640"]["candidate"]  # one set: the pool is that set
    assert "chosen by the rule" in capsys.readouterr().out

    assert bench.main([*argv, "--floors", str(chosen), "--json", str(tmp_path / "s.json")]) == 0
    scored = json.loads((tmp_path / "s.json").read_text())["w640"]
    assert scored["candidate"] == out["w640"]["candidate"]  # the same reading, the same gates and floors
    own = NumeralModel(enrol_one_d20(tmp_path / "own"))
    data = frames / "calibration-2-4-w640"
    fresh = figures(enrolled_reads(tmp_path / "own", data, shots=1, resolution=0.5), own.kind_gate)
    assert scored["shipped"] == json.loads(json.dumps(fresh))

    # bad input is refused by name
    bad_large = tmp_path / "large.json"
    bad_large.write_text(json.dumps({"from_px": 90, "min_kind_confidence": {"d20": 0.8}, "min_margin": {}}))
    for extra, named in (
        (["--choose", str(tmp_path / "x.json"), "--set", "test:2:4:640"], "--choose chooses on calibration"),
        (["--floors", str(tmp_path / "none.json")], "--floors"),
        (["--choose", str(tmp_path / "x.json"), "--same-die", "1.5"], "--same-die must be an IoU"),
        (
            ["--choose", str(tmp_path / "x.json"), "--refine-from-px", "-3"],
            "--refine-from-px must be a die size",
        ),
        (["--choose", str(tmp_path / "x.json"), "--large-dice", str(tmp_path / "none.json")], "--large-dice"),
        (["--choose", str(tmp_path / "x.json"), "--large-dice", str(bad_large)], "large_dice.min_margin"),
        (["--choose", str(tmp_path / "x.json"), "--refine-kinds", "d20,d7"], "--refine-kinds 'd20,d7'"),
    ):
        with pytest.raises(SystemExit):
            bench.main([*argv, *extra])
        assert named in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main([*argv[2:], "--refiner", str(tmp_path / "none.onnx"), "--choose", str(chosen)])
    assert "no such file" in capsys.readouterr().err


def test_the_chosen_pairs_are_written_as_a_bundle_names_them():
    spec = floors_spec({"d6": (0.4, 0.0), "d20": (0.0, 3.0), "d8": (0.0, 0.0)})
    assert spec == {"min_kind_confidence_by_kind": {"d6": 0.4}, "min_margin_floor": {"d20": 3.0}}
    model = load_numeral_model("polyhedral-oblique")
    rule = parse_rule(
        {**model.meta["combined_reading"], **{"min_margin_floor": spec["min_margin_floor"]}}, model.kinds
    )
    assert rule.min_margin_floor == {"d20": 3.0}


def test_a_refiner_for_some_kinds_replayed_under_the_bundle_gates_reads_as_that_bundle(tmp_path, frames):
    """R2 of stop 45: the bundle naming a refiner for the dice first read as some kinds, read as it is, and
    its copy without gates and floors replayed under them (a die whose two looks disagree never read)."""
    bench = bench_module("refined_floors")
    shipped = load_numeral_model("polyhedral-oblique")
    gates = dict(shipped.kind_gate.by_kind)
    floors = dict(shipped.meta["combined_reading"]["min_margin_floor"])
    base = tmp_path / "r2"
    shutil.copytree(shipped.bundle, base, ignore=shutil.ignore_patterns("candidates", "*.pt", "*.md"))
    shutil.copy(REFINER, base / "refine.onnx")
    meta = json.loads((base / "model.json").read_text())
    meta.update(box_refiner={"onnx": "refine.onnx", "looks": 1, "kinds": ["d12", "d20"]}, same_die=0.5)
    (base / "model.json").write_text(json.dumps(meta))
    data = frames / "calibration-2-4-w640"
    own_bundle = enrol_one_d20(tmp_path / "own", str(base))
    own = enrolled_reads(own_bundle, data, shots=1, resolution=0.5)
    bare = bench.unfloored(NumeralModel(base), tmp_path / "bare-base")
    raw = enrolled_reads(
        enrol_one_d20(tmp_path / "bare", str(bare)), data, shots=1, resolution=0.5, margins=True
    )
    model = NumeralModel(own_bundle)
    assert model.refiner.kinds == ("d12", "d20")
    assert figures(gated_by_floor(raw, gates, floors), ReaderGate(0.5)) == figures(own, model.kind_gate)
    # the refiner did move boxes on these frames, and only of dice first read as one of its kinds
    rec = json.loads((data / "manifest.jsonl").read_text().splitlines()[0])
    image = read_image(data / rec["image"])
    det = model.find_dice(image)
    assert det.refined.any() and not det.refined.all()


class _OntoAnotherDie:
    """A stand-in refiner for the dice first read as a d12 or a d20: each moved onto the die of another kind
    the shipped reader is surest of in the frame, so their two looks disagree."""

    kinds = ("d12", "d20")
    from_px = None

    def large_enough(self, boxes):
        return np.ones(len(boxes), bool)

    def __init__(self):
        self.model = load_numeral_model("polyhedral-oblique")

    def __call__(self, image, boxes):
        found = self.model.find_dice(image).xyxy
        kinds, _, conf = self.model.read_crops(np.stack([crop_die(image, b) for b in found]))
        other = [i for i, k in enumerate(kinds) if k not in self.kinds]
        target = found[max(other, key=lambda i: conf[i])]
        return np.repeat(np.asarray(target, np.float32)[None], len(boxes), axis=0)


def test_dice_whose_two_looks_disagree_are_never_read_in_the_replay(tmp_path, frames):
    bench = bench_module("refined_floors")
    shipped = load_numeral_model("polyhedral-oblique")
    gates = dict(shipped.kind_gate.by_kind)
    floors = dict(shipped.meta["combined_reading"]["min_margin_floor"])
    data = frames / "calibration-2-4-w640"
    own_bundle = enrol_one_d20(tmp_path / "own")
    model = NumeralModel(own_bundle)
    # every moved box read apart (the shipped same_die would merge those moved onto one die)
    model.refiner, model.same_die = _OntoAnotherDie(), None
    disagree = 0
    for line in (data / "manifest.jsonl").read_text().splitlines():
        image = read_image(data / json.loads(line)["image"])
        det = model.find_dice(image)
        kinds = [r.kind for r in model.read_boxes(image, det.xyxy, det.confidence, det.refined)]
        disagree += int(model.looks_disagree(kinds, det.refined).sum())
    assert disagree >= 2  # the frames hold dice whose two looks disagree
    kw = {"shots": 1, "resolution": 0.5, "refiner": _OntoAnotherDie(), "same_die": False}
    own = enrolled_reads(own_bundle, data, **kw)
    bare = enrol_one_d20(tmp_path / "bare", str(bench.unfloored(shipped, tmp_path / "base")))
    raw = enrolled_reads(bare, data, margins=True, **kw)
    assert figures(gated_by_floor(raw, gates, floors), ReaderGate(0.5)) == figures(own, model.kind_gate)


def test_a_refiner_for_large_dice_with_their_own_gates_replayed_reads_as_that_bundle(tmp_path, frames):
    """R3 of stop 46: the refiner moves only the dice at least ``from_px`` across, and a ``large_dice``
    section judges the dice read that large; the bench's copy (``unfloored`` with that section) replayed
    under the shipped gates reads as the bundle itself."""
    bench = bench_module("refined_floors")
    shipped = load_numeral_model("polyhedral-oblique")
    gates = dict(shipped.kind_gate.by_kind)
    floors = dict(shipped.meta["combined_reading"]["min_margin_floor"])
    data = frames / "calibration-2-4-w640"
    images = [
        read_image(data / json.loads(line)["image"])
        for line in (data / "manifest.jsonl").read_text().splitlines()
    ]
    found = [shipped.find_dice(im).xyxy for im in images]
    sides = np.concatenate([np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) for b in found])
    from_px = float(np.median(sides))  # half the dice of these frames are that large
    # the section judges every die read as a d12 or a d20 (their moved boxes are tighter than the found)
    large = {
        "from_px": from_px / 2,
        "min_kind_confidence": {"d12": 0.3, "d20": 0.3},
        "min_margin": {"0": {"d12": 0.5, "d20": 0.5}},
    }
    base = tmp_path / "r3"
    shutil.copytree(shipped.bundle, base, ignore=shutil.ignore_patterns("candidates", "*.pt", "*.md"))
    shutil.copy(REFINER, base / "refine.onnx")
    meta = json.loads((base / "model.json").read_text())
    meta["box_refiner"] = {"onnx": "refine.onnx", "looks": 1, "kinds": ["d12", "d20"], "from_px": from_px}
    meta["same_die"] = 0.5
    meta["combined_reading"] = {**meta["combined_reading"], "large_dice": large}
    (base / "model.json").write_text(json.dumps(meta))
    own_bundle = enrol_one_d20(tmp_path / "own", str(base))
    own = enrolled_reads(own_bundle, data, shots=1, resolution=0.5)
    # the bench's copy: the shipped bundle without gates and floors, with the section and the refiner added
    bare = bench.unfloored(NumeralModel(base), tmp_path / "bare-base", large)
    assert json.loads((bare / "model.json").read_text())["combined_reading"]["large_dice"] == large
    raw = enrolled_reads(
        enrol_one_d20(tmp_path / "bare", str(bare)), data, shots=1, resolution=0.5, margins=True
    )
    model = NumeralModel(own_bundle)
    assert model.refiner.from_px == from_px and model.combined.large is not None
    assert figures(gated_by_floor(raw, gates, floors), ReaderGate(0.5)) == figures(own, model.kind_gate)
    # the section judged some dice, and the refiner moved only large dice first read as its kinds
    assert np.isfinite(np.asarray(raw["box"]["large_gate"], float)).any()
    model.same_die = None  # every found box kept, in the finder's order
    moved = small_kept = 0
    for image, boxes in zip(images, found, strict=True):
        det = model.find_dice(image)
        first = np.array(model.read_crops(np.stack([crop_die(image, b) for b in boxes]))[0])
        mine = np.isin(first, ["d12", "d20"])
        big = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) >= from_px
        assert det.refined.tolist() == (mine & big).tolist()
        moved += int(det.refined.sum())
        small_kept += int((mine & ~big).sum())
    assert moved and small_kept  # both cases are on these frames
