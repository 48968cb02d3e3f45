"""A standard die (d4..d20) the camera leaves unread offers the values the table profile knows nearest
what it saw: ``TableProfile.likely_values``, carried by ``StandardReading.likely``, put on the roll's
slot by ``numerals.assign_standard`` as the unit's ``alternatives`` (never as its value) and named
as the roll names its faces in the die's ``DieReading.likely`` (``roll_reading.roll_readings``).

Profiles built from unit vectors: each known value along its own axis, so the distances are exact."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import companion.vision.numerals as numerals
from companion.readings import ReadingError, Source, State, parse_reading
from companion.vision.numerals import StandardReading, assign_standard
from companion.vision.profile import FaceLabel, ProfileError, TableProfile
from companion.vision.reader import ModelError, SeenDie
from companion.vision.roll_reading import roll_readings

DIM = 8


@pytest.fixture
def profile() -> TableProfile:
    """d8 values 2, 5 and 7 known (axes 0, 1, 2), a d20's 3 (axis 3); a label no d6 can show, a 7 of a
    d6 (axis 4), stands for a bad enrolment: it must never be offered."""
    prof = TableProfile("t", DIM)
    eye = np.eye(DIM)
    for axis, (kind, value) in enumerate([("d8", 2), ("d8", 5), ("d8", 7), ("d20", 3), ("d6", 7)]):
        prof.add(eye[axis][None], [FaceLabel(kind, "value", value)])
    return prof


def _crop(*cosines: float) -> np.ndarray:
    v = np.zeros(DIM)
    v[: len(cosines)] = cosines
    v[-1] = np.sqrt(max(0.0, 1 - float(np.sum(np.square(cosines)))))
    return v


def test_the_known_values_of_the_kind_nearest_first_at_most_two(profile):
    crop = _crop(0.3, 0.1, 0.8)  # nearest the 7, then the 2, then the 5
    assert profile.likely_values(crop, "d8") == [7, 2]
    assert profile.likely_values(crop, "d8", most=10) == [7, 2, 5]  # each value once
    assert profile.likely_values(crop, "d8", most=0) == []
    assert profile.likely_values(_crop(0, 0, 0, 0.9), "d8", most=10) == [2, 5, 7]  # a tie: lower first
    # another kind's values are not this kind's; a value the kind lacks is never offered
    assert profile.likely_values(crop, "d20") == [3]
    assert profile.likely_values(_crop(0, 0, 0, 0, 0.99), "d6") == []
    assert profile.likely_values(crop, "d12") == []  # nothing of that kind taught
    with pytest.raises(ProfileError, match="not a standard die kind: 'Goblins/Thug'"):
        profile.likely_values(crop, "Goblins/Thug")


def _r(kind, value, conf=0.9, unreadable=False, likely=()):
    return StandardReading(
        [10.0 * conf, 0, 10.0 * conf + 9, 9],
        kind,
        value,
        None if value is None else str(value),
        conf,
        unreadable,
        list(likely),
    )


def test_an_unread_die_with_likely_values_goes_to_its_slot_without_a_value():
    readings = [
        _r("d20", 17),
        _r("d8", None, 0.3, True, likely=[7, 2]),
        _r("d8", 4, 0.8),
        _r("d8", None, 0.5, True),  # unread, nothing known near it: left unassigned, as before
        _r("d6", None, 0.4, True, likely=[3]),
    ]
    out = assign_standard(readings, ["d8", "d20", "d8", "d6", "d4"])
    units = out["units"]
    assert [(u["detection"], u["face_index"]) for u in units] == [
        (2, 3),
        (0, 16),
        (1, None),
        (4, None),
        (None, None),
    ]
    assert units[2]["alternatives"] == [
        {"detection": 1, "face": "7", "face_index": 6},
        {"detection": 1, "face": "2", "face_index": 1},
    ]
    assert "alternatives" not in units[0] and units[4].get("alternatives") is None
    assert out["unassigned"] == [3]
    assert out["dice"][1]["likely"] == [7, 2] and "likely" not in out["dice"][0]
    # a readable die always goes first: two d8 slots, one read d8, the unread one gets the second slot
    again = assign_standard(readings, ["d8", "d8"])["units"]
    assert [(u["detection"], u["face_index"]) for u in again] == [(2, 3), (1, None)]


def test_its_reading_is_unreadable_with_its_box_and_its_likely_faces():
    readings = [_r("d20", 17), _r("d8", None, 0.3, True, likely=[7, 2])]
    read = assign_standard(readings, ["d20", "d8"])
    faces = [[str(v) for v in range(1, 21)], [str(v) for v in range(1, 9)]]
    r20, r8 = roll_readings(read, ["A11", "A06"], faces=faces, frame=5)
    assert r20.state is State.READ and r20.face == "17" and r20.likely == ()
    assert r8.state is State.UNREADABLE and r8.face is None and r8.face_index is None  # never set
    assert r8.likely == ("7", "2") and r8.box == tuple(readings[1].box) and r8.source is Source.CAMERA
    assert r8.problem == "face not read: tap it"
    tapped = r8.corrected("2", 1)
    assert tapped.is_read and tapped.face == "2" and tapped.likely == ()


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (_r("d8", 4, likely=[4, 2]), r"die #1 \(d8\): only an unreadable die has likely values"),
        (_r("d8", None, 0.3, True, likely=[9]), r"die #1 \(d8\): likely value 9 is not a face of a d8"),
        (_r("d8", None, 0.3, True, likely=[0]), r"likely value 0 is not a face of a d8"),
        (_r("d8", None, 0.3, True, likely=[True]), r"likely value True is not a face"),
        (_r("d8", None, 0.3, True, likely=[2, 2]), r"die #1 \(d8\): likely names a value twice"),
    ],
)
def test_bad_likely_values_are_refused_naming_the_die(bad, words):
    readings = [_r("d20", 17), bad]
    with pytest.raises(ModelError, match=words):
        assign_standard(readings, ["d20", "d8"])
    assert readings[1].value == bad.value and readings[0].value == 17  # nothing changed


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ({"die": "A06", "face": "3", "likely": ["3", "5"]}, "die A06: only an unreadable die"),
        ({"die": "A06", "face": None, "state": "cocked", "likely": ["3"]}, "die A06: only an unreadable die"),
        (
            {"die": "A06", "face": None, "state": "unreadable", "likely": [3]},
            "die A06: likely must be a list",
        ),
        ({"die": "A06", "face": None, "state": "unreadable", "likely": ["3", "3"]}, "names a face twice"),
    ],
)
def test_a_standard_dies_reading_is_checked_as_a_dragon_dies(bad, words):
    with pytest.raises(ReadingError, match=words):
        parse_reading(bad)
    ok = parse_reading({"die": "A06", "face": None, "state": "unreadable", "likely": ["3", "5"]})
    assert ok.likely == ("3", "5") and not ok.is_read


# ------------------------------------------------------------------ a roll of d6 only (the ``d6`` model)

MOSAIC = Path(__file__).parent / "fixtures" / "standard_d20"
HALF = 64 / 1.15 / 2  # a box whose crop_die cut is exactly the 64 px tile


@pytest.fixture(scope="module")
def d6_table(tmp_path_factory):
    """``polyhedral-oblique`` enrolled with d6 values 1-5 (two tiles each of the mosaic fixture, labelled
    as the d6 values they show), and the other tiles of values 1-6 (the 6 never taught) to read."""
    from companion.vision.enroll import enroll, read_corrections
    from companion.vision.synth.standard_styles import read_mosaic

    tiles, labels = read_mosaic(MOSAIC)
    values = np.array(labels["values"])
    slot = np.arange(len(values)) % labels["per_value"]
    tmp = tmp_path_factory.mktemp("d6table")
    folder = tmp / "corrections"
    folder.mkdir()
    box = [32 - HALF, 32 - HALF, 32 + HALF, 32 + HALF]
    for i in np.flatnonzero((slot < 2) & (values <= 5)):
        cv2.imwrite(str(folder / f"f{i:02d}.png"), tiles[i])
        (folder / f"f{i:02d}.json").write_text(
            json.dumps({"dice": [{"box": box, "kind": "d6", "value": int(values[i])}]})
        )
    enroll("polyhedral-oblique", tmp / "our-d6", read_corrections(folder))
    return tmp / "our-d6", tiles[(slot >= 2) & (values <= 6)]


class _D6Model:
    """The ``d6`` model's readings of the frame: die 0 read as 3 pips, die 1 cocked, the rest unread."""

    def __init__(self, boxes):
        self.boxes = boxes

    def readings(self, image):
        out = []
        for i, b in enumerate(self.boxes):
            icon = "dice_3" if i == 0 else None
            out.append(SeenDie(list(b), "d6", "small", [], icon, None, icon, 0.4, i == 1, i > 1))
        return out


