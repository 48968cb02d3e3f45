"""``bench/standard_speed.py``: the frame timings (``--frames``, ``--alternate``) read the frames they are
given with each bundle, count the dice a refiner moved, and refuse bad flags by name."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from profile_support import bench_module

from companion.vision.numerals import NumeralModel
from companion.vision.reader import models_dir
from companion.vision.synth.real_tables import Standard, write_real_tables
from companion.vision.synth.standard_styles import CALIBRATION_STYLES


@pytest.fixture(scope="module")
def frames(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("frames") / "calibration-2-4-w640"
    write_real_tables(out, Standard(CALIBRATION_STYLES[:6]), 2, seed=4, width=640, height=480, progress=False)
    return out


@pytest.fixture(scope="module")
def refined(tmp_path_factory) -> Path:
    """The shipped bundle with the candidate refiner for every die read as a d4..d12 (so some move)."""
    out = tmp_path_factory.mktemp("bundle") / "r"
    shutil.copytree(
        models_dir() / "polyhedral-oblique", out, ignore=shutil.ignore_patterns("candidates", "*.pt")
    )
    shutil.copy(models_dir() / "polyhedral-oblique" / "candidates" / "refine-r.onnx", out / "refine.onnx")
    meta = json.loads((out / "model.json").read_text())
    meta["box_refiner"] = {"onnx": "refine.onnx", "looks": 1, "kinds": ["d4", "d6", "d8", "d10", "d12"]}
    (out / "model.json").write_text(json.dumps(meta))
    return out


def test_the_frames_are_read_by_each_bundle_and_the_moved_dice_counted(frames, refined, capsys):
    bench = bench_module("standard_speed")
    shipped = str(models_dir() / "polyhedral-oblique")
    argv = ["--reader", shipped, "--reader", str(refined), "--frames", str(frames), "--count", "2"]
    assert bench.main([*argv, "--repeat", "2"]) == 0
    out = capsys.readouterr().out
    counts = {
        r: tuple(map(int, m)) for r, *m in re.findall(r"(\S+): 2 frames: (\d+) dice found, (\d+) of", out)
    }
    model = NumeralModel(refined)
    images = bench.frames_of(frames, 2)
    dets = [model.find_dice(f) for f in images]
    assert counts[str(refined)] == (sum(len(d) for d in dets), sum(int(d.refined.sum()) for d in dets))
    assert counts[shipped][1] == 0 and counts[str(refined)][1] > 0
    assert "frames: second / first = " in out

    ratios = bench.alternate_frames([Path(shipped), refined], images, 3)
    assert len(ratios) == 3 and all(np.isfinite(r) and r > 0 for r in ratios)
    assert bench.main([*argv, "--repeat", "2", "--alternate"]) == 0
    assert re.search(r"alternating \(2 turns\): second / first, median \d+\.\d{3}", capsys.readouterr().out)


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--alternate"], "--alternate times two --reader bundles on --frames"),
        (["--frames", "NOWHERE"], "no manifest.jsonl"),
        (["--frames", "FRAMES", "--count", "0"], "--count must be at least 1"),
    ],
)
def test_bad_frame_flags_are_refused_naming_them(frames, capsys, extra, named):
    bench = bench_module("standard_speed")
    extra = [str(frames) if x == "FRAMES" else x for x in extra]
    with pytest.raises(SystemExit):
        bench.main(["--reader", str(models_dir() / "polyhedral-oblique"), *extra])
    assert named in capsys.readouterr().err
