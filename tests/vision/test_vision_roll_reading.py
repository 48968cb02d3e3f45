"""The production camera path (``companion.vision.roll_reading``) gives one ``DieReading`` per die, and
reading a roll at run time loads neither the renderer (``companion.vision.synth``) nor a training
library.  Import checks run in a fresh interpreter, so nothing an earlier test imported hides one."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion.readings import Source, State
from companion.vision.roll_reading import roll_readings

FIXTURE = Path(__file__).parent / "fixtures" / "frame_reading"
NOT_AT_RUN_TIME = (
    "companion.vision.synth",
    "companion.vision.train",
    "torch",
    "torchvision",
    "ultralytics",
    "onnx",
    "onnxslim",
)
RUN_TIME = (
    "companion.vision.reader",
    "companion.vision.roll_reading",
    "companion.vision.assign",
    "companion.vision.table_reading",
    "companion.vision.numerals",
    "companion.vision.settle",
    "companion.vision.sources",
    "companion.vision.learning",
    "web.play",
    "web.sources",
    "web.phone_camera",
    "web.staged_roll",
    "firmware_bridge.rolls",
    "companion.session",
)


def _loaded_after(code: str, prefixes: tuple[str, ...]) -> list[str]:
    script = textwrap.dedent(code) + textwrap.dedent(f"""
        import json, sys
        print(json.dumps(sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".")
                                                             for p in {prefixes!r}))))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _fixture() -> dict:
    return json.loads((FIXTURE / "readings.json").read_text())


def test_each_die_of_the_roster_becomes_one_camera_reading():
    doc = _fixture()
    read = doc["shipped"]
    uids = [f"u{k}" for k in range(len(doc["roster"]))]
    readings = roll_readings(read, uids, frame=12)
    assert [r.die for r in readings] == uids and {r.source for r in readings} == {Source.CAMERA}
    states = set()
    for r, unit in zip(readings, read["units"], strict=True):
        states.add(r.state)
        assert r.name == unit["unit"] and r.frame == 12
        if unit["detection"] is None:
            assert r.state is State.UNREADABLE and r.box is None and r.confidence == 0.0
            continue
        assert r.box == tuple(read["dice"][unit["detection"]]["box"])
        assert r.confidence == pytest.approx(unit["confidence"])
        if unit["cocked"]:
            assert r.state is State.COCKED and r.face is None
        elif unit["face"] is None:
            assert r.state is State.UNREADABLE and r.face is None
            # the table profile's nearest known faces of this die come along, nearest first, not read
            assert r.likely == tuple(a["face"] for a in unit["alternatives"]) and r.likely
            states.add("likely")
        else:
            assert r.state is State.READ and (r.face, r.face_index) == (unit["face"], unit["face_index"])
    assert {State.READ, State.COCKED, "likely"} <= states  # the fixture shows each


def test_only_the_likely_faces_of_the_die_read_come_along():
    unit = {
        "unit": "Dwarves/Thug",
        "slot": 0,
        "detection": 0,
        "face": None,
        "face_index": None,
        "confidence": 0.2,
        "cocked": False,
        "unreadable": True,
        "alternatives": [
            {"detection": 1, "face": "ID", "face_index": 0},  # another die of the frame
            {"detection": 0, "face": "2 Melee", "face_index": 2},
            {"detection": 0, "face": "2 Melee", "face_index": 2},
        ],
    }
    read = {"units": [unit], "dice": [{"box": [1, 1, 9, 9]}, {"box": [20, 1, 29, 9]}]}
    (r,) = roll_readings(read, ["u1"], faces=[["ID", "1 Melee", "Two Melee"]])
    assert r.state is State.UNREADABLE and r.likely == ("Two Melee",)  # named as the roll names it


def test_faces_are_named_as_the_roll_names_them():
    read = _fixture()["shipped"]
    uids = [f"u{k}" for k in range(len(read["units"]))]
    faces = [[f"face {k}" for k in range(12)] for _ in uids]
    for r in roll_readings(read, uids, faces=faces):
        assert r.face is None or r.face == f"face {r.face_index}"
    with pytest.raises(ValueError, match="die ids for a roster of"):
        roll_readings(read, uids[:-1])


@pytest.mark.parametrize("module", RUN_TIME)
def test_run_time_modules_import_no_renderer_or_training_library(module):
    assert _loaded_after(f"import {module}", NOT_AT_RUN_TIME) == []


def test_reading_a_roll_from_a_frame_loads_no_renderer_or_training_library():
    doc = _fixture()
    roster = [r[0] for r in doc["roster"]]
    loaded = _loaded_after(
        f"""
        from companion.vision.reader import read_image
        from companion.vision.roll_reading import annotate, read_roll, roll_readings
        frame = read_image({str(FIXTURE / "table_1280.jpg")!r})
        read = read_roll(frame, {roster!r})
        readings = roll_readings(read, ["u%d" % k for k in range({len(roster)})])
        assert len(readings) == {len(roster)} and all(r.box is not None for r in readings), readings
        annotate(frame, read["dice"], read["units"])
    """,
        NOT_AT_RUN_TIME,
    )
    assert loaded == []


def test_the_reading_type_and_the_session_load_no_source_library_and_the_rules_not_the_readings():
    assert (
        _loaded_after(
            "import companion.readings, companion.session",
            ("companion.vision", "torch", "flask", "serial", "cv2", "numpy"),
        )
        == []
    )
    assert _loaded_after("import companion.rules.games, companion.rules.game", ("companion.readings",)) == []


def test_learning_a_confirmed_roll_takes_a_loaded_model_not_a_name():
    """``table_reading`` no longer imports the reader back (the reader imports it): a name is refused."""
    import numpy as np

    from companion.vision.profile import ProfileError
    from companion.vision.table_reading import learn_confirmed_faces

    with pytest.raises(ProfileError, match="needs a loaded model"):
        learn_confirmed_faces("dragon-dice", np.zeros((64, 64, 3), np.uint8), [])
    import ast

    tree = ast.parse((Path(__file__).parents[2] / "companion" / "vision" / "table_reading.py").read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert "companion.vision.reader" not in imported and "companion.vision.table_reading" in {
        n.module
        for n in ast.walk(
            ast.parse((Path(__file__).parents[2] / "companion" / "vision" / "reader.py").read_text())
        )
        if isinstance(n, ast.ImportFrom)
    }
