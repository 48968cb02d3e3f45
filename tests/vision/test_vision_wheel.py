"""An installed wheel reads dice without the source tree: the model bundles ship as the package
``companion_models`` (the repository's ``models/`` folder) and the reader finds them there.

The wheel is built from a copy of the project (so no stale ``build/`` folder of the checkout can add
files), installed with ``--target`` into a temporary folder, and a fresh interpreter, started in another
temporary folder with only that folder on ``PYTHONPATH``, reads a committed fixture photograph with the
shipped ``d6`` model.  Its readings must equal those of the checkout's model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.vision.reader import load_model, read_image

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PHOTO = sorted((Path(__file__).parent / "fixtures" / "d6" / "val" / "images").glob("*.jpg"))[0]
PROJECT = ("pyproject.toml", "setup.py", "README.md", "companion", "web", "firmware_bridge", "models")

CHILD = """
import json, sys
import companion, companion_models
from companion.vision.reader import load_model, read_image
model = load_model("d6")
image = read_image(sys.argv[1])
readings = model.readings(image, model.detect(image))
print(json.dumps({"companion": companion.__file__, "models": companion_models.__file__,
                  "bundle": str(model.bundle), "sys_path": sys.path,
                  "faces": sorted(json.dumps([r.kind, r.reading, r.count, r.cocked, r.unreadable])
                                  for r in readings)}))
"""


def _faces(readings):
    return sorted(json.dumps([r.kind, r.reading, r.count, r.cocked, r.unreadable]) for r in readings)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """``pip wheel`` of a copy of the project, installed with ``--target``; the site folder."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "*.pt")
    for name in PROJECT:
        p = ROOT / name
        if p.is_dir():
            shutil.copytree(p, src / name, ignore=ignore)
        else:
            shutil.copy2(p, src / name)
    run = dict(check=True, capture_output=True, text=True, cwd=tmp)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(src),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp / "dist"),
        ],
        **run,
    )
    (wheel,) = (tmp / "dist").glob("*.whl")
    site = tmp / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", str(wheel), "--no-deps", "-q", "--target", str(site)], **run
    )
    return site


def test_wheel_ships_onnx_bundles_without_training_checkpoints(installed):
    shipped = installed / "companion_models"
    for name in ("dragon-dice", "d6", "polyhedral", "face-embed"):
        assert isinstance(json.loads((shipped / name / "model.json").read_text()), dict), name
        assert list((shipped / name).glob("*.onnx")), f"{name}: no ONNX network in the wheel"
        assert (shipped / name / "MODEL_CARD.md").is_file()
    assert not list(shipped.rglob("*.pt")), "training checkpoints belong to the repository, not the wheel"


def test_installed_wheel_reads_a_photo_outside_the_checkout(installed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("COMPANION_MODELS", "PYTHONPATH")}
    env["PYTHONPATH"] = str(installed)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(PHOTO)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert not any(Path(p).resolve() == ROOT for p in got["sys_path"] if p), "the checkout is on sys.path"
    for key in ("companion", "models", "bundle"):
        assert Path(got[key]).resolve().is_relative_to(installed.resolve()), (key, got[key])
    assert Path(got["bundle"]).name == "d6"
    model = load_model("d6")
    image = read_image(PHOTO)
    expected = _faces(model.readings(image, model.detect(image)))
    assert expected, "the fixture photograph should hold dice"
    assert got["faces"] == expected


def test_wheel_file_lists_the_bundles(installed):
    record = next(installed.glob("dragon_dice_companion-*.dist-info")) / "RECORD"
    names = [line.split(",")[0] for line in record.read_text().splitlines()]
    assert "companion_models/dragon-dice/detector.onnx" in names
    assert "companion_models/d6/face.onnx" in names
    assert not [n for n in names if n.startswith("models/")], "bundles install under companion_models only"
