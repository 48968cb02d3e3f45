"""The box refiner read with kind gates and margin floors of its own, against the shipped bundle.

Candidates R1, R2 and R3 of ``models/polyhedral-oblique/CHANGELOG.md`` (stops 44-46): the finder's boxes
moved by a box refiner (``--refiner ONNX``, ``--looks``; R2: only those first read as a d20,
``--refine-kinds d20``; R3: only those at least 90 px across, ``--refine-from-px 90``, their gates in a
``combined_reading.large_dice`` section, ``--large-dice FILE``), two boxes of one die kept once
(``--same-die``), and the kind
gates (``min_kind_confidence_by_kind``) and margin floors (``combined_reading.min_margin_floor``) chosen
again for those boxes by the rule of stop 39 (``standard_frames.choose_floors``).

    # choose (CALIBRATION frames only): every set read with the refined boxes, pooled, the rule applied
    python bench/refined_floors.py --refiner models/polyhedral-oblique/candidates/refine-r.onnx --looks 1 \\
        --same-die 0.5 --set calibration:800:51:1280 --set calibration:150:53:4032 --choose FLOORS.json
    # score: every set read by the shipped bundle and by the candidate with FLOORS.json, per width
    python bench/refined_floors.py --refiner models/polyhedral-oblique/candidates/refine-r.onnx --looks 1 \\
        --same-die 0.5 --floors FLOORS.json --set calibration:100:33:4032 --set calibration:150:35:1280

A set is ``SPLIT:FRAMES:SEED:WIDTH``: the frames of ``bench/standard_frames.py`` (``synth.real_tables
--standard``, written once under ``--data-root``).  Every frame is read enrolled as there: before it, a
profile taught ``--shots`` renders of every value of every set on its table, at the frame's scale (the
same renders for both readings of a frame).  The candidate's reading keeps each box's top value, kind
probability and combined margin, read by a copy of the bundle **without** its kind gates and floors, so
that any gates and floors can be replayed (``standard_frames.gated_by_floor``); the shipped bundle is
read as it is (its refiner and ``same_die``, if any, its gates and floors).  Figures are printed per
width (the sets of one width pooled) and, when choosing, over all sets.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.combined_reading import COMBINED_KEY, FLOOR_KEY, parse_rule  # noqa: E402
from companion.vision.numerals import load_numeral_model  # noqa: E402
from companion.vision.reader_gate import KIND_BY_KIND_KEY, KIND_KEY, ReaderGate  # noqa: E402
from companion.vision.standard_frames import (  # noqa: E402
    choose_floors,
    enrolled_reads,
    figures,
    floors_spec,
    gated_by_floor,
    pooled,
)
from companion.vision.synth.real_dice import BASE_WIDTH  # noqa: E402

#: The share of a kind's found flat dice that the chosen pair may read wrong (stop 39, second pass).
MAX_WRONG = 0.005
SPLITS = ("calibration", "test")


def parse_set(text: str) -> tuple[str, int, int, int]:
    """``SPLIT:FRAMES:SEED:WIDTH`` -> its four parts; a bad one is refused, naming it."""
    parts = text.split(":")
    if len(parts) != 4 or parts[0] not in SPLITS:
        raise argparse.ArgumentTypeError(
            f"--set {text!r}: expected SPLIT:FRAMES:SEED:WIDTH, SPLIT one of {SPLITS}"
        )
    try:
        frames, seed, width = (int(p) for p in parts[1:])
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--set {text!r}: FRAMES, SEED and WIDTH must be whole numbers"
        ) from None
    if frames < 1 or seed < 0 or not 320 <= width <= 8192:
        raise argparse.ArgumentTypeError(f"--set {text!r}: FRAMES >= 1, SEED >= 0, WIDTH from 320 to 8192 px")
    return parts[0], frames, seed, width


def unfloored(model, out: Path, large_dice: dict | None = None) -> Path:
    """A copy of ``model``'s bundle without its kind gates and margin floors, so a reading keeps every box's
    kind probability and the margin its rule asks before any floor (what ``choose_floors`` replays); with
    ``large_dice``, that ``combined_reading`` section in place of the bundle's own (its dice are judged by
    it, as the bundle would judge them: ``standard_frames.gated_by_floor``)."""
    shutil.copytree(model.bundle, out, ignore=shutil.ignore_patterns("candidates", "*.pt", "*.log", "*.md"))
    meta = json.loads((out / "model.json").read_text())
    meta.pop(KIND_BY_KIND_KEY, None)
    meta.get(COMBINED_KEY, {}).pop(FLOOR_KEY, None)
    if large_dice is not None:
        meta[COMBINED_KEY]["large_dice"] = large_dice
    (out / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
    return out


def read_floored(spec, kinds, combined: dict) -> tuple[dict[str, float], dict[str, float]]:
    """The kind gates and floors of a ``--choose`` file, checked as a bundle's ``model.json`` is
    (``ReaderGate.parse``, ``combined_reading.parse_rule`` over the bundle's own ``combined``): both
    sections must be there; a kind the reader does not read, or a bad number, is refused, naming it."""
    if not isinstance(spec, dict) or any(
        not isinstance(spec.get(k), dict) for k in (KIND_BY_KIND_KEY, FLOOR_KEY)
    ):
        raise ValueError(f"floors file: expected an object with {KIND_BY_KIND_KEY!r} and {FLOOR_KEY!r}")
    gate = ReaderGate.parse(spec, kinds, KIND_KEY, KIND_BY_KIND_KEY, default=0.0)
    rule = parse_rule({**combined, FLOOR_KEY: spec[FLOOR_KEY]}, kinds, "floors file")
    return dict(gate.by_kind), dict(rule.min_margin_floor)


def main(argv=None) -> int:
    from companion.vision.box_refine import BoxRefiner  # noqa: PLC0415

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from standard_frames import enrolled_bundle, frames_dir, report  # noqa: PLC0415

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--set", dest="sets", type=parse_set, action="append", required=True, metavar="SPLIT:N:SEED:W"
    )
    ap.add_argument("--model", default="polyhedral-oblique")
    ap.add_argument("--data-root", default="artifacts/standard/frames")
    ap.add_argument("--refiner", required=True, metavar="ONNX", help="the box refiner's ONNX file")
    ap.add_argument("--looks", type=int, choices=(1, 8), default=1)
    ap.add_argument(
        "--refine-kinds",
        metavar="KIND[,KIND]",
        help="move only the boxes first read as these kinds (box_refiner.kinds; default: every box)",
    )
    ap.add_argument(
        "--refine-from-px",
        type=float,
        metavar="PX",
        help="move only the boxes at least PX across (box_refiner.from_px; default: any size)",
    )
    ap.add_argument(
        "--large-dice",
        metavar="FILE",
        help="the candidate's combined_reading.large_dice section (JSON): the gates of dice many pixels across",
    )
    ap.add_argument(
        "--same-die", type=float, help="two moved boxes overlapping at IoU above this are one die"
    )
    ap.add_argument("--shots", type=int, default=2, help="renders of every value taught before a frame")
    ap.add_argument("--max-wrong", type=float, default=MAX_WRONG)
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--choose", metavar="FILE", help="choose the kind gates and floors (calibration only)")
    what.add_argument(
        "--floors", metavar="FILE", help="read with these kind gates and floors (a --choose file)"
    )
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args(argv)
    if a.same_die is not None and not 0 < a.same_die < 1:
        ap.error(f"--same-die must be an IoU above 0 and under 1, not {a.same_die}")
    if not Path(a.refiner).is_file():
        ap.error(f"--refiner {a.refiner}: no such file")
    if a.choose and any(s[0] != "calibration" for s in a.sets):
        ap.error("--choose chooses on calibration frames only")
    if not 0 <= a.max_wrong < 1:
        ap.error(f"--max-wrong must be from 0 to under 1, not {a.max_wrong}")
    model = load_numeral_model(a.model)
    gates = floors = None
    if a.floors:
        try:
            gates, floors = read_floored(
                json.loads(Path(a.floors).read_text()), model.kinds, model.meta[COMBINED_KEY]
            )
        except (OSError, ValueError) as exc:
            ap.error(f"--floors {a.floors}: {exc}")
    large = None
    if a.large_dice:
        try:
            large = json.loads(Path(a.large_dice).read_text())
            parse_rule({**model.meta[COMBINED_KEY], "large_dice": large}, model.kinds, "large dice file")
        except (OSError, ValueError) as exc:
            ap.error(f"--large-dice {a.large_dice}: {exc}")
    if a.refine_from_px is not None and not 0 < a.refine_from_px < 100000:
        ap.error(f"--refine-from-px must be a die size in pixels above 0, not {a.refine_from_px}")
    kinds = None if a.refine_kinds is None else tuple(a.refine_kinds.split(","))
    unknown = [k for k in kinds or () if k not in model.kinds]
    if unknown:
        ap.error(f"--refine-kinds {a.refine_kinds!r}: expected kinds of {', '.join(model.kinds)}")
    refiner = BoxRefiner(Path(a.refiner), looks=a.looks, kinds=kinds, from_px=a.refine_from_px)
    same = a.same_die if a.same_die is not None else False
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    mine: dict[int, list] = {}
    shipped: dict[int, list] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = unfloored(model, Path(tmp) / "base", large)
        bare = enrolled_bundle(str(base), Path(tmp) / "bare")
        own = enrolled_bundle(a.model, Path(tmp) / "own") if a.floors else None  # the shipped bundle
        for split, frames, seed, width in a.sets:
            data = frames_dir(Path(a.data_root), split, frames, seed, width)
            log(f"{data.name}: the candidate's reading")
            taught: dict = {}
            kw = {"shots": a.shots, "log": log, "resolution": width / BASE_WIDTH, "taught": taught}
            mine.setdefault(width, []).append(
                enrolled_reads(bare, data, margins=True, refiner=refiner, same_die=same, **kw)
            )
            if a.floors:
                log(f"{data.name}: the shipped bundle's reading")
                shipped.setdefault(width, []).append(enrolled_reads(own, data, **kw))
    out: dict = {
        "refiner": a.refiner,
        "looks": a.looks,
        "refine_kinds": None if kinds is None else list(kinds),
        "refine_from_px": a.refine_from_px,
        "large_dice": large,
        "same_die": a.same_die,
        "sets": [":".join(map(str, s)) for s in a.sets],
    }
    if a.choose:
        every = pooled([r for rs in mine.values() for r in rs])
        out["chosen"] = spec = floors_spec(choose_floors(every, a.max_wrong))
        gates, floors = spec[KIND_BY_KIND_KEY], spec[FLOOR_KEY]
        Path(a.choose).write_text(json.dumps(spec, indent=1) + "\n")
        fig = figures(gated_by_floor(every, gates, floors), ReaderGate(0.5))
        out["all_sets"] = fig
        report(
            fig,
            f"all sets ({every['frames']} frames), chosen by the rule: kind gates {gates}, floors {floors}",
        )
    for width, reads in sorted(mine.items()):
        raw = pooled(reads)
        fig = figures(gated_by_floor(raw, gates, floors), ReaderGate(0.5))
        row = {"frames": raw["frames"], "candidate": fig}
        report(
            fig, f"{width} px, {raw['frames']} frames: the candidate (refined boxes, its gates and floors)"
        )
        if a.floors:
            base = pooled(shipped[width])
            row["shipped"] = figures(base, model.kind_gate)
            report(row["shipped"], f"{width} px, {base['frames']} frames: the shipped bundle")
        out[f"w{width}"] = row
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
