"""The joint (kind, icon, count) reading keeps to faces the catalogue prints on that kind of die."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.bundle import faces_by_kind
from companion.vision.detections import Detections
from companion.vision.reader import FaceDecoder, ModelError

HEADS = {
    "kind": ["d4", "d6", "d8", "d10", "d12"],
    "icon": ["Breath", "Melee", "Save", "cocked"],
    "count": [str(i) for i in range(6)],
}
FACES = {"d6": [["Melee", 1], ["Melee", 2], ["Save", 1]], "d12": [["Breath", 5]]}


def _det(n):
    return Detections(np.tile([0.0, 0, 10, 10], (n, 1)), np.full(n, 0.9), np.zeros(n, int))


def _probs(kind, icon, count):
    return {
        "kind": np.array([kind], float),
        "icon": np.array([icon], float),
        "count": np.array([count], float),
    }


def test_impossible_pair_is_not_read_even_when_each_head_prefers_it():
    # icon head says Melee, count head says 5: no d6 prints "5 Melee", so the best allowed face wins
    det = _det(1)
    FaceDecoder(HEADS, FACES)(
        det, _probs([0, 0.9, 0, 0, 0.1], [0.05, 0.6, 0.3, 0.05], [0, 0.2, 0.3, 0, 0, 0.5])
    )
    assert HEADS["kind"][det.class_id[0]] == "d6"
    assert (HEADS["icon"][det.face_id[0]], HEADS["count"][det.count[0]]) == ("Melee", "2")
    assert 0 < det.face_confidence[0] <= 1 and 0 < det.kind_confidence[0] <= 1


def test_kind_and_face_are_chosen_together():
    # the kind head leans d6, but the face is plainly a d12 dragon's "5 Breath"
    det = _det(1)
    FaceDecoder(HEADS, FACES)(
        det, _probs([0, 0.55, 0, 0, 0.45], [0.97, 0.01, 0.01, 0.01], [0, 0.01, 0.01, 0, 0, 0.98])
    )
    assert HEADS["kind"][det.class_id[0]] == "d12"
    assert HEADS["icon"][det.face_id[0]] == "Breath"


def test_cocked_wins_when_it_is_likelier_than_any_face():
    det = _det(1)
    FaceDecoder(HEADS, FACES)(det, _probs([0, 1, 0, 0, 0], [0.1, 0.2, 0.1, 0.6], [0, 0.5, 0.5, 0, 0, 0]))
    assert HEADS["icon"][det.face_id[0]] == "cocked"
    assert det.face_confidence[0] > 0.5


def test_decoder_needs_a_known_face():
    with pytest.raises(ModelError):
        FaceDecoder(HEADS, {"d8": [["Flood", 1]]})


def test_catalogue_faces_by_kind(catalogue):
    faces = faces_by_kind(catalogue)
    assert set(faces) == {"d4", "d6", "d8", "d10", "d12"}
    assert all(faces[k] for k in faces)
    assert ["ID", 1] in faces["d6"]
    assert ["Breath", 5] in faces["d12"]  # a dragon's breath face
    assert not any(icon == "Breath" for icon, _ in faces["d4"])


def test_a_box_read_as_no_die_is_vetoed():
    heads = {**HEADS, "kind": HEADS["kind"] + ["none"]}
    det = Detections(np.tile([0.0, 0, 10, 10], (2, 1)), np.full(2, 0.9), np.zeros(2, int))
    probs = {
        "kind": np.array([[0, 0.2, 0, 0, 0, 0.8], [0, 0.9, 0, 0, 0, 0.1]]),
        "icon": np.array([[0.1, 0.7, 0.1, 0.1]] * 2),
        "count": np.array([[0, 0.1, 0.9, 0, 0, 0]] * 2),
    }
    keep = FaceDecoder(heads, FACES)(det, probs)
    assert keep.tolist() == [False, True]
    assert heads["kind"][det.class_id[1]] == "d6" and heads["icon"][det.face_id[1]] == "Melee"
