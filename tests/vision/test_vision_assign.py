"""Roster-constrained assignment of detections to units, including ambiguous rosters."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.assign import AssignmentError, assign, roster_dice
from companion.vision.detections import Detections


@pytest.fixture(scope="module")
def heads(catalogue):
    icons = sorted({f.name for d in catalogue for f in d.faces}) + ["cocked"]
    return {"icon": icons, "count": [str(i) for i in range(13)]}


def _det(heads, faces: list[dict[tuple[str, int], float]]) -> Detections:
    """Detections whose face reader put the given probabilities on (icon, count) pairs."""
    n = len(faces)
    icons, counts = heads["icon"], heads["count"]
    fp = np.full((n, len(icons)), 1e-4)
    cp = np.full((n, len(counts)), 1e-4)
    for i, probs in enumerate(faces):
        for (icon, count), p in probs.items():
            fp[i, icons.index(icon)] += p
            cp[i, counts.index(str(count))] += p
    fp /= fp.sum(1, keepdims=True)
    cp /= cp.sum(1, keepdims=True)
    boxes = np.array([[10 + 50 * i, 10, 50 + 50 * i, 50] for i in range(n)], float)
    return Detections(
        boxes,
        np.full(n, 0.9),
        np.zeros(n, int),
        face_id=fp.argmax(1),
        face_confidence=fp.max(1),
        count=cp.argmax(1),
        count_confidence=cp.max(1),
        face_probs=fp,
        count_probs=cp,
    )


def test_die_kind_decides_between_a_unit_and_a_monster(catalogue, heads):
    dice = roster_dice(["Dwarves/Mammoth Rider", "Dwarves/Behemoth"], catalogue)
    det = _det(heads, [{("Save", 4): 1.0}, {("Save", 3): 1.0}])
    units, unassigned = assign(dice, det, [["Fire"], ["Fire"]], ["d10", "d6"], heads)
    by = {u.unit: u for u in units}
    assert by["Dwarves/Mammoth Rider"].detection == 1 and by["Dwarves/Mammoth Rider"].face == "3 Save"
    assert by["Dwarves/Behemoth"].detection == 0 and by["Dwarves/Behemoth"].face == "4 Save"
    assert unassigned == []


def test_colour_separates_two_units_with_the_same_reading(catalogue, heads):
    dwarves = [d for d in catalogue if d.species == "Dwarves" and len(d.faces) == 6]
    goblins = [d for d in catalogue if d.species == "Goblins" and len(d.faces) == 6]
    a, b, shared = next(
        (x.name, y.name, (f.name, f.count))
        for x in dwarves
        for y in goblins
        for f in x.faces
        if (f.name, f.count) in {(g.name, g.count) for g in y.faces}
    )
    dice = roster_dice([a, b], catalogue)
    det = _det(heads, [{shared: 1.0}, {shared: 1.0}])
    units, _ = assign(dice, det, [["Death", "Earth"], ["Fire", "Earth"]], ["d6", "d6"], heads)
    by = {u.unit: u for u in units}
    assert by[a].detection == 1 and by[b].detection == 0
    assert by[a].confidence > 0.5


def test_the_roster_fixes_a_face_the_reader_was_unsure_of(catalogue, heads):
    die = catalogue.get("Dwarves/Mammoth Rider")
    assert ("Melee", 3) in {(f.name, f.count) for f in die.faces}
    assert ("Melee", 2) not in {(f.name, f.count) for f in die.faces}
    det = _det(heads, [{("Melee", 2): 0.55, ("Melee", 3): 0.45}])
    units, _ = assign([die], det, [["Fire"]], ["d6"], heads)
    assert units[0].face == "3 Melee"


def test_identical_units_are_reported_ambiguous_with_alternatives(catalogue, heads):
    dice = roster_dice(["Dwarves/Mammoth Rider", "Dwarves/Mammoth Rider"], catalogue)
    det = _det(heads, [{("Melee", 3): 1.0}, {("Save", 3): 1.0}])
    units, _ = assign(dice, det, [["Fire"], ["Fire"]], ["d6", "d6"], heads)
    assert sorted(u.face for u in units) == ["3 Melee", "3 Save"]
    for u in units:
        assert u.confidence == pytest.approx(0.5, abs=0.05)
        assert u.alternatives and u.alternatives[0]["detection"] != u.detection


def test_cocked_die_is_flagged_not_read(catalogue, heads):
    det = _det(heads, [{("cocked", 0): 1.0}])
    units, _ = assign(roster_dice(["Dwarves/Mammoth Rider"], catalogue), det, [["Fire"]], ["d6"], heads)
    assert units[0].cocked and units[0].face is None


def test_extra_detections_and_missing_dice(catalogue, heads):
    det = _det(heads, [{("Melee", 3): 1.0}, {("Save", 3): 1.0}])
    units, unassigned = assign(
        roster_dice(["Dwarves/Mammoth Rider"], catalogue), det, [["Fire"]] * 2, ["d6", "d6"], heads
    )
    assert len(units) == 1 and len(unassigned) == 1
    units, _ = assign(
        roster_dice(["Dwarves/Mammoth Rider"] * 2, catalogue),
        det[np.array([True, False])],
        [["Fire"]],
        ["d6"],
        heads,
    )
    assert sorted(u.detection is None for u in units) == [False, True]


def test_unknown_roster_die_is_a_clear_error(catalogue):
    with pytest.raises(AssignmentError, match="Nobody/Nothing"):
        roster_dice(["Nobody/Nothing"], catalogue)
    with pytest.raises(AssignmentError, match="list of die names"):
        roster_dice("Dwarves/Mammoth Rider", catalogue)
