"""Dragon Dice on whole frames: an enrolled bundle's camera path, per die (``companion.vision.dd_frames``).

    python bench/enroll_frames.py --families fresh-test --frames 150 --seed 3 [--sightings 3] [--json OUT]
    python bench/enroll_frames.py --families fresh-test --frames 150 --seed 61 --width 4032   # a phone's photo

The frames are ``synth.real_tables`` tables (1-3 species, each in one art family of the set, 3-12
dice, about 5 % cocked, camera 30-60 degrees, 1280 x 960), written once under ``--data-root``.  The
bundle is ``dragon-dice`` enrolled with the shipped ``face-embed`` network and its reading gates; before
each frame its profile is taught ``--sightings`` renders of every face of every die on the table, then
the frame is read as the tablet reads a roll (``roll_reading.read_roll``: finder, embedding, profile,
the roster's assignment).  Figures of the flat dice: right, confidently wrong, unread (a tap), not
seen; of the cocked dice: called cocked, read as a face.  ``--families fresh-test`` is the strict set
of the face-embed card (families 112-135: no choice was made on them); ``calibration`` the choice set.
Issue 20's targets at 3 sightings: right >= 97 %, confidently wrong <= 0.5 %.

    python bench/enroll_frames.py --choose-identity [--json OUT]

applies the identity gate's pick rule (models/face-embed/CHANGELOG.md, stop 39): the 300 calibration
frames (``calibration-100-5`` and ``calibration-200-7``) read with no identity gate, the gate replayed
over ``dd_frames.IDENTITY_GRID`` for both identities (the die type's, the face text's), each one's
gate the smallest whose confidently-wrong rate is at most ``IDENTITY_MAX_WRONG``, and the one that
reads more units right at its gate printed (``dd_frames.choose_identity_by``).  ``--min-identity X`` reads under that gate instead of the bundle's.

    python bench/enroll_frames.py --measure-size

prints ``size_sigma`` by its rule (CHANGELOG, stop 40): the spread of the finder's log box sizes about
each frame's own scale, on the 300 calibration frames.  ``--size-sigma X`` reads (or, with
``--choose-identity``, chooses the gate) with the size term at that spread; ``--offer-by assignment``
marks an identity-unsure unit's tap with the face another assignment gives it; ``--assign-scale X``
weighs the assignment's density with its own scale (CHANGELOG, stop 40); ``--read-together`` reads
look-alike dice together where every way of giving them their faces gives the same results (stop 41):
"results right" counts a unit read right on its own or in such a group whose faces give the results its
own dice show.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.dd_frames import (  # noqa: E402
    IDENTITY_KEYS,
    choose_identity_by,
    choose_identity_split,
    enrolled_bundle,
    frame_figures,
    size_sigma,
    tap_figures,
)
from companion.vision.synth.real_dice import BASE_WIDTH  # noqa: E402

CHOICE_SETS = (("calibration", 100, 5), ("calibration", 200, 7))


def _data(root: str, families: str, frames: int, seed: int, width: int = BASE_WIDTH) -> Path:
    """The frames' folder under ``root``, rendered once (4:3 frames ``width`` px wide)."""
    from companion.vision.synth.real_tables import FAMILY_SETS, set_folder, write_real_tables  # noqa: PLC0415

    data = Path(root) / set_folder(f"{families}-{frames}-{seed}", width)
    if not (data / "data.yaml").is_file():
        write_real_tables(
            data, FAMILY_SETS[families], frames, seed=seed, width=width, height=width * 3 // 4, workers=2
        )
    return data


def _choose(a) -> int:
    records: list[dict] = []
    sizes: list = []
    per_set: list[list[dict]] = []
    with tempfile.TemporaryDirectory() as tmp:
        bundle = enrolled_bundle(Path(tmp) / "b")
        for families, frames, seed in CHOICE_SETS:
            data = _data(a.data_root, families, frames, seed)
            fig = frame_figures(
                bundle,
                data,
                a.sightings,
                min_identity=0.0,
                log=lambda m: print(m, file=sys.stderr, flush=True),
                overrides=_overrides(a),
            )
            records += fig["records"]
            sizes += fig["sizes"]
            per_set.append(fig["records"])
    if a.records:
        Path(a.records).write_text(json.dumps({"overrides": _overrides(a) or {}, "sets": per_set}) + "\n")
    if a.measure_size:
        sigma, dice = size_sigma(sizes)
        print(
            f"size_sigma on {len(CHOICE_SETS)} calibration sets (choice data), {dice} flat six-sided dice: {sigma:.4f} -> {round(sigma, 3)}"
        )
        return 0
    by, chosen, both = choose_identity_by(records)
    if a.size_sigma is not None:
        print(f"with the size term, size_sigma {a.size_sigma}")
    if a.assign_scale is not None:
        print(f"the assignment's density at scale {a.assign_scale}")
    print(
        f"identity gate on {len(CHOICE_SETS)} calibration sets (choice data: NOT strict), {a.sightings} sightings a face"
    )
    for name, (gate, sweep) in both.items():
        print(
            f"identity by {name}: min_identity  right  conf. wrong  unread  cocked read  (units: right = own die's text)"
        )
        for f in sweep:
            mark = "  <- its gate" if f["min_identity"] == gate else ""
            print(
                f"{f['min_identity']:>12}  {100 * f['right_rate']:5.1f}  {100 * f['wrong_rate']:10.2f}  "
                f"{100 * f['unread_rate']:6.1f}  {f['cocked_read']:>11}{mark}"
            )
    print(f"chosen: identity_by {by!r}, min_identity {chosen}")
    if a.json:
        Path(a.json).write_text(
            json.dumps(
                {"identity_by": by, "min_identity": chosen, "sweeps": {k: v[1] for k, v in both.items()}},
                indent=1,
            )
            + "\n"
        )
    return 0


