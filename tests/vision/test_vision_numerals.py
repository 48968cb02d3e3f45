"""Standard dice (Battle Dice): the numeral renderer, the shipped ``polyhedral`` reader and the camera
path that assigns read dice to the slots of a pending roll."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.numerals import (
    SIDES,
    StandardReading,
    assign_standard,
    decode,
    evaluate_frames,
    load_numeral_model,
    numeral_bundle,
    read_standard_roll,
)
from companion.vision.reader import ModelError, read_image
from companion.vision.synth.numerals import (
    STANDARD_KINDS,
    face_text,
    numeral_texture,
    random_die,
    render_standard_scene,
    write_numeral_dataset,
)
from companion.vision.yolo_dataset import read_labels

FIXTURES = Path(__file__).parent / "fixtures" / "polyhedral"
# Regression guards under what the shipped reader measured on these fixtures (found 0.857, read right 0.743;
# models/polyhedral/MODEL_CARD.md); the box finder is the shipped dragon-dice detector, so some slack is kept.
MIN_FIXTURE_RECALL = 0.75
MIN_FIXTURE_ACCURACY = 0.7


def _scene(seed: int, **kw):
    rng = np.random.default_rng(seed)
    dice = [random_die(rng, k) for k in STANDARD_KINDS]
    return render_standard_scene(rng, dice, **kw)


def test_renderer_is_deterministic_for_a_seed():
    a, da, ma = _scene(11)
    b, db, mb = _scene(11)
    c, _, _ = _scene(12)
    assert np.array_equal(a, b) and ma == mb
    assert [(d.die.kind, d.die.value, d.box) for d in da] == [(d.die.kind, d.die.value, d.box) for d in db]
    assert not np.array_equal(a, c)


def test_every_drawn_die_has_a_box_inside_the_frame_around_its_paint():
    img, drawn, _ = _scene(5, ppm=3.0, tilt_deg=0.0, clutter=False, photo=False)
    assert {d.die.kind for d in drawn} == set(STANDARD_KINDS)
    for d in drawn:
        x1, y1, x2, y2 = d.box
        assert 0 <= x1 < x2 <= img.shape[1] and 0 <= y1 < y2 <= img.shape[0]
        inside = img[int(y1) : int(y2), int(x1) : int(x2)].astype(int)
        ring = img[max(0, int(y1) - 30) : int(y1) - 2, int(x1) : int(x2)].astype(int)
        # a die body differs from the table just outside its box
        if ring.size:
            assert np.abs(inside.mean((0, 1)) - ring.mean((0, 1))).sum() > 5


def test_face_text_follows_die_conventions():
    assert face_text("d10", 10) == "0"
    assert face_text("d20", 20) == "20"
    with pytest.raises(ValueError, match="d8 has faces 1..8"):
        face_text("d8", 9)


def test_six_and_nine_are_drawn_differently_even_turned_over():
    six = numeral_texture("d20", 6, 72, (240, 240, 240), (20, 20, 20))
    nine = numeral_texture("d20", 9, 72, (240, 240, 240), (20, 20, 20))
    assert not np.array_equal(six, np.rot90(nine, 2))


def test_d6_shows_pips_and_d4_repeats_its_number():
    def blobs(kind, value):
        tex = numeral_texture(kind, value, 72, (240, 240, 240), (0, 0, 0))
        return cv2.connectedComponents((tex[..., 0] < 100).astype(np.uint8))[0] - 1

    assert [blobs("d6", v) for v in range(1, 7)] == [1, 2, 3, 4, 5, 6]  # one dark blob per pip
    assert blobs("d20", 3) == 1 and blobs("d4", 3) == 3  # a d4 shows its number at the apex of 3 faces


def test_dataset_writer_labels_and_manifest_agree(tmp_path):
    yml = write_numeral_dataset(tmp_path / "ds", 3, seed=4, profile="heldout", size=320)
    recs = [json.loads(line) for line in (tmp_path / "ds" / "manifest.jsonl").read_text().splitlines()]
    assert yml.is_file() and len(recs) == 3
    for rec in recs:
        cls, _ = read_labels((tmp_path / "ds" / rec["image"].replace("images", "labels")).with_suffix(".txt"))
        assert [STANDARD_KINDS[c] for c in cls] == [d["kind"] for d in rec["dice"]]
        assert all(1 <= d["value"] <= SIDES[d["kind"]] for d in rec["dice"])


def test_decode_reads_only_the_faces_of_the_kind_read():
    kind = np.zeros((1, 6))
    kind[0, 2] = 1.0  # d8
    value = np.full((1, 20), 0.01)
    value[0, 12] = 0.8  # "13" is the likeliest number overall, but a d8 has no 13
    value[0, 6] = 0.1  # "7"
    k, v, c = decode(kind, value)
    assert (k[0], v[0]) == (2, 7) and 0 < c[0] <= 1


def _r(kind, value, conf=0.9, unreadable=False):
    return StandardReading([0, 0, 10, 10], kind, value, str(value), conf, unreadable)


def test_assignment_gives_each_slot_a_die_of_its_size():
    readings = [_r("d20", 17), _r("d6", 4, 0.6), _r("d6", 2, 0.95), _r("d8", 3, unreadable=True)]
    out = assign_standard(readings, ["d6", "d20", "d6", "d8"])
    got = {u["slot"]: (u["detection"], u["face_index"]) for u in out["units"]}
    assert got[0] == (2, 1) and got[1] == (0, 16) and got[2] == (1, 3)
    assert got[3] == (None, None)  # the unreadable d8 is left for the player to tap
    assert out["unassigned"] == [3]


def test_read_standard_roll_refuses_dice_that_are_not_standard():
    with pytest.raises(ModelError, match="not standard dice: Goblin Thug"):
        read_standard_roll(np.zeros((32, 32, 3), np.uint8), ["d6", "Goblin Thug"])


def test_polyhedral_is_a_shipped_numeral_bundle_and_d6_is_not():
    assert numeral_bundle("polyhedral") is not None
    assert numeral_bundle("d6") is None
    with pytest.raises(ModelError, match="not a numeral-reading model"):
        load_numeral_model("d6")


def test_shipped_reader_reads_committed_rendered_fixtures():
    out = evaluate_frames(load_numeral_model("polyhedral"), FIXTURES)
    assert out["images"] == 8 and out["dice"] == 35
    assert out["recall"] >= MIN_FIXTURE_RECALL
    assert out["accuracy"] >= MIN_FIXTURE_ACCURACY


def test_camera_path_fills_a_battle_dice_roll_from_a_fixture_frame():
    rec = json.loads((FIXTURES / "manifest.jsonl").read_text().splitlines()[0])
    image = read_image(FIXTURES / rec["image"])
    slots = [d["kind"] for d in rec["dice"]]
    out = read_standard_roll(image, slots, model="polyhedral")  # the fixtures are drawn from above
    assert len(out["units"]) == len(slots)
    right = 0
    for unit, die in zip(out["units"], rec["dice"], strict=True):
        if unit["face_index"] is not None:
            assert out["dice"][unit["detection"]]["kind"] == die["kind"]
            # same-size dice are interchangeable: the value must be one of that size's dice in the frame
            right += unit["face_index"] + 1 in [d["value"] for d in rec["dice"] if d["kind"] == die["kind"]]
    assert right >= len(slots) // 2


def test_cli_read_and_eval_with_the_polyhedral_model():
    image = FIXTURES / json.loads((FIXTURES / "manifest.jsonl").read_text().splitlines()[0])["image"]
    out = subprocess.run(
        [sys.executable, "-m", "companion", "vision", "read", str(image), "--model", "polyhedral", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    records = json.loads(out.stdout)
    assert records and all(r["kind"] in STANDARD_KINDS for r in records)
    ev = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            "vision",
            "eval",
            "--model",
            "polyhedral",
            "--data",
            str(FIXTURES),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ev.returncode == 0, ev.stderr
    assert json.loads(ev.stdout)["dice"] == 35