def test_a_d6_only_roll_offers_the_values_the_tables_bundle_knows(d6_table, monkeypatch):
    from companion.vision.numerals import NumeralModel, read_standard_roll
    from companion.vision.table_reading import embedding_crops

    bundle, query = d6_table
    frame = np.ascontiguousarray(np.concatenate(list(query), axis=1))
    cx = 32 + 64 * np.arange(len(query))
    boxes = np.stack([cx - HALF, np.full(len(cx), 32 - HALF), cx + HALF, np.full(len(cx), 32 + HALF)], 1)
    real = numerals.load_model  # the bundle's own box finder stays the real one
    monkeypatch.setattr(numerals, "load_model", lambda name: _D6Model(boxes) if name == "d6" else real(name))
    read = read_standard_roll(frame, ["d6"] * len(query), model=str(bundle))
    table = NumeralModel(bundle)
    emb, pc = table.embedder(embedding_crops(frame, boxes, table.embed_crop, table.embed_margin))
    cocked_at = table.profile.gate(standard=True)["cocked_threshold"]
    dice = read["dice"]
    assert dice[0]["value"] == 3 and "likely" not in dice[0]  # read: nothing offered
    assert "likely" not in dice[1]  # cocked: rolled again, nothing offered
    offered = 0
    for i in range(2, len(dice)):
        expected = table.profile.likely_values(emb[i], "d6") if pc[i] < cocked_at else []
        assert dice[i].get("likely", []) == expected and dice[i]["value"] is None
        assert 6 not in expected  # never taught
        offered += bool(expected)
    assert offered >= 1, "no unread d6 was offered a value: the test shows nothing"
    units = read["units"]
    assert [u["face_index"] for u in units if u["detection"] is not None] == [2] + [None] * (
        sum(u["detection"] is not None for u in units) - 1
    )
    assert sum(bool(u.get("alternatives")) for u in units) == offered  # each offered die holds a slot


def test_a_d6_only_roll_with_a_shipped_reader_offers_nothing_and_loads_no_bundle(monkeypatch):
    from companion.vision.numerals import read_standard_roll

    boxes = np.array([[0, 0, 20, 20], [30, 0, 50, 20], [60, 0, 80, 20]], float)
    monkeypatch.setattr(numerals, "load_model", lambda name: _D6Model(boxes))

    def refuse(name):
        raise AssertionError(f"{name} loaded for a roll of d6 only")

    monkeypatch.setattr(numerals, "load_numeral_model", refuse)
    read = read_standard_roll(np.zeros((40, 100, 3), np.uint8), ["d6"] * 3, model="polyhedral-oblique")
    assert all("likely" not in d for d in read["dice"])
    assert [u["detection"] for u in read["units"]] == [0, None, None] and read["unassigned"] == [1, 2]