def _choose_split(files: list[str]) -> int:
    """Stop 40's second pass (models/face-embed/CHANGELOG.md): each file holds one candidate scale's
    records per calibration set (``--choose-identity --records``); each identity_by gets its gate by
    ``choose_identity_split``; the candidate reading most units right at its gate is printed (a tie: the
    smaller scale, then die, text, both)."""
    rows = []
    for f in files:
        rec = json.loads(Path(f).read_text())
        scale = rec["overrides"].get("assign_scale")
        for order, by in enumerate(IDENTITY_KEYS):
            gate, sweep = choose_identity_split(rec["sets"], by)
            at = next(x for x in sweep if x["min_identity"] == gate)
            rows.append((at["right"], -(scale or 8.0), -order, scale, by, gate, at))
    print("calibration frames (choice data: NOT strict), each set's wrong rate at most 0.25 % at the gate")
    print("assign_scale  identity_by  gate   right  conf. wrong  unread")
    for *_, scale, by, gate, at in sorted(rows, key=lambda r: (-r[1], -r[2])):
        print(
            f"{scale or 'reading':>12}  {by:>11}  {gate:<5}  {100 * at['right_rate']:5.1f}  "
            f"{100 * at['wrong_rate']:10.2f}  {100 * at['unread_rate']:6.1f}"
        )
    best = max(rows, key=lambda r: r[:3])
    print(f"chosen: assign_scale {best[3] or 'reading'}, identity_by {best[4]!r}, min_identity {best[5]}")
    return 0


def _overrides(a) -> dict | None:
    out = {} if a.size_sigma is None else {"size_sigma": a.size_sigma}
    if a.offer_by is not None:
        out["offer_by"] = a.offer_by
    if a.assign_scale is not None:  # "reading": the reading's scale (as before stop 40)
        out["assign_scale"] = None if a.assign_scale == "reading" else float(a.assign_scale)
    if getattr(a, "tap_density", False):
        out["tap_density"] = True
    if a.identity_by is not None:
        out["identity_by"] = a.identity_by
    if getattr(a, "read_together", False):
        out["read_together"] = True
    return out or None


def _finish(a, fig: dict, t0: float) -> int:
    """The run's time, and its figures written to ``--json`` when asked."""
    print(f"({time.time() - t0:.0f} s)")
    if a.json:
        Path(a.json).write_text(
            json.dumps({"families": a.families, "sightings": a.sightings, "width": a.width, **fig}) + "\n"
        )
    return 0


