"""``TableProfile.likely_faces_among``: a die found on the "Teach the camera your dice" page may be any
of several roster dice; its nearest known faces are ranked over all of them, a species face (one
prototype that several dice share) counted once.  Profiles built from unit vectors: each known face
along its own axis, so the distances are known exactly."""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules.catalogue import load_catalogue
from companion.vision.profile import TableProfile, face_label

# the margin gate, shut: nothing is near enough to be read, every crop is left for a tap
SHUT = {
    "max_distance": 0.01,
    "min_margin": 0.3,
    "max_distance_full": 0.01,
    "min_margin_full": 0.3,
    "min_confidence": 0.0,
    "cocked_threshold": 0.6,
}
DIM = 8


@pytest.fixture(scope="module")
def dice():
    cat = load_catalogue()
    # Patroller: 2 ID, 3 Melee, 2 Maneuver, 2 Maneuver, 3 Melee, 2 Save
    # Lizard Rider: 2 ID, 3 Melee, 3 Maneuver, 2 Maneuver, 2 Melee, 2 Save
    return cat.get("Dwarves/Patroller"), cat.get("Dwarves/Lizard Rider")


def _index(die, text: str) -> int:
    return next(k for k, f in enumerate(die.faces) if f.text() == text)


# axis of each known face: the two dice's own ID faces, and three Dwarves faces (one prototype each,
# whichever die shows them); "2 Save" and "2 Melee" are not known
AXES = {
    ("P", "2 ID"): 0,
    ("L", "2 ID"): 1,
    ("*", "3 Melee"): 2,
    ("*", "2 Maneuver"): 3,
    ("L", "3 Maneuver"): 4,
}


@pytest.fixture
def profile(dice):
    pat, liz = dice
    prof = TableProfile("t", DIM, SHUT)
    eye = np.eye(DIM)
    for (who, text), axis in AXES.items():
        die = pat if who in ("P", "*") else liz
        prof.add(eye[axis][None], [face_label(die, _index(die, text))])
    return prof


def _crop(**cosines: float) -> np.ndarray:
    """A unit embedding with the given cosines to axes ``a0``..``a4`` (the rest on the last axis)."""
    v = np.zeros(DIM)
    for name, c in cosines.items():
        v[int(name[1:])] = c
    v[DIM - 1] = np.sqrt(max(0.0, 1.0 - float(v @ v)))
    return v / np.linalg.norm(v)


def _named(groups) -> list[list[tuple[str, str]]]:
    return [[(die.name.split("/")[1], die.faces[k].text()) for die, k in pairs] for pairs in groups]


def test_the_nearest_known_faces_are_ranked_over_every_candidate_die(dice, profile):
    pat, liz = dice
    crop = _crop(a1=0.8, a2=0.5)  # nearest the Lizard Rider's ID, then the Dwarves' 3 Melee
    assert all(profile.read_die(crop, d).unreadable for d in dice)
    got = profile.likely_faces_among(crop, [pat, liz])
    # a species face is one known face: it comes once, with every die that shows it, in the dice's order
    assert _named(got) == [
        [("Lizard Rider", "2 ID")],
        [("Patroller", "3 Melee"), ("Lizard Rider", "3 Melee")],
    ]
    assert _named(profile.likely_faces_among(crop, [liz, pat]))[1] == [
        ("Lizard Rider", "3 Melee"),
        ("Patroller", "3 Melee"),
    ]
    # the other way round: the shared face first, then the Patroller's ID (nearer than the Lizard Rider's)
    crop = _crop(a2=0.9, a0=0.3, a1=0.1)
    assert _named(profile.likely_faces_among(crop, [pat, liz])) == [
        [("Patroller", "3 Melee"), ("Lizard Rider", "3 Melee")],
        [("Patroller", "2 ID")],
    ]
    # a face only one die shows is named with that die alone
    crop = _crop(a4=0.9, a3=0.4)
    assert _named(profile.likely_faces_among(crop, [pat, liz])) == [
        [("Lizard Rider", "3 Maneuver")],
        [("Patroller", "2 Maneuver"), ("Lizard Rider", "2 Maneuver")],
    ]


def test_each_known_face_comes_once_and_unknown_faces_never(dice, profile):
    pat, liz = dice
    crop = _crop(a0=0.2, a1=0.3, a2=0.4, a3=0.5, a4=0.6)
    every = profile.likely_faces_among(crop, [pat, liz], most=20)
    assert len(every) == len(AXES)  # five known faces, not the eight (die, face) pairs they make
    texts = [pairs[0][0].faces[pairs[0][1]].text() for pairs in every]
    assert "2 Save" not in texts and "2 Melee" not in texts
    assert texts == ["3 Maneuver", "2 Maneuver", "3 Melee", "2 ID", "2 ID"]  # nearest first
    assert _named(every)[3:] == [[("Lizard Rider", "2 ID")], [("Patroller", "2 ID")]]
    assert profile.likely_faces_among(crop, [pat, liz], most=0) == []
    assert TableProfile("t", DIM, SHUT).likely_faces_among(crop, [pat, liz]) == []
    assert profile.likely_faces_among(crop, []) == []


def test_for_one_die_it_is_that_dies_likely_faces(dice, profile):
    for die in dice:
        for crop in (_crop(a1=0.8, a2=0.5), _crop(a3=0.7, a0=0.6), _crop(a4=0.1)):
            assert profile.likely_faces_among(crop, [die]) == [
                [(die, k)] for k in profile.likely_faces(crop, die)
            ]


def test_a_tie_keeps_the_order_of_the_dice(dice, profile):
    pat, liz = dice
    crop = _crop(a0=0.6, a1=0.6)  # as near the Patroller's ID as the Lizard Rider's
    assert _named(profile.likely_faces_among(crop, [pat, liz])) == [
        [("Patroller", "2 ID")],
        [("Lizard Rider", "2 ID")],
    ]
    assert _named(profile.likely_faces_among(crop, [liz, pat])) == [
        [("Lizard Rider", "2 ID")],
        [("Patroller", "2 ID")],
    ]
