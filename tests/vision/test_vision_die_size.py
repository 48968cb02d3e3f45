"""The dice's sizes in the frame (``die_size``): the frame's scale is fitted from the boxes, and a unit's die
should look as big as its catalogue size says; two dice of one species whose up faces look alike are then
told apart by size when their sizes differ.

Dwarves/Footman (Small, 16 mm) and Dwarves/Wizard (Large, 20 mm) both print "2 Melee" once.
"""

from __future__ import annotations

import numpy as np
import pytest
from profile_support import OPEN

from companion.vision.assign import AssignmentError, assign, roster_dice
from companion.vision.dd_frames import size_sigma
from companion.vision.detections import Detections
from companion.vision.die_size import (
    CAP_SIGMA,
    SizeError,
    fit_scale,
    size_costs,
    unit_mm,
)
from companion.vision.profile import TableProfile, face_label

DIM = 6


def _box(cx: float, cy: float, side: float) -> list[float]:
    return [cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2]


def test_unit_sizes_come_from_the_catalogue(catalogue):
    assert unit_mm(catalogue.get("Dwarves/Footman")) == 16.0
    assert unit_mm(catalogue.get("Dwarves/Wizard")) == 20.0
    monster = next(d for d in catalogue if d.species and len(d.faces) == 10)
    assert unit_mm(monster) is None  # one size a kind: no cue


def test_the_frame_scale_is_fitted_and_a_stray_box_is_left_out():
    rng = np.random.default_rng(1)
    mms = rng.choice([16.0, 18.0, 20.0], 9)
    rows = np.linspace(100, 900, 9)
    # log side = log mm + 1.1 + 0.3 * row / 1000: dice lower in the frame look bigger
    sides = mms * np.exp(1.1 + 0.3 * rows / 1000)
    boxes = np.array([_box(100 + 50 * k, y, s) for k, (y, s) in enumerate(zip(rows, sides, strict=True))])
    boxes[4] = _box(300, rows[4], sides[4] * 1.6)  # two touching dice in one box
    scale = fit_scale(boxes, mms, sigma=0.05)
    assert scale is not None and scale.pairs == 8
    assert scale.a == pytest.approx(1.1, abs=1e-6) and scale.b == pytest.approx(0.3, abs=1e-6)
    # too few pairs for a slope: one number, the median
    few = fit_scale(boxes[:3], mms[:3], sigma=0.05)
    assert few.b == 0.0 and few.a == pytest.approx(1.1 + 0.3 * rows[1] / 1000, abs=0.02)
    assert fit_scale(boxes[:1], mms[:1], sigma=0.05) is None
    with pytest.raises(SizeError, match="9 boxes but 3 sizes"):
        fit_scale(boxes, mms[:3], sigma=0.05)


def test_size_costs_favour_the_die_of_the_right_size():
    boxes = [_box(100, 500, 48.0), _box(300, 500, 60.0), _box(500, 500, 70.0)]
    units = [16.0, 20.0, None]  # the third unit has no size (another kind)
    cost = size_costs(boxes, units, [(0, 1), (1, 0)], sigma=0.05)  # fitted from a swapped first guess
    assert cost[0, 0] < cost[0, 1] and cost[1, 1] < cost[1, 0]
    assert (cost[:, 2] == 0).all()
    assert cost.max() <= CAP_SIGMA**2 / 2  # capped: one odd box never outweighs the faces
    # a detection that is not a flat six-sided die (cocked, another kind) gets no size cost
    assert (size_costs(boxes, units, [(0, 0), (1, 1)], 0.05, flat=[True, False, True])[1] == 0).all()
    # one size on the table: nothing to tell apart
    assert (size_costs(boxes, [18.0, 18.0, None], [(0, 0), (1, 1)], 0.05) == 0).all()
    for bad in (0, -0.1, float("nan"), "0.05"):
        with pytest.raises(SizeError, match="size_sigma"):
            size_costs(boxes, units, [(0, 0)], bad)


def test_the_size_spread_is_measured_about_each_frame_own_scale():
    rng = np.random.default_rng(3)
    frames = []
    for _ in range(40):  # each frame its own scale and slope, the boxes 5 % off at random
        a, b = rng.uniform(0.8, 1.4), rng.uniform(0.1, 0.5)
        pairs = []
        for k in range(6):
            mm, y = float(rng.choice([16, 18, 20])), float(rng.uniform(100, 900))
            side = mm * np.exp(a + b * y / 1000 + rng.normal(0, 0.05))
            pairs.append((_box(100 * k, y, side), mm))
        frames.append(pairs)
    frames.append(frames[0][:2])  # a frame of 2 dice says nothing of the spread: left out
    sigma, dice = size_sigma(frames)
    assert dice == 240
    assert 0.035 < sigma < 0.06  # the fitted line takes up a little of the spread
    with pytest.raises(ValueError, match="3 or more"):
        size_sigma([frames[0][:2]])


@pytest.fixture(scope="module")
def pair(catalogue):
    return roster_dice(["Dwarves/Footman", "Dwarves/Wizard"], catalogue)


def _profile(pair, **settings) -> TableProfile:
    foot, wiz = pair
    prof = TableProfile("t", DIM, {**OPEN, **settings})
    k = next(k for k, f in enumerate(foot.faces) if f.text() == "2 Melee")
    prof.add(np.eye(DIM)[0][None], [face_label(foot, k)])  # one prototype: both dice print it
    prof.add(np.eye(DIM)[1][None], [face_label(foot, 0)])
    prof.add(np.eye(DIM)[2][None], [face_label(wiz, 0)])
    return prof


def _two_melee(sides: tuple[float, float]) -> Detections:
    emb = np.tile(0.95 * np.eye(DIM)[0] + 0.05 * np.eye(DIM)[5], (2, 1))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    boxes = np.array([_box(200, 400, sides[0]), _box(500, 400, sides[1])])
    return Detections(boxes, np.full(2, 0.9), np.zeros(2, int), embedding=emb, cocked_prob=np.zeros(2))


def _assign(pair, det, prof):
    return assign(pair, det, [[], []], ["d6", "d6"], {}, profile=prof)[0]


def test_size_tells_apart_two_dice_whose_up_faces_look_alike(pair):
    # both dice show "2 Melee": by the faces either could be either (each unit half sure of its die)
    det = _two_melee((60.0, 48.0))  # the first box is a large die's, the second a small one's
    plain = _assign(pair, det, _profile(pair, identity_by="die"))
    assert all(u.identity == pytest.approx(0.5, abs=0.01) for u in plain)
    sized = _assign(pair, det, _profile(pair, identity_by="die", size_sigma=0.05))
    foot, wiz = sized
    assert (foot.detection, wiz.detection) == (1, 0)  # the Footman is the small die
    assert foot.identity > 0.95 and wiz.identity > 0.95
    # the other way round
    swapped = _assign(pair, _two_melee((48.0, 60.0)), _profile(pair, identity_by="die", size_sigma=0.05))
    assert [u.detection for u in swapped] == [0, 1]
    # a setting that is not a spread is refused, naming it
    with pytest.raises(AssignmentError, match="size_sigma"):
        _assign(pair, det, _profile(pair, size_sigma="wide"))
