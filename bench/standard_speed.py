"""Time of the standard-dice reader and its embedding on one roll's crops, for one or more bundles.

    python bench/standard_speed.py --reader models/polyhedral-oblique [--reader OTHER] [--dice 12] [--frame]
        [--frames artifacts/standard/frames/calibration-150-35 --count 50]

A Battle Dice roll is read as one batch of crops through the reader (``face.onnx``: kind and value)
and, for an enrolled bundle, the embedding network it names (``embed.onnx``).  Prints the median wall
time of that batch per bundle over ``--repeat`` runs (after warm-up) and, with two bundles, the
ratio of the second to the first.  The crops are oblique renders of the CALIBRATION styles (the
timing does not depend on what they show).  The die finder's time (the same for every bundle) is
not included: ``bench/vision.py`` gives it.  ``--frame`` also times a whole 1280 px frame (an oblique
render of ``--dice`` dice of every size, tilt 35 degrees): the die finder and the reader together, as
``NumeralModel.readings`` reads a frame of a Battle Dice roll (``frame`` in the output).  ``--frames DIR
--count N`` also times the first N frames of a ``synth.real_tables --standard`` folder read one after
another (``frames`` in the output: the median over ``--repeat`` of the time to read them all), and
counts the dice a bundle's box refiner moved in them: a refiner for some kinds only (``box_refiner.kinds``)
costs nothing on a frame where no die is read as one of them.  With ``--alternate`` the two bundles read
the frames in turn and each turn's ratio is printed with their median (the machine's drift weighs on
both alike); nothing else is timed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.embedding import FaceEmbedder  # noqa: E402
from companion.vision.reader import OnnxFaceReader  # noqa: E402


def _median_ms(fn, crops: np.ndarray, repeat: int) -> float:
    for _ in range(3):
        fn(crops)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(crops)
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def time_bundle(folder: Path, crops: np.ndarray, repeat: int) -> dict:
    meta = json.loads((folder / "model.json").read_text())
    reader = OnnxFaceReader(folder / "face.onnx", meta["face_heads"])
    out = {"reader_ms": _median_ms(reader, crops, repeat)}
    embed_dir = folder.parent / meta.get("embedding_network", "numeral-embed")
    if (embed_dir / "embed.onnx").is_file():
        embedder = FaceEmbedder(embed_dir / "embed.onnx", 1)
        out["embedding_ms"] = _median_ms(embedder, crops, repeat)
    return out


def frame_of(dice: int, seed: int = 3) -> np.ndarray:
    """A 1280 px oblique frame of ``dice`` standard dice (d4..d20 in turn)."""
    import cv2  # noqa: PLC0415

    from companion.vision.synth.numerals import random_die, render_standard_scene  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    kinds = ["d4", "d6", "d8", "d10", "d12", "d20"]
    drawn = [random_die(rng, kinds[i % len(kinds)]) for i in range(dice)]
    frame, _, _ = render_standard_scene(rng, drawn, ppm=3.4, tilt_deg=35.0, clutter=False, photo=True)
    scale = 1280 / max(frame.shape[:2])
    return cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


def time_frame(folder: Path, frame: np.ndarray, repeat: int) -> tuple[float, int]:
    """(median ms, dice found) of ``NumeralModel.readings`` on ``frame``."""
    from companion.vision.numerals import NumeralModel  # noqa: PLC0415

    model = NumeralModel(folder)
    found = len(model.readings(frame))
    return _median_ms(model.readings, frame, repeat), found


def frames_of(folder: Path, count: int) -> list[np.ndarray]:
    """The first ``count`` frames of a ``synth.real_tables`` folder (its ``manifest.jsonl``)."""
    from companion.vision.reader import read_image  # noqa: PLC0415

    lines = [ln for ln in (folder / "manifest.jsonl").read_text().splitlines() if ln.strip()][:count]
    if not lines:
        raise SystemExit(f"--frames {folder}: no frames listed in manifest.jsonl")
    return [read_image(folder / json.loads(ln)["image"]) for ln in lines]


def time_frames(folder: Path, frames: list[np.ndarray], repeat: int) -> tuple[float, int, int]:
    """(median ms to read every frame once, dice found, dice whose box the refiner moved)."""
    from companion.vision.numerals import NumeralModel  # noqa: PLC0415

    model = NumeralModel(folder)
    dets = [model.find_dice(f) for f in frames]
    found, moved = sum(len(d) for d in dets), sum(int(d.refined.sum()) for d in dets)
    return _median_ms(lambda fs: _read_all(model, fs), frames, repeat), found, moved


def _read_all(model, frames: list[np.ndarray]) -> float:
    """Seconds for ``model`` (a ``NumeralModel``) to read ``frames`` one after another."""
    t = time.perf_counter()
    for f in frames:
        model.readings(f)
    return time.perf_counter() - t


def alternate_frames(folders: list[Path], frames: list[np.ndarray], repeat: int) -> list[float]:
    """Two bundles reading ``frames`` in turn, ``repeat`` times after a warm-up: the ratio of the second's
    time to the first's in each turn (a drift of the machine's speed weighs on both alike)."""
    from companion.vision.numerals import NumeralModel  # noqa: PLC0415

    models = [NumeralModel(f) for f in folders]
    for m in models:
        _read_all(m, frames)
    ratios = []
    for _ in range(repeat):
        first, second = (_read_all(m, frames) for m in models)
        ratios.append(second / first)
    return ratios


def main(argv=None) -> int:
    from companion.vision.synth.standard_styles import CALIBRATION_STYLES, render_crops

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reader", action="append", required=True, help="numeral bundle folder(s)")
    ap.add_argument("--dice", type=int, default=12, help="dice in the roll (one batch)")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--frame", action="store_true", help="also time a whole 1280 px frame (finder + reader)")
    ap.add_argument("--frames", type=Path, help="also time the frames of this synth.real_tables folder")
    ap.add_argument("--count", type=int, default=50, help="how many of --frames' frames")
    ap.add_argument(
        "--alternate",
        action="store_true",
        help="with two readers and --frames: time them in turn, the median of the ratios of each turn",
    )
    a = ap.parse_args(argv)
    if a.alternate and (len(a.reader) != 2 or a.frames is None):
        ap.error("--alternate times two --reader bundles on --frames")
    if a.count < 1:
        ap.error(f"--count must be at least 1, not {a.count}")
    if a.frames is not None and not (a.frames / "manifest.jsonl").is_file():
        ap.error(f"--frames {a.frames}: no manifest.jsonl (a synth.real_tables folder)")
    many = frames_of(a.frames, a.count) if a.frames is not None else None
    if a.alternate:
        ratios = alternate_frames([Path(r) for r in a.reader], many, a.repeat)
        print(
            f"frames, alternating ({a.repeat} turns): second / first, median {statistics.median(ratios):.3f}"
        )
        print("  each turn: " + " ".join(f"{r:.3f}" for r in ratios))
        return 0
    crops = render_crops(a.dice, tuple(CALIBRATION_STYLES), 7, None)["crops"]
    frame = frame_of(a.dice) if a.frame else None
    rows = []
    for r in a.reader:
        f = time_bundle(Path(r), crops, a.repeat)
        if frame is not None:
            f["frame_ms"], found = time_frame(Path(r), frame, a.repeat)
            print(f"{r}: the frame's finder found {found} of {a.dice} dice")
        if many is not None:
            f["frames_ms"], found, moved = time_frames(Path(r), many, a.repeat)
            print(f"{r}: {len(many)} frames: {found} dice found, {moved} of them moved by the box refiner")
        rows.append(f)
        parts = ", ".join(f"{k.removesuffix('_ms')} {v:.2f} ms" for k, v in f.items())
        print(f"{r}: {a.dice} dice: {parts}")
    if len(rows) == 2:
        for k in rows[0]:
            if k in rows[1]:
                print(f"{k.removesuffix('_ms')}: second / first = {rows[1][k] / rows[0][k]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
