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
import pytest

from companion.vision.enroll import enroll, read_corrections

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
