"""A standard die (d4..d20) the camera leaves unread offers the values the table profile knows nearest
what it saw: ``TableProfile.likely_values``, carried by ``StandardReading.likely``, put on the roll's
slot by ``numerals.assign_standard`` as the unit's ``alternatives`` (never as its value) and named
as the roll names its faces in the die's ``DieReading.likely`` (``roll_reading.roll_readings``).

Profiles built from unit vectors: each known value along its own axis, so the distances are exact."""

from __future__ import annotations

import numpy as np
import pytest

from companion.readings import ReadingError, Source, State, parse_reading
from companion.vision.numerals import StandardReading, assign_standard
from companion.vision.profile import FaceLabel, ProfileError, TableProfile
from companion.vision.reader import ModelError
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
