"""Standard dice on whole oblique frames: the die finder and the reader together, per die kind.

    python bench/standard_frames.py --split test --frames 300 --seed 9 [--model polyhedral-oblique]
                                    [--gates GATES.json] [--json OUT]
    python bench/standard_frames.py --split calibration --frames 1000 --seed 7 --choose-gates GATES.json

The frames are ``real_dice.render_standard_table`` tables (``synth.real_tables --standard``: the sets
of 1-2 players, 3-12 dice, about 5 % cocked, camera 30-60 degrees from straight down, 1280 x 960),
written once under ``--data-root`` and read again by later runs.  Every frame is read once by the
bundle's finder and reader **without** a gate; the figures are then those of a gate per kind read
(the bundle's own, or ``--gates``): exactly what ``companion vision read`` reports, since an
unenrolled bundle leaves a die unreadable when the reader's confidence is under the gate of the kind
it read (``reader_gate``).

Per kind (of the flat dice): found (a finder box with IoU >= 0.5), read right, read wrong (a value,
and the kind or the value wrong: confidently wrong), unreadable.  Cocked dice read as a value (they
should be rerolled), and the finder's false boxes read as a value (a die that is not there).

``--choose-gates FILE`` (CALIBRATION styles only: the rule of ``models/polyhedral-oblique/CHANGELOG.md``,
stop 38): per kind read, the lowest gate of ``standard_sim.MIN_CONFS`` with at most 1 % of the found
flat dice read as that kind read wrong, raised to the bundle's own gate where that is higher; written
to FILE as ``{"min_face_confidence_by_kind": {...}}``.  The TEST styles choose nothing.

``--enrolled SHOTS`` also reads the frames with the bundle enrolled (``standard_frames.enrolled_reads``:
before each frame, a profile taught SHOTS renders of every value of every set on the table), under the
bundle's kind gate (``min_kind_confidence_by_kind``), none, and ``--kind-gates FILE``;
``--choose-kind-gates FILE`` (calibration only) chooses the kind gates by the rule of the changelog
(stop 38): per kind read, no gate, else the lowest of ``MIN_CONFS``, with at most 1 % of the found flat
dice read as that kind read wrong by the enrolled bundle.

    python bench/standard_frames.py --split calibration --frames 1000 --seed 7 --enrolled 2 \
        --enrolled-frames 300 --choose-kind-gates KIND.json

``--choose-floors FILE`` (with ``--enrolled``, calibration) chooses the kind gate and the combined rule's
margin floor together (``standard_frames.choose_floors``; the rule of models/polyhedral-oblique/CHANGELOG.md,
stop 39) and writes both.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.combined_reading import FLOOR_KEY  # noqa: E402
from companion.vision.numerals import KINDS, load_numeral_model  # noqa: E402
from companion.vision.reader_gate import KIND_BY_KIND_KEY, KIND_KEY, ReaderGate  # noqa: E402
from companion.vision.standard_frames import (  # noqa: E402
    choose_floors,
    choose_gates,
    choose_large_dice,
    enrolled_reads,
    figures,
    floors_spec,
    gated_by_floor,
    gated_by_rule,
    raw_reads,
)
from companion.vision.synth.real_dice import BASE_WIDTH  # noqa: E402


def frames_dir(root: Path, split: str, frames: int, seed: int, width: int = BASE_WIDTH) -> Path:
    """The frames of these arguments, written on first use (``synth.real_tables --standard``; ``width``
    x 3/4 px, the table's scale ``width``/1280 times a 1280 px frame's)."""
    from companion.vision.synth.real_tables import Standard, set_folder, write_real_tables  # noqa: PLC0415
    from companion.vision.synth.standard_styles import SPLITS  # noqa: PLC0415

    out = Path(root) / set_folder(f"{split}-{frames}-{seed}", width)
    if not (out / "data.yaml").is_file():
        write_real_tables(
            out, Standard(SPLITS[split]), frames, seed=seed, width=width, height=width * 3 // 4, workers=2
        )
    return out


def report(fig: dict, title: str) -> None:
    print(title)
    print(
        f"{'kind':5s} {'flat':>5s} {'found':>7s} {'right':>7s} {'wrong':>7s} {'unread':>7s} {'cocked read':>12s}"
    )
    for k in ("all", *KINDS):
        f = fig[k]
        print(
            f"{k:5s} {f['flat_dice']:5d} {100 * f['found_rate']:6.1f}% {100 * f['read_right_rate']:6.1f}% "
            f"{100 * f['read_wrong_rate']:6.2f}% {100 * f['unreadable_rate']:6.1f}% "
            f"{f['cocked_read']:5d} of {f['cocked']:<4d}"
        )
    a = fig["all"]
    if "false_boxes_per_frame" in a:
        print(f"false boxes {a['false_boxes_per_frame']:.2f} a frame", end=", ")
    print(f"read as a die {a['phantoms_read_per_frame']:.2f} a frame (no die there)")


def enrolled_bundle(base: str, out: Path) -> Path:
    """``base`` enrolled into ``out`` from one render of a calibration d20: the bundle the frames are read
    with, every frame then teaching it its own profile (``standard_frames.enrolled_reads``)."""
    from companion.vision.enroll import Sighting, enroll  # noqa: PLC0415
    from companion.vision.profile import FaceLabel  # noqa: PLC0415
    from companion.vision.synth.standard_styles import CALIBRATION_STYLES, render_value  # noqa: PLC0415

    one = np.pad(
        render_value("d20", 20, np.random.default_rng(0), CALIBRATION_STYLES[0]), ((8, 8), (8, 8), (0, 0))
    )
    enroll(base, out, [Sighting("bench", one, [12.0, 12.0, 68.0, 68.0], FaceLabel("d20", "value", 20))])
    return out


def enrolled_section(a, model, data: Path) -> dict:
    """The frames read by the bundle enrolled (``--enrolled SHOTS``), under its own kind gate, no kind gate,
    ``--kind-gates`` and the kind gates ``--choose-kind-gates`` chooses by the rule."""
    import tempfile  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as tmp:
        enrolled_bundle(a.model, Path(tmp) / "b")
        log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
        if a.refiner or a.same_die is not None:
            return boxes_section(a, model, data, Path(tmp) / "b", log)
        raw = enrolled_reads(
            Path(tmp) / "b",
            data,
            shots=a.enrolled,
            frames=a.enrolled_frames,
            log=log,
            margins=bool(a.choose_floors or a.without_large_dice),
            resolution=a.width / BASE_WIDTH,
        )
    what = f"enrolled ({a.enrolled} renders of every value of the table's sets), {raw['frames']} frames"
    own = model.kind_gate
    out = {"shots": a.enrolled, "frames": raw["frames"]}
    if a.choose_floors:  # every box holds its top value: replayed under (kind gate, floor) pairs
        base = figures(gated_by_floor(raw, own.by_kind, {}), ReaderGate(0.5))
        out["bundle_kind_gate"] = {"gates": own.to_meta(), "figures": base}
        report(base, f"{what}, the bundle's kind gate {own.by_kind} and margins")
        spec = floors_spec(choose_floors(raw, a.max_wrong))
        gates, floors = spec[KIND_BY_KIND_KEY], spec[FLOOR_KEY]
        fig = figures(gated_by_floor(raw, gates, floors), ReaderGate(0.5))
        out["chosen_floors"] = {"kind_gates": gates, "floors": floors, "figures": fig}
        Path(a.choose_floors).write_text(json.dumps(spec, indent=1) + "\n")
        report(fig, f"{what}, chosen by the rule: kind gates {gates}, margin floors {floors}")
        return out
    if a.without_large_dice:  # one reading, replayed under the bundle's rule with and without large_dice
        from dataclasses import replace  # noqa: PLC0415

        from companion.vision.combined_reading import COMBINED_KEY, parse_rule  # noqa: PLC0415

        rule = parse_rule(model.meta[COMBINED_KEY], model.kinds, a.model)
        ways = [("bundle_rule", rule), ("without_large_dice", replace(rule, large=None))]
        if a.choose_large_dice:  # the third rule of models/polyhedral-oblique/CHANGELOG.md, stop 42
            chosen = choose_large_dice(raw, "d20")
            Path(a.choose_large_dice).write_text(json.dumps({"large_dice": chosen}, indent=1) + "\n")
            print(f"large_dice chosen on these frames (the d20 only) -> {a.choose_large_dice}: {chosen}")
            if chosen is not None:
                spec = {**model.meta[COMBINED_KEY], "large_dice": chosen}
                ways.append(("chosen_large_dice", parse_rule(spec, model.kinds, a.choose_large_dice)))
        for name, r in ways:
            fig = figures(gated_by_rule(raw, r, own), ReaderGate(0.5))
            out[name] = {"figures": fig}
            label = "the chosen large_dice" if name == "chosen_large_dice" else "the bundle's rule"
            report(fig, f"{what}, {label}{' without large_dice' if r.large is None else ''}")
        return out
    for name, gate in (("bundle_kind_gate", own), ("no_kind_gate", ReaderGate(0.0, {}, own.keys))):
        out[name] = {"gates": gate.to_meta(), "figures": figures(raw, gate)}
        report(out[name]["figures"], f"{what}, kind gate {gate.to_meta()}")
    if a.kind_gates:
        meta = dict(model.meta, **json.loads(Path(a.kind_gates).read_text()))
        gate = ReaderGate.parse(meta, model.kinds, KIND_KEY, KIND_BY_KIND_KEY, default=0.0)
        out["given_kind_gates"] = {"gates": gate.to_meta(), "figures": figures(raw, gate)}
        report(
            out["given_kind_gates"]["figures"], f"{what}, the kind gates of {a.kind_gates}: {gate.by_kind}"
        )
    if a.choose_kind_gates:
        chosen = choose_gates(raw, ReaderGate(0.0, {}, own.keys), none_first=True)
        gate = ReaderGate(0.0, chosen, own.keys)
        out["chosen_kind_gates"] = {"gates": gate.to_meta(), "figures": figures(raw, gate)}
        Path(a.choose_kind_gates).write_text(json.dumps({KIND_BY_KIND_KEY: chosen}, indent=1) + "\n")
        report(out["chosen_kind_gates"]["figures"], f"{what}, the kind gates chosen by the rule: {chosen}")
    return out


def boxes_section(a, model, data: Path, bundle: Path, log) -> dict:
    """``--refiner ONNX`` and/or ``--same-die X``: the frames read by the enrolled bundle under its own rule
    and gates, first with neither, then with that refiner (8 looks, 1 pass) at each ``--blend``, or with
    ``same_die`` X alone; every reading teaches the same renders (the rules of
    models/polyhedral-oblique/CHANGELOG.md, stop 43)."""
    from companion.vision.box_refine import BoxRefiner  # noqa: PLC0415

    taught: dict = {}
    same = a.same_die if a.same_die is not None else False
    tail = f"_same_die_{a.same_die:g}" if a.same_die is not None else ""
    ways = [("without_refiner", False, False, None)]
    if a.refiner:
        onnx = Path(a.refiner) if a.refiner.endswith(".onnx") else Path(a.refiner) / "refine.onnx"
        ways += [(f"refiner_blend_{b:g}{tail}", BoxRefiner(onnx, blend=b), same, b) for b in a.blend]
    else:
        ways.append((f"same_die_{a.same_die:g}", False, same, None))
    out: dict = {"shots": a.enrolled, "refiner": a.refiner, "same_die": a.same_die}
    for name, refiner, same_die, blend in ways:
        raw = enrolled_reads(
            bundle,
            data,
            shots=a.enrolled,
            frames=a.enrolled_frames,
            log=log,
            resolution=a.width / BASE_WIDTH,
            refiner=refiner,
            taught=taught,
            same_die=same_die,
        )
        fig = figures(raw, model.kind_gate)
        ms = np.array(raw["ms"])
        out[name] = {"blend": blend, "figures": fig, "ms_median": round(float(np.median(ms)), 1)}
        label = (
            "without a box refiner" if refiner is False else f"the refiner of {a.refiner}, blend {blend:g}"
        )
        if same_die is not False:
            label += f", boxes overlapping at IoU above {same_die:g} one die"
        report(fig, f"enrolled ({a.enrolled} renders of every value), {raw['frames']} frames, {label}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("calibration", "test"), default="test")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--model", default="polyhedral-oblique")
    ap.add_argument("--data-root", default="artifacts/standard/frames")
    ap.add_argument(
        "--gates", help="a JSON of min_face_confidence_by_kind to read with instead of the bundle's"
    )
    ap.add_argument("--choose-gates", metavar="FILE", help="choose the gates by the rule (calibration only)")
    ap.add_argument(
        "--enrolled",
        type=int,
        metavar="SHOTS",
        help="also read the frames with the bundle enrolled: SHOTS renders of every value of the table's sets",
    )
    ap.add_argument("--enrolled-frames", type=int, help="with --enrolled: the first so many frames only")
    ap.add_argument(
        "--kind-gates", help="with --enrolled: a JSON of min_kind_confidence_by_kind to read with too"
    )
    ap.add_argument(
        "--choose-kind-gates",
        metavar="FILE",
        help="with --enrolled: choose the kind gates by the rule (calibration)",
    )
    ap.add_argument(
        "--choose-floors",
        metavar="FILE",
        help="with --enrolled: choose the kind gates and margin floors together by the rule (calibration)",
    )
    ap.add_argument(
        "--max-wrong",
        type=float,
        default=0.01,
        help="with --choose-floors: the share of a kind's found flat dice that may be read wrong (default 0.01)",
    )
    ap.add_argument(
        "--width",
        type=int,
        default=BASE_WIDTH,
        help=f"frame width in px (height 3/4 of it; default {BASE_WIDTH}): the table seen with that many more "
        "pixels (4032: a phone's 12 MP photo); --enrolled renders are drawn at the same scale",
    )
    ap.add_argument(
        "--without-large-dice",
        action="store_true",
        help="with --enrolled: read once and report the bundle's rule with and without its "
        "combined_reading.large_dice (the gates of dice at least from_px across)",
    )
    ap.add_argument(
        "--choose-large-dice",
        metavar="FILE",
        help="with --enrolled --without-large-dice on calibration frames: choose the d20's large_dice gates "
        "on these frames (the third rule of models/polyhedral-oblique/CHANGELOG.md, stop 42), write FILE",
    )
    ap.add_argument(
        "--refiner",
        metavar="ONNX",
        help="with --enrolled: read without a box refiner and with this one (an .onnx file, or a folder holding "
        "refine.onnx; 8 looks, 1 pass) at each --blend, under the bundle's own rule and gates",
    )
    ap.add_argument(
        "--blend",
        type=float,
        action="append",
        help="with --refiner: a share of the way from the found box to the refined one (repeatable; default 1)",
    )
    ap.add_argument(
        "--same-die",
        type=float,
        help="with --enrolled: read without it and with it: two found (or moved) boxes overlapping at IoU above "
        "this are one die (detections.same_dice; with --refiner, with each refiner reading)",
    )
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args(argv)
    if a.choose_large_dice and (not a.without_large_dice or a.split != "calibration"):
        ap.error("--choose-large-dice chooses on calibration frames, with --enrolled --without-large-dice")
    if a.without_large_dice and (not a.enrolled or a.choose_floors):
        ap.error("--without-large-dice needs --enrolled (and not --choose-floors)")
    if (a.refiner or a.same_die is not None) and (not a.enrolled or a.without_large_dice or a.choose_floors):
        ap.error(
            "--refiner and --same-die need --enrolled (and neither --without-large-dice nor --choose-floors)"
        )
    a.blend = a.blend or [1.0]
    if a.same_die is not None and not 0 < a.same_die < 1:
        ap.error(f"--same-die must be an IoU above 0 and under 1, not {a.same_die}")
    if any(not 0 < b <= 1 for b in a.blend):
        ap.error(f"--blend must be above 0 and at most 1, not {a.blend}")
    if not 320 <= a.width <= 8192:
        ap.error(f"--width must be from 320 to 8192 px, not {a.width}")
    if not 0 <= a.max_wrong < 1:
        ap.error(f"--max-wrong must be from 0 to under 1, not {a.max_wrong}")
    if a.frames < 1:
        ap.error(f"--frames must be 1 or more, not {a.frames}")
    if a.choose_floors and (a.split != "calibration" or not a.enrolled):
        ap.error("--choose-floors chooses on the calibration styles only, with --enrolled")
    if a.choose_kind_gates and (a.split != "calibration" or not a.enrolled):
        ap.error("--choose-kind-gates chooses on the calibration styles only, with --enrolled")
    if a.choose_gates and a.split != "calibration":
        ap.error("--choose-gates chooses on the calibration styles only (--split calibration)")
    model = load_numeral_model(a.model)
    data = frames_dir(Path(a.data_root), a.split, a.frames, a.seed, a.width)
    raw = raw_reads(model, data, log=lambda m: print(m, file=sys.stderr, flush=True))
    out = {"model": a.model, "split": a.split, "frames": raw["frames"], "seed": a.seed}
    own = figures(raw, model.gate)
    out["bundle_gates"] = {"gates": model.gate.to_meta(), "figures": own}
    report(own, f"{a.model} on {raw['frames']} frames of the {a.split.upper()} styles, the bundle's gates")
    if a.gates:
        meta = dict(model.meta, **json.loads(Path(a.gates).read_text()))
        gate = ReaderGate.parse(meta, model.kinds)
        out["given_gates"] = {"gates": gate.to_meta(), "figures": figures(raw, gate)}
        report(out["given_gates"]["figures"], f"with the gates of {a.gates}: {gate.by_kind}")
    if a.choose_gates:
        chosen = choose_gates(raw, model.gate)
        gate = ReaderGate(model.gate.default, chosen)
        out["chosen_gates"] = {"gates": gate.to_meta(), "figures": figures(raw, gate)}
        Path(a.choose_gates).write_text(json.dumps({"min_face_confidence_by_kind": chosen}, indent=1) + "\n")
        report(
            out["chosen_gates"]["figures"],
            f"with the gates chosen by the rule (written to {a.choose_gates}): {chosen}",
        )
    if a.enrolled:
        out["enrolled"] = enrolled_section(a, model, data)
    ms = np.array(raw["ms"])
    out["ms_per_frame"] = {
        "median": round(float(np.median(ms)), 1),
        "p90": round(float(np.percentile(ms, 90)), 1),
    }
    print(
        f"finder + reader {out['ms_per_frame']['median']} ms a frame (median; p90 {out['ms_per_frame']['p90']})"
    )
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
