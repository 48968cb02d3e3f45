"""The run-time product is torch-free: reading dice (ONNX), the rules, the CLI and the pages never import
torch, torchvision, ultralytics or onnx (the ``train`` extra); only training code does.  Each check runs
in a fresh interpreter, so nothing an earlier test imported hides an import."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
TRAIN_ONLY = ("torch", "torchvision", "ultralytics", "onnx", "onnxslim")


def _train_modules_after(code: str) -> list[str]:
    script = textwrap.dedent(code) + textwrap.dedent(f"""
        import json, sys
        print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {TRAIN_ONLY!r})))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "module",
    [
        "companion.vision",
        "companion.vision.reader",
        "companion.vision.bundle",
        "companion.vision.settle",
        "companion.vision.roll_frames",
        "companion.vision.learning",
        "companion.cli",
        "web",
        "web.demo",
    ],
)
def test_importing_run_time_modules_loads_no_training_library(module):
    assert _train_modules_after(f"import {module}") == []


def test_reading_a_photo_with_a_shipped_model_loads_no_training_library():
    image = next(p for p in sorted((FIXTURES / "dd").rglob("*")) if p.suffix in (".png", ".jpg"))
    loaded = _train_modules_after(f"""
        from companion.vision.reader import load_model, read_image
        model = load_model("dragon-dice")
        frame = read_image({str(image)!r})
        readings = model.readings(frame, model.detect(frame))
        assert readings, "the fixture table shows dice"
    """)
    assert loaded == []


def test_the_page_app_serves_without_training_libraries(tmp_path):
    loaded = _train_modules_after(f"""
        from web import create_app
        app = create_app({{"DB_PATH": {str(tmp_path / "g.sqlite")!r}, "HOST_TOKEN": "t" * 24,
                          "START_SOURCES": False}})
        assert app.test_client().get("/").status_code == 200
        app.extensions["game_store"].close()
    """)
    assert loaded == []
