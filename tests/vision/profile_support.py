"""Helpers shared by the table-profile tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

#: The margin gate of a test profile, opened wide: whatever face is nearest is read (what such tests
#: look at is the assignment, not the gate).
OPEN = {
    "scale": 12.0,
    "max_distance": 1.9,
    "min_margin": 0.0,
    "max_distance_full": 1.9,
    "min_margin_full": 0.0,
    "min_confidence": 0.0,
    "cocked_threshold": 0.6,
}


def bench_module(name: str):
    """``bench/NAME.py`` loaded as a module (the benches are scripts, not a package)."""
    path = Path(__file__).resolve().parents[2] / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def enrol_one_d20(out: Path, base: str = "polyhedral-oblique") -> Path:
    """``base`` enrolled into ``out`` as the frame bench enrols it (one render of a calibration d20)."""
    return bench_module("standard_frames").enrolled_bundle(base, out)
