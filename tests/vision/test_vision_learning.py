"""Learning loop: corrections are validated, stored and exported as a trainable dataset."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.vision.bundle import collect_crops
from companion.vision.learning import CorrectionError, export_corrections, save_correction
from companion.vision.roll_frames import render_roll
from companion.vision.yolo_dataset import load_data_yaml


def test_bad_correction_is_refused_and_writes_nothing(tmp_path):
    frame = np.zeros((100, 100, 3), np.uint8)
    bad = [{"box": [10, 10, 200, 50], "kind": "d6", "icon": "Melee", "count": 2}]
    with pytest.raises(CorrectionError, match="not inside"):
        save_correction(tmp_path / "c", frame, bad)
    with pytest.raises(CorrectionError, match="kind"):
        save_correction(tmp_path / "c", frame, [{"box": [1, 1, 5, 5], "kind": "d7", "icon": "x", "count": 1}])
    assert not (tmp_path / "c").exists()


def test_corrections_export_to_a_dataset_the_trainer_reads(tmp_path, catalogue):
    scene = render_roll(
        [("Dwarves/Mammoth Rider", 1), ("Dwarves/Behemoth", 0)], 3, size=320, catalogue=catalogue
    )
    dice = [
        {
            "box": list(d.box),
            "kind": d.spec.kind,
            "icon": d.spec.icon,
            "count": d.spec.count,
            "cocked": False,
            "die": d.spec.name,
        }
        for d in scene.dice
    ]
    save_correction(tmp_path / "c", scene.image, dice, name="roll1")
    yml, n = export_corrections(tmp_path / "c", tmp_path / "ds")
    assert n == 1
    assert load_data_yaml(yml.parent)["names"] == ["d4", "d6", "d8", "d10", "d12"]
    rec = json.loads((tmp_path / "ds" / "manifest.jsonl").read_text())
    assert [d["icon"] for d in rec["dice"]] == [d["icon"] for d in dice]
    crops, targets, names = collect_crops(tmp_path / "ds", progress=False)
    assert len(crops) == 2
    assert [names["icon"][i] for i in targets["icon"]] == [d["icon"] for d in dice]
    assert list(targets["count"]) == [d["count"] for d in dice]


def test_export_of_an_empty_folder_is_a_clear_error(tmp_path):
    (tmp_path / "c").mkdir()
    with pytest.raises(CorrectionError, match="no corrections"):
        export_corrections(tmp_path / "c", tmp_path / "ds")


def _half_written(monkeypatch):
    """``Path.write_text`` that writes half its text and then fails (a disk that fills mid-write)."""
    from pathlib import Path

    def write_text(self, data, *a, **k):
        with open(self, "w") as f:
            f.write(data[: len(data) // 2])
        raise OSError("no space left on device")

    monkeypatch.setattr(Path, "write_text", write_text)


def test_a_record_written_again_is_whole_or_as_before(tmp_path, monkeypatch):
    """The tablet writes one record per roll again at each tap: a write that fails half way leaves the
    record as it was (a temporary file, then a rename), never a half record that export refuses."""
    frame = np.full((100, 100, 3), 90, np.uint8)
    die = {"box": [10, 10, 40, 40], "kind": "d6", "icon": "Melee", "count": 2}
    save_correction(tmp_path / "c", frame, [die], name="roll1")
    before = (tmp_path / "c" / "roll1.json").read_text()
    _half_written(monkeypatch)
    with pytest.raises(OSError, match="no space"):
        save_correction(tmp_path / "c", frame, [die, {**die, "box": [50, 50, 90, 90]}], name="roll1")
    assert (tmp_path / "c" / "roll1.json").read_text() == before
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["roll1.jpg", "roll1.json"]


def test_capture_from_a_source_it_refuses_makes_no_folder(tmp_path, capsys):
    from companion.cli import main

    empty = tmp_path / "no-frames"
    empty.mkdir()
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"not a video")
    # "camera:²": "²".isdigit() is true, but int() refuses it (was a traceback)
    for source in ("camera:x", "camera:²", str(tmp_path / "nothing-here"), str(empty), str(video)):
        out = tmp_path / "frames" / "sub"
        assert main(["vision", "capture", "--source", source, "--out", str(out)]) == 2
        assert "error" in capsys.readouterr().err
        assert not (tmp_path / "frames").exists(), source


class _FakeCapture:
    """cv2.VideoCapture of a device that opens and remembers what it was asked for."""

    made: list = []

    def __init__(self, index):
        self.index, self.asked = index, {}
        _FakeCapture.made.append(self)

    def isOpened(self):  # noqa: N802 - OpenCV's name
        return True

    def set(self, prop, value):
        self.asked[prop] = value
        return True

    def get(self, prop):
        return self.asked.get(prop, 30.0)

    def read(self):
        return False, None

    def release(self):
        pass


def test_a_camera_is_asked_for_full_hd_frames_or_the_size_named(monkeypatch):
    """OpenCV opens most webcams at 640x480; the readers were measured on 1280 px frames or larger."""
    import cv2

    from companion.vision import sources

    monkeypatch.setattr(sources.cv2, "VideoCapture", _FakeCapture)
    _FakeCapture.made = []
    list(sources.open_source("camera:1"))
    cap = _FakeCapture.made[-1]
    assert cap.index == 1
    assert (cap.asked[cv2.CAP_PROP_FRAME_WIDTH], cap.asked[cv2.CAP_PROP_FRAME_HEIGHT]) == (1920, 1080)
    list(sources.open_source("camera:0@1280x720"))
    cap = _FakeCapture.made[-1]
    assert cap.index == 0 and cap.asked[cv2.CAP_PROP_FRAME_WIDTH] == 1280
    for bad in ("camera:0@1280", "camera:0@x720", "camera:0@99999x720", "camera:0@1280x²"):
        with pytest.raises(sources.SourceError, match="1920x1080|WIDTHxHEIGHT"):
            sources.open_source(bad)
    assert len(_FakeCapture.made) == 2  # a bad size opens no device


def test_the_web_camera_asks_for_its_size_and_serve_refuses_a_bad_one(monkeypatch, tmp_path, capsys):
    import cv2

    from companion.cli import main
    from companion.vision import sources
    from web.sources import CameraSource

    monkeypatch.setattr(sources.cv2, "VideoCapture", _FakeCapture)
    _FakeCapture.made = []
    for spec, size in (("2", (1920, 1080)), ("2@800x600", (800, 600))):
        CameraSource(spec, store=None)._open()
        cap = _FakeCapture.made[-1]
        assert (cap.index, cap.asked[cv2.CAP_PROP_FRAME_WIDTH], cap.asked[cv2.CAP_PROP_FRAME_HEIGHT]) == (
            2,
            *size,
        )
    db = tmp_path / "g.sqlite"
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--db", str(db), "--camera", "0@wide", "--seconds", "1"])
    assert stop.value.code == 2
    assert "--camera" in capsys.readouterr().err and not db.exists()


def test_capture_turns_each_frame_it_saves(tmp_path):
    import cv2

    from companion.cli import main

    src = tmp_path / "frames"
    src.mkdir()
    frame = np.zeros((40, 60, 3), np.uint8)
    frame[:10, :10] = 255  # a bright top-left corner
    for k in range(3):
        cv2.imwrite(str(src / f"f{k}.png"), frame)
    out = tmp_path / "saved"
    assert (
        main(
            ["vision", "capture", "--source", str(src), "--out", str(out), "--turn", "90", "--every-ms", "0"]
        )
        == 0
    )
    saved = sorted(out.glob("*.jpg"))
    assert len(saved) == 3
    img = cv2.imread(str(saved[0]))
    assert img.shape[:2] == (60, 40) and img[:10, -10:].mean() > 200  # the corner went to the top right