def _taps(a, data: Path) -> int:
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        fig = tap_figures(
            enrolled_bundle(Path(tmp) / "b"),
            data,
            a.sightings,
            frames=a.frames,
            log=lambda m: print(m, file=sys.stderr, flush=True),
            teach=a.teach,
            overrides=_overrides(a),
        )
    strict = (
        "strict: no choice made on these families"
        if a.families == "fresh-test"
        else "choice data: NOT strict"
    )
    rolls, flat = max(fig["frames"], 1), max(fig["flat"], 1)
    print(
        f"taps{' that teach' if a.teach else ''}, {fig['frames']} frames of the {a.families} families ({strict}), {a.sightings} sightings a face"
    )
    print(
        f"taps a roll: {fig['taps_without'] / rolls:.2f} without telling the assignment, {fig['taps_with'] / rolls:.2f} "
        f"with (ratio {fig['taps_with'] / max(fig['taps_without'], 1):.3f}); {fig['flat']} flat units"
    )
    print(
        f"units the taps read: {fig['read_by_taps']} ({100 * fig['read_by_taps'] / flat:.1f} % of the flat units), "
        f"wrong {fig['read_by_taps_wrong']} ({100 * fig['read_by_taps_wrong'] / flat:.2f} % of the flat units)"
    )
    print(
        f"units read wrong: {fig['wrong_without']} before any tap, {fig['wrong_with']} once every unit is read or tapped"
    )
    return _finish(a, fig, t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", choices=("calibration", "fresh-test"), default="fresh-test")
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--sightings", type=int, default=3)
    ap.add_argument(
        "--width",
        type=int,
        default=BASE_WIDTH,
        help="frames this many px wide (4:3), the faces taught at that scale (a phone's photo: 4032)",
    )
    ap.add_argument("--data-root", default="artifacts/dragon/frames")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--choose-identity", action="store_true", help="apply the identity gate's pick rule")
    ap.add_argument(
        "--min-identity", type=float, help="read under this identity gate (default: the bundle's)"
    )
    ap.add_argument("--measure-size", action="store_true", help="print size_sigma by its rule")
    ap.add_argument("--size-sigma", type=float, help="read with the size term at this spread (log sizes)")
    ap.add_argument(
        "--offer-by",
        choices=("nearest", "assignment"),
        help="what is marked for an unsure unit's tap (default: the bundle's setting)",
    )
    ap.add_argument(
        "--assign-scale",
        help="the assignment's density scale, or 'reading' for the reading's (default: the bundle's)",
    )
    ap.add_argument(
        "--identity-by", choices=("die", "text", "both"), help="which identity gates (default: the bundle's)"
    )
    ap.add_argument(
        "--read-together",
        action="store_true",
        help="read look-alike dice together where the results agree (profile setting read_together, stop 41)",
    )
    ap.add_argument("--records", help="with --choose-identity: write each calibration set's records here")
    ap.add_argument(
        "--choose-split",
        nargs="+",
        metavar="RECORDS",
        help="apply stop 40's second-pass rule to these records",
    )
    ap.add_argument(
        "--taps",
        action="store_true",
        help="count the taps a roll needs with and without the assignment told each tap (shipped settings)",
    )
    ap.add_argument(
        "--tap-density",
        action="store_true",
        help="with --taps: a tap weighs each detection by the tapped face's density (profile setting tap_density)",
    )
    ap.add_argument(
        "--teach", action="store_true", help="with --taps: each tap also teaches the roll's own crop"
    )
    a = ap.parse_args(argv)
    if a.choose_split:
        return _choose_split(a.choose_split)
    if a.frames < 1 or a.sightings < 1:
        ap.error("--frames and --sightings must be 1 or more")
    if a.min_identity is not None and not 0 <= a.min_identity <= 1:
        ap.error("--min-identity must be between 0 and 1")
    if a.assign_scale not in (None, "reading"):
        try:
            if not float(a.assign_scale) > 0:
                raise ValueError
        except ValueError:
            ap.error(f"--assign-scale must be a positive number or 'reading', not {a.assign_scale!r}")
    if a.size_sigma is not None and not a.size_sigma > 0:
        ap.error("--size-sigma must be above 0")
    if not 320 <= a.width <= 8192:
        ap.error(f"--width {a.width} is outside 320-8192 px")
    if a.width != BASE_WIDTH and (a.choose_identity or a.measure_size or a.taps):
        ap.error(f"--width reads frames only; the choices and tap counts are made on {BASE_WIDTH} px frames")
    if a.choose_identity or a.measure_size:
        return _choose(a)
    data = _data(a.data_root, a.families, a.frames, a.seed, a.width)
    if a.taps:
        return _taps(a, data)
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        bundle = enrolled_bundle(Path(tmp) / "b")
        fig = frame_figures(
            bundle,
            data,
            a.sightings,
            min_identity=a.min_identity,
            log=lambda m: print(m, file=sys.stderr, flush=True),
            overrides=_overrides(a),
            resolution=a.width / BASE_WIDTH,
        )
    strict = (
        "strict: no choice made on these families"
        if a.families == "fresh-test"
        else "choice data: NOT strict"
    )
    print(
        f"dragon-dice + face-embed, {fig['frames']} frames {a.width} px wide of the {a.families} families ({strict}), "
        f"{a.sightings} sightings a face"
    )
    print(
        f"flat dice {fig['flat']}: right {100 * fig['right_rate']:.1f} %, confidently wrong {100 * fig['wrong_rate']:.2f} %, "
        f"unread {100 * fig['unread_rate']:.1f} %, not seen {100 * fig['not_seen_rate']:.1f} %"
    )
    print(
        f"  the wrong readings: the unit given another die's detection, reading the face that die shows "
        f"{fig['wrong_other_die_same_text']}, or another face {fig['wrong_other_die']}; its own die read as "
        f"another face {fig['wrong_own_die']}; a detection of no die {fig['wrong_no_die']}"
    )
    if fig["together_right"] or fig["together_wrong"]:
        print(
            f"  read together with look-alike dice (which die is which open, the results agreeing): "
            f"{fig['together_right']} right, {fig['together_wrong']} wrong; units whose results are read right "
            f"{100 * fig['results_right_rate']:.1f} %, read wrong {100 * fig['results_wrong_rate']:.2f} %"
        )
    unread = max(fig["unread"], 1)
    print(
        f"  unread units: the first face marked for the tap is one their die type shows {100 * fig['offered_first'] / unread:.1f} %, "
        f"one of the first two {100 * fig['offered_two'] / unread:.1f} %"
    )
    print(
        f"cocked dice {fig['cocked']}: called cocked {fig['cocked_called']}, read as a face {fig['cocked_read']}"
    )
    return _finish(a, fig, t0)


if __name__ == "__main__":
    raise SystemExit(main())
