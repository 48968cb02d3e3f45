"""The reader's gates before enrolment, chosen on frames of several widths pooled, against the bundle's own.

Candidate G of ``models/polyhedral-oblique/CHANGELOG.md`` (stop 47): a bundle read unenrolled leaves a die
unread when the reader's confidence is under the gate of the kind it read (``min_face_confidence_by_kind``).
Every set is read once, without a gate (``standard_frames.raw_reads``); the gates are then replayed.

    # choose (CALIBRATION frames only): the sets pooled, the rule of stop 38 applied, written to GATES.json
    python bench/pooled_gates.py --set calibration:150:35:1280 --set calibration:150:67:1920 \\
        --set calibration:100:33:4032 --choose GATES.json
    # score: every set read, per width, with the bundle's gates and with those of GATES.json
    python bench/pooled_gates.py --set test:150:71:1280 --set test:150:75:4032 --gates GATES.json

A set is ``SPLIT:FRAMES:SEED:WIDTH``, as in ``bench/refined_floors.py``: the frames of
``bench/standard_frames.py``, written once under ``--data-root`` (all of them before any network is
loaded: a render worker forked beside a live ONNX session hangs).  The rule (``standard_frames.choose_gates``):
per kind read, the lowest gate of ``standard_sim.MIN_CONFS`` with at most ``--max-wrong`` (1 %) of the
found flat dice read as that kind read wrong, over all sets together, raised to the bundle's own gate where
that is higher.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.numerals import load_numeral_model  # noqa: E402
from companion.vision.reader_gate import BY_KIND_KEY, ReaderGate  # noqa: E402
from companion.vision.standard_frames import choose_gates, figures, pooled, raw_reads  # noqa: E402

#: The share of a kind's found flat dice the chosen gate may leave read wrong (stop 38's rule).
MAX_WRONG = 0.01


def read_gates(path: str, model) -> ReaderGate:
    """The gates of a ``--choose`` file (``{"min_face_confidence_by_kind": {...}}``), checked as a bundle's
    ``model.json`` is: a kind the reader does not read, or a bad number, is refused, naming it."""
    spec = json.loads(Path(path).read_text())
    if not isinstance(spec, dict) or not isinstance(spec.get(BY_KIND_KEY), dict):
        raise ValueError(f"expected an object with {BY_KIND_KEY!r}")
    return ReaderGate.parse({**model.meta, BY_KIND_KEY: spec[BY_KIND_KEY]}, model.kinds)


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from refined_floors import parse_set  # noqa: PLC0415
    from standard_frames import frames_dir, report  # noqa: PLC0415

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", dest="sets", action="append", type=parse_set, required=True, metavar="SET")
    ap.add_argument("--model", default="polyhedral-oblique")
    ap.add_argument("--data-root", default="artifacts/standard/frames")
    what = ap.add_mutually_exclusive_group()
    what.add_argument(
        "--choose", metavar="FILE", help="choose the gates on the sets pooled (calibration only)"
    )
    what.add_argument("--gates", metavar="FILE", help="read every set with these gates too")
    ap.add_argument("--max-wrong", type=float, default=MAX_WRONG)
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args(argv)
    if a.choose and any(s[0] != "calibration" for s in a.sets):
        ap.error("--choose chooses on calibration frames only")
    if not 0 <= a.max_wrong < 1:
        ap.error(f"--max-wrong must be from 0 to under 1, not {a.max_wrong}")
    folders = [(s, frames_dir(Path(a.data_root), *s)) for s in a.sets]  # rendered before any session opens
    model = load_numeral_model(a.model)
    given = None
    if a.gates:
        try:
            given = read_gates(a.gates, model)
        except (OSError, ValueError) as exc:
            ap.error(f"--gates {a.gates}: {exc}")
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    by_width: dict[int, list] = {}
    for (*_, width), data in folders:
        log(f"{data.name}: read without a gate")
        by_width.setdefault(width, []).append(raw_reads(model, data, log=log))
    out: dict = {
        "model": a.model,
        "sets": [":".join(map(str, s)) for s in a.sets],
        "own": model.gate.to_meta(),
    }
    if a.choose:
        every = pooled([r for rs in by_width.values() for r in rs])
        chosen = choose_gates(every, model.gate, a.max_wrong)
        given = ReaderGate(model.gate.default, chosen, model.gate.keys)
        Path(a.choose).write_text(json.dumps({BY_KIND_KEY: chosen}, indent=1) + "\n")
        out["chosen"] = chosen
        print(
            f"chosen on all {every['frames']} frames by the rule (at most {a.max_wrong:.1%} wrong a kind): {chosen}"
        )
    for width, reads in sorted(by_width.items()):
        raw = pooled(reads)
        row = {"frames": raw["frames"], "own": figures(raw, model.gate)}
        report(row["own"], f"{width} px, {raw['frames']} frames: the bundle's gates {model.gate.by_kind}")
        if given is not None:
            row["given"] = figures(raw, given)
            report(row["given"], f"{width} px, {raw['frames']} frames: the gates {given.by_kind}")
        out[f"w{width}"] = row
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
