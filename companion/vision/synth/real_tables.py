"""Whole frames of real-looking Dragon Dice as a one-class detection set, for the die finder.

The die finder (``dragon-dice``'s ``detector.onnx``) learned its dice from the procedural renders of
``synth.scene``: flat-coloured bodies seen from above.  A real table shows bevelled dice of marbled
plastic under an oblique camera (``real_dice.render_table``); measured outside the project, the
finder missed a third of such dice.  This writes frames of ``real_dice.render_table`` in the YOLO
layout (``images/``, ``labels/`` with the one class ``die``, ``data.yaml``, ``manifest.jsonl`` with
each box's die and face), with each species wearing one art family of the families given, so that a
set can be drawn from training, calibration or test families alone (``synth.art``).

    python -m companion.vision.synth.real_tables OUT --families train --frames 1200 --seed 1 --workers 2
    python -m companion.vision.synth.real_tables OUT --standard test --frames 200 --seed 1   # d4-d20
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.vision.synth import art
from companion.vision.synth.real_dice import BASE_WIDTH

FAMILY_SETS = {
    "train": art.TRAIN_FAMILIES,
    "calibration": art.CALIBRATION_FAMILIES,
    "test": art.TEST_FAMILIES,
    "fresh-test": art.FRESH_TEST_FAMILIES,
}


def table_dice(rng: np.random.Generator, catalogue, families) -> tuple[dict[str, int], list[tuple]]:
    """A table's dice and its art: 1-3 species (each with one family drawn from ``families``), 3-12
    dice of theirs showing random faces, about 5 % of them cocked."""
    groups: dict[str, list] = {}
    for die in catalogue:
        if die.species and len(die.faces) in (4, 6, 8, 10, 12):
            groups.setdefault(die.species, []).append(die)
    names = sorted(groups)
    species = [names[i] for i in rng.choice(len(names), int(rng.integers(1, 4)), replace=False)]
    pool = [d for s in species for d in groups[s]]
    dice = []
    for _ in range(int(rng.integers(3, 13))):
        die = pool[int(rng.integers(len(pool)))]
        dice.append((die.name, int(rng.integers(len(die.faces))), bool(rng.random() < 0.05)))
    return {s: int(families[int(rng.integers(len(families)))]) for s in species}, dice


#: The kinds of a polyhedral set, and how many of each a table's roll may hold (a d10 pair for
#: percentiles, a handful of d6).
STANDARD_SET = {"d4": 2, "d6": 4, "d8": 2, "d10": 2, "d12": 2, "d20": 3}


def table_standard_dice(rng: np.random.Generator, styles) -> list[tuple]:
    """A table of standard dice: the sets of 1-2 players (each a style drawn from ``styles``), 3-12
    dice of kinds from their sets showing random values, about 5 % of them cocked;
    ``(kind, value, style_seed, cocked)`` as ``real_dice.render_standard_table`` takes them."""
    from companion.vision.synth.real_dice import POLY_VALUES  # noqa: PLC0415

    sides = {kind: len(values) for kind, values in POLY_VALUES.items()}
    sets = [
        int(styles[i])
        for i in rng.choice(len(styles), min(len(styles), int(rng.integers(1, 3))), replace=False)
    ]
    left = {(s, k): n for s in sets for k, n in STANDARD_SET.items()}
    dice = []
    for _ in range(int(rng.integers(3, 13))):
        open_ = [key for key, n in left.items() if n > 0]
        style, kind = open_[int(rng.integers(len(open_)))]
        left[(style, kind)] -= 1
        dice.append((kind, int(rng.integers(1, sides[kind] + 1)), style, bool(rng.random() < 0.05)))
    return dice


def _frame(args: tuple) -> tuple[np.ndarray, list[dict], dict | None]:
    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415
    from companion.vision.synth.real_dice import render_standard_table, render_table  # noqa: PLC0415

    seed, families, width, height, clutter = args
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    if isinstance(families, Standard):
        dice = table_standard_dice(rng, families.styles)
        img, labels = render_standard_table(
            dice, rng, width, height, clutter=bool(clutter) and rng.random() < clutter
        )
        return img, labels, None
    fams, dice = table_dice(rng, load_catalogue(), families)
    # a frame has cards and banners on the table with probability ``clutter``; at 0 no number is drawn
    # for it, so a set written without clutter is the one written before the option existed
    img, labels = render_table(
        fams, dice, rng, width, height, clutter=bool(clutter) and rng.random() < clutter
    )
    return img, labels, fams


class Standard:
    """Standard dice of these styles (``synth.standard_styles``) in place of art families: the frames
    show players' polyhedral sets (``table_standard_dice``) and the manifest gives each die's kind and
    value; the labels still have the one class ``die``."""

    def __init__(self, styles):
        self.styles = tuple(int(s) for s in styles)
        if not self.styles:
            raise ValueError("no standard-dice style to draw the dice with")


def set_folder(stem: str, width: int) -> str:
    """A rendered set's folder name: ``stem`` for frames ``BASE_WIDTH`` px wide, ``stem-wWIDTH`` for others."""
    return stem if width == BASE_WIDTH else f"{stem}-w{width}"


