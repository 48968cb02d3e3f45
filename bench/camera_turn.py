"""A camera turned away from "far side at the top": what the standard-dice reader does, and the turn check.

    python bench/camera_turn.py [--reader polyhedral-oblique] [--frame-width 1280] [--cal-styles N]
                                [--test-styles N] [--cache artifacts/standard/tables] [--draws 4000] [--json]

On the rendered tables of ``bench/enroll_standard.py`` (the same cache; calibration and test styles),
every die's crop is read as the camera would see it turned 0, 90, 180 and 270 degrees, and it prints:

1. the reader alone (at its shipped ``min_face_confidence``), per die kind: read right and read wrong
   with confidence at each turn: what a turned camera costs without the check;
2. the turn check (``companion.vision.camera_turn.TurnCheck``): over ``--draws`` random sets of n dice
   (every kind alike), the share of sets for which the check (with its ``MIN_LEAD`` rule) names the turn
   the camera needs, for each camera turn and n = 1, 2, 3, 5, 8, 12.  ``MIN_DICE`` is chosen on the
   calibration styles: the fewest dice with which a camera the right way up is told to turn in at most
   0.5 % of sets and a turned one is found in at least 95 % (the check keeps adding dice over later
   rolls, so what it misses at first it finds later; a false alarm would withhold good readings).  The
   test styles' shares are the strict figures.
3. with ``--dd-tables DIR ...`` (``enroll_sim`` table caches of Dragon Dice crops, e.g. the calibration
   and fresh families of ``bench/enroll.py --tables-cache``): the ``turn-up`` network that checks the
   turn of Dragon Dice frames: the share of crops whose turn it names (each crop turned all four ways),
   and the check's share for n dice, per cache.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from enroll_standard import _reader, reader_queries, tables_for  # noqa: E402

from companion.vision import standard_sim as ss  # noqa: E402
from companion.vision.camera_turn import MIN_DICE, TURNS, UP_MIN_LEAD, TurnCheck, turn_crops  # noqa: E402
from companion.vision.numerals import KINDS, decode  # noqa: E402
from companion.vision.reader_gate import ReaderGate  # noqa: E402
from companion.vision.synth.real_dice import BASE_WIDTH  # noqa: E402
from companion.vision.synth.standard_styles import CALIBRATION_STYLES, TEST_STYLES  # noqa: E402

SET_SIZES = (1, 2, 3, 5, 8, 12)
RULE_SHARE = 0.995  # a camera the right way up is told to turn in at most 0.5 % of sets of this many dice
FOUND_SHARE = 0.95  # and a turned one is found in 95 % of them (more dice, over later rolls, find the rest)


def turn_confidences(faces, crops: np.ndarray, heads) -> np.ndarray:
    """(dice, 4): the reader's confidence in each crop turned by each of ``TURNS``."""
    out = np.zeros((len(crops), len(TURNS)))
    for j, t in enumerate(TURNS):
        probs = faces(turn_crops(crops, t))
        out[:, j] = decode(probs["kind"], probs["value"], heads)[2]
    return out


