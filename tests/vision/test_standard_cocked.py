"""The cocked check of standard dice: its training path at toy size, the reader's ONNX it writes, and
how a bundle with the check reads and assigns a cocked die."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from companion.vision.numerals import NumeralModel, StandardReading, assign_standard  # noqa: E402
from companion.vision.reader import ModelError, resolve_model  # noqa: E402
from companion.vision.roll_reading import roll_readings  # noqa: E402
from companion.vision.train import standard_cocked as sc  # noqa: E402


@pytest.fixture(scope="module")
def base():
    return NumeralModel(resolve_model("polyhedral-oblique"))


@pytest.fixture(scope="module")
def toy(base, tmp_path_factory):
    """Crops of 3 frames with most dice cocked, and a head trained on them for a few passes."""
    from companion.vision.train.standard_training import load_net

    d = sc.frame_crops(base, "calibration", 3, 5, share=0.5, log=lambda m: None)
    net = load_net(base.bundle / "face.pt")
    feats = sc.body_features(net, d["crops"])
    head = sc.train_head(feats, d["cocked"], log=lambda m: None, epochs=3, batch=8)
    return d, net, feats, head


def test_frame_crops_are_the_finders_crops_of_true_dice_with_their_cocked_flag(toy):
    d, _, feats, _ = toy
    assert d["crops"].shape[1:] == (64, 64, 3) and d["crops"].dtype == np.uint8
    assert len(d["cocked"]) == len(d["kind"]) == len(d["crops"]) == len(feats) > 0
    assert d["cocked"].any() and (~d["cocked"]).any()
    assert set(d["kind"]) <= {"d4", "d6", "d8", "d10", "d12", "d20"}


def test_the_same_arguments_give_the_same_crops(base):
    a = sc.frame_crops(base, "train", 1, 9, log=lambda m: None)
    b = sc.frame_crops(base, "train", 1, 9, log=lambda m: None)
    assert np.array_equal(a["crops"], b["crops"]) and np.array_equal(a["cocked"], b["cocked"])


def test_bad_arguments_are_refused(base):
    with pytest.raises(sc.StandardCockedError, match="frames must be 1 or more"):
        sc.frame_crops(base, "train", 0, 1)
    with pytest.raises(sc.StandardCockedError, match="cocked share is 0 to 1"):
        sc.frame_crops(base, "train", 1, 1, share=1.5)
    with pytest.raises(sc.StandardCockedError, match="both flat and cocked"):
        sc.train_head(np.zeros((4, 3), np.float32), np.zeros(4, bool))
    with pytest.raises(sc.StandardCockedError, match="3 feature rows for 2 labels"):
        sc.train_head(np.zeros((3, 3), np.float32), np.array([True, False]))


def test_the_threshold_is_the_lowest_that_keeps_every_flat_set_under_the_bound():
    flat_a = np.r_[np.full(996, 0.1), np.full(4, 0.93)]  # 0.4 % at 0.93
    flat_b = np.r_[np.full(990, 0.2), np.full(10, 0.71)]  # 1 % at 0.71: needs more than 0.71
    assert sc.choose_threshold([flat_a, flat_b]) == pytest.approx(0.72)
    assert sc.choose_threshold([flat_a]) == pytest.approx(0.5)
    assert sc.choose_threshold([np.ones(100)]) is None  # no threshold calls few enough flat dice cocked
    assert sc.choose_threshold([flat_a, np.zeros(0)]) == pytest.approx(0.5)  # an empty set bounds nothing


def _with_check(base, head, tmp_path):
    """A copy of the shipped bundle whose reader has ``head`` as its cocked check, at threshold 0.5."""
    bundle = tmp_path / "b"
    shutil.copytree(base.bundle, bundle)
    sc.export_reader(base.bundle / "face.pt", head, bundle)
    meta = json.loads((bundle / "model.json").read_text())
    meta["cocked_threshold"] = 0.5
    (bundle / "model.json").write_text(json.dumps(meta))
    return bundle


def test_the_exported_reader_reads_as_before_and_adds_the_heads_cocked_output(toy, base, tmp_path):
    d, _, feats, head = toy
    bundle = _with_check(base, head, tmp_path)
    new = NumeralModel(bundle)
    old_p, new_p = base.faces(d["crops"]), new.faces(d["crops"])
    for key in ("kind", "value"):
        assert np.allclose(old_p[key], new_p[key], atol=1e-5)
    assert "cocked" not in old_p and new_p["cocked"].shape == (len(d["crops"]), 2)
    assert np.allclose(new_p["cocked"][:, 1], sc.probabilities(head, feats), atol=1e-4)
    ck = torch.load(bundle / "face.pt", weights_only=False)
    assert set(ck["cocked_head"]) == {"state", "n_in", "hidden"}


def test_a_bundle_with_the_check_leaves_a_cocked_die_unread(toy, base, tmp_path):
    from companion.vision.crops import crop_die

    d, _, _, head = toy
    bundle = _with_check(base, head, tmp_path)
    model = NumeralModel(bundle)
    image = np.concatenate(
        [np.pad(c, ((20, 20), (20, 20), (0, 0)), mode="edge") for c in d["crops"][:6]], axis=1
    )
    boxes = np.array([[104 * i + 30, 30, 104 * i + 74, 74] for i in range(6)], float)
    p = model.faces(np.stack([crop_die(image, b) for b in boxes]))["cocked"][:, 1]
    model.cocked_threshold = float(np.sort(p)[3])  # the three most cocked-looking of the six
    plain = base.read_boxes(image, boxes)
    readings = model.read_boxes(image, boxes)
    assert [r.cocked for r in readings] == [bool(x >= model.cocked_threshold) for x in p]
    assert sum(r.cocked for r in readings) >= 3
    for r, before in zip(readings, plain, strict=True):
        assert r.kind == before.kind and r.box == before.box
        if r.cocked:  # rolled again: no value, whatever the face reads
            assert r.unreadable and r.value is None and r.reading is None and r.to_dict()["cocked"] is True
        else:  # the check changes nothing else
            assert r == before and "cocked" not in r.to_dict()


def test_assign_gives_a_slot_a_cocked_die_only_when_no_readable_die_of_its_size_is_left():
    def r(kind, value, cocked=False):
        return StandardReading(
            [0, 0, 10, 10],
            kind,
            value,
            None if value is None else str(value),
            0.9,
            value is None,
            cocked=cocked,
        )

    readings = [r("d20", None, cocked=True), r("d20", 17), r("d8", None, cocked=True)]
    out = assign_standard(readings, ["d20", "d20", "d8", "d12"])
    units = out["units"]
    assert units[0]["detection"] == 1 and units[0]["face_index"] == 16 and not units[0]["cocked"]
    assert units[1]["detection"] == 0 and units[1]["cocked"] is True and units[1]["face_index"] is None
    assert units[2]["detection"] == 2 and units[2]["cocked"] is True
    assert units[3]["detection"] is None and not units[3]["cocked"]
    faces = [[str(v) for v in range(1, n + 1)] for n in (20, 20, 8, 12)]
    read = roll_readings(out, ["a", "b", "c", "d"], faces)
    assert read[0].face == "17" and read[1].problem == "cocked: reroll it"
    states = [x.state.name for x in read]
    assert states == ["READ", "COCKED", "COCKED", "UNREADABLE"]
    assert out["dice"][0]["cocked"] is True and "cocked" not in out["dice"][1]


@pytest.mark.parametrize(
    ("value", "message"),
    [(0, r"cocked_threshold must be a number in \(0, 1\]"), (1.5, "in \\(0, 1\\]"), ("high", "not 'high'")],
)
def test_a_bad_cocked_threshold_is_refused_naming_the_file(base, tmp_path, value, message):
    bundle = tmp_path / "b"
    shutil.copytree(base.bundle, bundle)
    meta = json.loads((bundle / "model.json").read_text())
    meta["cocked_threshold"] = value
    (bundle / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=message):
        NumeralModel(bundle)


def test_a_threshold_without_the_cocked_output_is_refused(tmp_path):
    from companion.vision.train.standard_training import load_net  # noqa: F401

    src = resolve_model("polyhedral")
    bundle = tmp_path / "b"
    shutil.copytree(src, bundle)
    meta = json.loads((bundle / "model.json").read_text())
    meta["cocked_threshold"] = 0.9
    (bundle / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="face.onnx has no 'cocked' output"):
        NumeralModel(bundle)
