"""``companion watch --source camera:0|FILE.mp4|DIR``: print one JSON line per settled roll."""

from __future__ import annotations

import json
import sys


def _watch(args) -> int:
    from companion.vision.assign import AssignmentError, load_roster
    from companion.vision.reader import ModelError, load_model
    from companion.vision.sources import SourceError, open_source
    from companion.vision.watch import watch

    try:
        model = load_model(args.model)
        roster = load_roster(args.roster) if args.roster else None
        frames = open_source(args.source, fps=args.fps)
        watch(
            frames,
            model,
            still_ms=args.still_ms,
            roster=roster,
            max_events=args.max_events,
            on_event=lambda e: print(json.dumps(e), flush=True),
        )
    except (ModelError, SourceError, AssignmentError) as exc:
        print(f"companion watch: error: {exc}", file=sys.stderr)
        return 2
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("watch", help="camera loop: emit a roll event whenever the dice settle")
    p.add_argument("--source", default="camera:0", help="camera:N, a video file, or a folder of frames")
    p.add_argument("--model", default="dragon-dice", help="bundle folder or shipped name (dragon-dice, d6)")
    p.add_argument("--still-ms", type=float, default=150.0, help="how long the table must be still")
    p.add_argument("--fps", type=float, default=30.0, help="frame rate assumed for a folder of frames")
    p.add_argument("--roster", help="JSON list of the rolling army's dice (catalogue names)")
    p.add_argument(
        "--max-events", type=int, help="stop after this many roll events (default: run until Ctrl-C)"
    )
    p.set_defaults(func=_watch)