def check_shares(
    conf: np.ndarray, draws: int, seed: int = 0, min_lead: float | None = None
) -> dict[int, dict[int, float]]:
    """For each camera turn t and set size n: the share of random sets of n dice for which ``TurnCheck``
    (its ``MIN_LEAD`` rule, at n dice) names the turn that undoes t.  ``conf[i, j]``: die i's confidence
    with its upright crop turned by ``TURNS[j]``; a camera turned t shows it turned t, and a further turn
    u turns it t + u."""
    rng = np.random.default_rng(seed)
    out: dict[int, dict[int, float]] = {}
    for t in TURNS:
        seen = conf[:, [TURNS.index((t + u) % 360) for u in TURNS]]
        want = (360 - t) % 360
        out[t] = {}
        for n in SET_SIZES:
            if n > len(conf):
                continue
            hits = 0
            for _ in range(draws):
                check = (
                    TurnCheck(min_dice=n) if min_lead is None else TurnCheck(min_dice=n, min_lead=min_lead)
                )
                check.add(seen[rng.choice(len(seen), n, replace=False)])
                hits += int(check.needed() == want)
            out[t][n] = hits / draws
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reader", default="polyhedral-oblique", help="a numeral bundle")
    ap.add_argument("--frame-width", type=int, default=BASE_WIDTH)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--cal-styles", type=int, default=len(CALIBRATION_STYLES))
    ap.add_argument("--test-styles", type=int, default=len(TEST_STYLES))
    ap.add_argument("--cache", default="artifacts/standard/tables")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--draws", type=int, default=4000, help="random sets of dice per set size")
    ap.add_argument(
        "--dd-tables", nargs="*", default=[], help="enroll_sim Dragon Dice table caches (folders)"
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    a = ap.parse_args(argv)
    if not 320 <= a.frame_width <= 8192:
        ap.error(f"--frame-width {a.frame_width} is outside 320-8192 px")
    a.kinds = [k for k in a.kinds.split(",") if k]
    bad = [k for k in a.kinds if k not in KINDS]
    if bad:
        ap.error(f"--kinds: unknown die kind(s) {', '.join(bad)}")
    a.frame_width = [a.frame_width]  # as bench/enroll_standard.py's tables_for reads it
    _, meta, faces = _reader(a.reader)
    heads = tuple(meta["face_heads"]["kind"])
    gate = ReaderGate.parse(meta, heads)  # each die judged by the kind it was read as
    report: dict = {"reader": a.reader, "frame_width": a.frame_width[0], "min_dice_shipped": MIN_DICE}
    for split, styles in (
        ("calibration", CALIBRATION_STYLES[: a.cal_styles]),
        ("test", TEST_STYLES[: a.test_styles]),
    ):
        tables = tables_for(split, styles, a.kinds, a)
        if not tables:
            continue
        crops, kinds, values, knames = reader_queries(tables)
        by_turn = {
            t: ss.reader_figures_by_kind(faces(turn_crops(crops, t)), kinds, values, knames, gate, heads)
            for t in TURNS
        }
        conf = turn_confidences(faces, crops, heads)
        shares = check_shares(conf, a.draws, a.seed)
        chosen = next(
            (
                n
                for n in SET_SIZES
                if shares[0].get(n, 0) >= RULE_SHARE
                and all(shares[t].get(n, 0) >= FOUND_SHARE for t in TURNS[1:])
            ),
            None,
        )
        report[split] = {
            "styles": len(styles),
            "dice": int(len(crops)),
            "reader_by_turn": {str(t): v for t, v in by_turn.items()},
            "check_found": {
                str(t): {str(n): round(s, 4) for n, s in by_n.items()} for t, by_n in shares.items()
            },
            "fewest_dice_at_rule": chosen,
        }
        if a.json:
            continue
        print(
            f"\n{split}: {len(styles)} styles, {len(crops)} dice, {a.frame_width[0]} px frames, reader {a.reader}"
        )
        print("  reader alone, read right / read wrong with confidence, by camera turn (degrees clockwise):")
        print("  kind  " + "".join(f"{t:>17d}" for t in TURNS))
        for k in by_turn[0]:
            cells = "".join(
                f"{100 * by_turn[t][k]['right']:8.1f} /{100 * by_turn[t][k]['confidently_wrong']:5.1f} %"
                for t in TURNS
            )
            print(f"  {k:5s} {cells}")
        print("  the turn check names the turn the camera needs, for a set of n dice, by camera turn:")
        for t, by_n in shares.items():
            print(f"  {t:3d}: " + "  ".join(f"n={n}: {100 * s:.1f} %" for n, s in by_n.items()))
        if split == "calibration":
            print(
                f"  fewest dice with >= {100 * RULE_SHARE:.1f} % upright and >= {100 * FOUND_SHARE:.0f} % turned: {chosen} "
                f"(companion.vision.camera_turn.MIN_DICE ships {MIN_DICE})"
            )
    for folder in a.dd_tables:
        report.setdefault("turn_up", {})[folder] = up_section(Path(folder), a)
    if a.json:
        print(json.dumps(report))
    return 0


def up_section(folder: Path, a) -> dict:
    """The turn-up network on the crops of one Dragon Dice table cache."""
    from companion.vision.camera_turn import up_reader  # noqa: PLC0415

    key = json.loads((folder / "key.json").read_text())["key"]
    crops = np.concatenate([np.load(f)["crops"] for f in sorted(folder.glob("table-*.npz"))])
    up = up_reader()
    named = {}
    conf = None
    for j, t in enumerate(TURNS):
        seen = up.seen_turn(turn_crops(crops, t))
        named[t] = float((seen.argmax(1) == j).mean())
        if t == 0:  # evidence rows for the further turns 0, 90, 180, 270 of crops seen upright
            conf = np.stack([seen[:, TURNS.index((360 - u) % 360)] for u in TURNS], axis=1)
    shares = check_shares(conf, a.draws, a.seed, min_lead=UP_MIN_LEAD)
    out = {
        "split": key["split"],
        "families": key["families"],
        "crops": int(len(crops)),
        "named_by_turn": named,
        "check_found": {str(t): {str(n): v for n, v in by_n.items()} for t, by_n in shares.items()},
    }
    if not a.json:
        print(
            f"\nturn-up on {folder.name} ({key['split']}, families {key['families'][0]}-{key['families'][-1]}, {len(crops)} crops):"
        )
        print(
            "  turn named per crop, by camera turn: "
            + "  ".join(f"{t}: {100 * v:.1f} %" for t, v in named.items())
        )
        print("  the check names the turn the camera needs, for n dice, by camera turn:")
        for t, by_n in shares.items():
            print(f"  {t:3d}: " + "  ".join(f"n={n}: {100 * s:.1f} %" for n, s in by_n.items()))
    return out


if __name__ == "__main__":
    sys.exit(main())
