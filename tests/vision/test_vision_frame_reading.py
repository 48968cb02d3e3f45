"""A whole 1280 px frame read by an enrolled bundle reads as recorded (issue 20's speed work must not
change a reading).

``fixtures/frame_reading`` holds a rendered table of a TEST art family and what the pipeline read on it
(every die and the roster's units, with the shipped gate and with the gate opened) when it was written;
the faster code paths (cached prototypes, face tables computed once, runtime settings) must give the
same faces, flags and confidences.  Confidences and boxes get a small tolerance for another machine's
float rounding; faces, flags and assignments must be equal.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.enroll import enroll, read_corrections
from companion.vision.profile import TableProfile, face_label

FIX = Path(__file__).parent / "fixtures" / "frame_reading"


def _maker():
    spec = importlib.util.spec_from_file_location("frame_reading_fixture", FIX / "make_fixtures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def read_now(tmp_path_factory, catalogue):
    maker = _maker()
    out = tmp_path_factory.mktemp("frame-reading") / "table"
    enroll("dragon-dice", out, read_corrections(maker.CORRECTIONS, catalogue))
    return maker.read_fixture_frame(out, cv2.imread(str(FIX / "table_1280.jpg")))


def _same(now: dict, then: dict, where: str) -> None:
    assert set(now) == set(then), where
    for key, want in then.items():
        got = now[key]
        if key == "confidence":
            assert got == pytest.approx(want, abs=1e-3), f"{where}: {key}"
        elif key == "box":
            assert got == pytest.approx(want, abs=0.5), f"{where}: {key}"
        else:
            assert got == want, f"{where}: {key}"


@pytest.mark.parametrize("gate", ["shipped", "nearest"])
def test_a_fixed_frame_reads_as_recorded(read_now, gate):
    then = json.loads((FIX / "readings.json").read_text())[gate]
    now = read_now[gate]
    assert len(now["dice"]) == len(then["dice"]) and len(now["units"]) == len(then["units"])
    for i, (a, b) in enumerate(zip(now["dice"], then["dice"], strict=True)):
        _same(a, b, f"{gate} die {i}")
    for i, (a, b) in enumerate(zip(now["units"], then["units"], strict=True)):
        _same(a, b, f"{gate} unit {i}")
    assert now["unassigned"] == then["unassigned"]


def test_the_fixture_reads_faces_not_only_unreadable_dice():
    """The opened gate's record names faces for most units (else the check above would prove little)."""
    rec = json.loads((FIX / "readings.json").read_text())
    assert sum(u["face"] is not None for u in rec["nearest"]["units"]) >= 4
    assert any(d["cocked"] for d in rec["shipped"]["dice"])


def test_kept_prototypes_follow_every_new_sighting(catalogue):
    """A profile keeps its unit prototypes between readings: a sighting added (or a copy's sighting)
    must still move the face read at once, and only in the profile that learnt it."""
    die = catalogue.find("Dwarves/Mammoth Rider")
    melee, trample = face_label(die, 1), face_label(die, 2)
    prof = TableProfile("t", 3, {"scale": 8.0, "max_distance": 0.9, "min_confidence": 0.5})
    prof.add(np.array([[1.0, 0, 0], [0, 1.0, 0]]), [melee, trample])
    query = np.array([0.8, 0.6, 0], np.float32)
    assert prof.read_die(query, die).label == melee
    assert prof.prototype(melee.key()) == pytest.approx([1, 0, 0])
    other = prof.copy()
    prof.add(np.array([[0, 0, 1.0], [0, 0, 1.0]]), [melee, melee])  # the Melee prototype moves away
    assert prof.prototype(melee.key()) == pytest.approx(np.array([1, 0, 2]) / np.sqrt(5))
    assert prof.read_die(query, die).label == trample
    assert other.read_die(query, die).label == melee  # the copy learnt nothing
    w, d, n = prof.face_table(query, die)
    assert n[1] == 3 and d[1] == pytest.approx(
        np.linalg.norm(query - np.array([1, 0, 2]) / np.sqrt(5)), abs=1e-6
    )
    assert prof.read_die(query, die, table=(w, d, n)) == prof.read_die(query, die)