def write_real_tables(
    out: Path,
    families,
    frames: int,
    *,
    seed: int = 0,
    width: int = BASE_WIDTH,
    height: int = 960,
    workers: int = 0,
    progress: bool = True,
    clutter: float = 0.0,
) -> Path:
    """Render ``frames`` tables and write them as a one-class YOLO set in ``out`` (frame ``k`` is drawn
    from ``seed * 1_000_003 + k``: the same arguments write the same set).  Returns ``data.yaml``.

    ``families``: art families of Dragon Dice, or :class:`Standard` styles for frames of standard dice
    (``companion vision eval --model polyhedral-oblique --data OUT`` scores a reader on them)."""
    from companion.vision.enroll_sim import render_each  # noqa: PLC0415
    from companion.vision.yolo_dataset import boxes_norm, write_data_yaml, write_labels  # noqa: PLC0415

    if frames < 1:
        raise ValueError(f"frames must be 1 or more, not {frames}")
    if not 0.0 <= clutter <= 1.0:
        raise ValueError(f"clutter is the share of frames with cards on the table, 0 to 1, not {clutter}")
    families = families if isinstance(families, Standard) else tuple(int(f) for f in families)
    if not isinstance(families, Standard) and not families:
        raise ValueError("no art family to draw the dice with")
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    manifest = open(out / "manifest.jsonl", "w")  # noqa: SIM115 - written frame by frame, closed below

    def each(k: int, result) -> None:
        img, labels, fams = result
        name = f"table_{k:05d}"
        h, w = img.shape[:2]  # the boxes are normalised by the frame as rendered
        cv2.imwrite(str(out / "images" / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        yolo = boxes_norm([lab["box"] for lab in labels], w, h)
        write_labels(out / "labels" / f"{name}.txt", [0] * len(labels), yolo)
        rec = {"image": f"images/{name}.jpg", "dice": labels}
        if fams is not None:  # each species' art family (what enrolment renders the table's dice in)
            rec["families"] = fams
        manifest.write(json.dumps(rec) + "\n")

    def show(done: int, total: int) -> None:
        if progress and (done % 50 == 0 or done == total):
            print(f"real tables: {done}/{total} frames", file=sys.stderr, flush=True)

    args = [(seed * 1_000_003 + k, families, width, height, float(clutter)) for k in range(frames)]
    try:
        render_each(_frame, args, workers=workers, progress=show, each=each)
    finally:
        manifest.close()
    return write_data_yaml(out, ["die"], train="images", val="images")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="folder to write (images/, labels/, data.yaml, manifest.jsonl)")
    ap.add_argument("--families", choices=sorted(FAMILY_SETS), default="train")
    ap.add_argument(
        "--standard",
        choices=("train", "calibration", "test"),
        help="frames of standard dice (d4-d20) of these styles (synth.standard_styles) instead of Dragon Dice",
    )
    ap.add_argument("--frames", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--width", type=int, default=BASE_WIDTH)
    ap.add_argument("--height", type=int, default=960)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument(
        "--clutter", type=float, default=0.0, help="share of frames with cards and banners on the table (0-1)"
    )
    args = ap.parse_args(argv)
    from companion.vision.synth.standard_styles import SPLITS  # noqa: PLC0415 - loads the reader's kinds

    if args.frames < 1:
        ap.error(f"--frames must be 1 or more, not {args.frames}")
    if not 0.0 <= args.clutter <= 1.0:
        ap.error(f"--clutter must be a share from 0 to 1, not {args.clutter}")
    print(
        write_real_tables(
            Path(args.out),
            Standard(SPLITS[args.standard]) if args.standard else FAMILY_SETS[args.families],
            args.frames,
            seed=args.seed,
            width=args.width,
            height=args.height,
            workers=args.workers,
            clutter=args.clutter,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
