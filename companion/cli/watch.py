"""``companion watch --source camera:0|FILE.mp4|DIR``: print one JSON line per settled roll.

Dragon Dice are read with ``--model``; with ``--standard-model``, standard dice (d4..d20, Battle Dice)
are read with that numeral bundle instead, and a ``--roster`` lists die sizes (``["d20", "d6"]``),
assigned as the tablet assigns a Battle Dice roll (``companion.vision.numerals.assign_standard``).
"""

from __future__ import annotations

import json
import sys

from ._argtypes import non_negative, positive, turn, whole


class _StandardDice:
    """A numeral bundle behind the model interface ``companion.vision.watch.watch`` reads with."""

    def __init__(self, numeral):
        from companion.vision.camera_turn import TurnCheck

        self.numeral = numeral
        self.last: list = []  # the StandardReadings of the frame read last (for the roster's slots)
        self.turn_check = TurnCheck()  # is the frame the right way up? (``companion.vision.camera_turn``)

    def detect(self, frame):
        return self.numeral.find_dice(frame)

    def readings(self, frame, det) -> list:
        self.last = self.numeral.read_boxes(frame, det.xyxy, det.confidence, det.refined) if len(det) else []
        if len(det) and self.numeral.weigh_turn(self.turn_check, frame, det.xyxy):
            from companion.vision.camera_turn import withhold

            withhold(self.last)  # frames the wrong way round: no value is trusted
        return [_StandardDie(r) for r in self.last]


class _StandardDie:
    """One standard die read, as a watch event lists it (standard dice are never called cocked)."""

    cocked = False

    def __init__(self, reading):
        self.reading = reading
        self.unreadable = reading.unreadable

    def to_dict(self) -> dict:
        return dict(self.reading.to_dict(), cocked=False)


class _DragonDiceTurn:
    """A Dragon Dice model whose frames' turn is checked by the ``turn-up`` network
    (``companion.vision.camera_turn``): while the check names a turn, no face read is kept."""

    def __init__(self, model):
        from companion.vision.camera_turn import dragon_dice_check

        self.model = model
        self.heads = model.heads
        self.profile = getattr(model, "profile", None)
        self.turn_check = dragon_dice_check()

    def detect(self, frame):
        return self.model.detect(frame)

    def readings(self, frame, det) -> list:
        from companion.vision.camera_turn import weigh_dragon_dice, withhold

        out = self.model.readings(frame, det)
        if len(det) and weigh_dragon_dice(self.turn_check, frame, det.xyxy):
            withhold(out)
        return out


def _standard_slots(path) -> list[str]:
    """A roster file of standard dice: a JSON list of die sizes (d4, d6, d8, d10, d12, d20)."""
    from companion.vision.assign import AssignmentError
    from companion.vision.numerals import SIDES

    try:
        names = json.loads(open(path, encoding="utf-8").read())
    except (OSError, json.JSONDecodeError) as exc:
        raise AssignmentError(f"roster {path}: {exc}") from exc
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise AssignmentError(f"roster {path}: a roster is a list of die names")
    bad = [n for n in names if n not in SIDES]
    if bad:
        raise AssignmentError(
            f"roster {path} names {', '.join(map(repr, bad))}: with --standard-model a roster lists "
            f"standard dice ({', '.join(SIDES)})"
        )
    return names


def _watch(args) -> int:
    from companion.vision.assign import AssignmentError, load_roster
    from companion.vision.reader import ModelError, load_model
    from companion.vision.sources import SourceError, open_source
    from companion.vision.watch import watch

    from ._standard_model import check_standard_model

    slots = None
    try:
        if args.standard_model is not None:  # checked first: a bad name starts nothing
            try:
                model = _StandardDice(check_standard_model(args.standard_model))
            except ModelError as exc:
                raise ModelError(f"--standard-model: {exc}") from None
            slots = _standard_slots(args.roster) if args.roster else None
            roster = None
        else:
            model = _DragonDiceTurn(load_model(args.model))
            roster = load_roster(args.roster) if args.roster else None
        from companion.vision.camera_turn import turn_image

        frames = ((t, turn_image(f, args.turn)) for t, f in open_source(args.source, fps=args.fps))

        def emit(event: dict) -> None:
            if slots is not None:
                from companion.vision.numerals import assign_standard

                assigned = assign_standard(model.last, slots)
                event["units"], event["unassigned"] = assigned["units"], assigned["unassigned"]
            check = getattr(model, "turn_check", None)  # standard dice: is the frame the right way up?
            advice = check.advice(args.turn) if check is not None else None
            if advice:  # the frames are the wrong way round: every die was left unreadable
                from companion.vision.camera_turn import withhold_units

                withhold_units(event.get("units", []))
                event["camera_turn"] = dict(check.to_dict(), problem=advice)
                print(f"companion watch: warning: {advice}", file=sys.stderr, flush=True)
            print(json.dumps(event), flush=True)

        watch(
            frames,
            model,
            still_ms=args.still_ms,
            roster=roster,
            max_events=args.max_events,
            on_event=emit,
        )
    except (ModelError, SourceError, AssignmentError) as exc:
        print(f"companion watch: error: {exc}", file=sys.stderr)
        return 2
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("watch", help="camera loop: emit a roll event whenever the dice settle")
    p.add_argument(
        "--source",
        default="camera:0",
        help="camera:N (asked for 1920x1080 frames; camera:N@WxH asks for another size), a video file, or a folder of frames",
    )
    p.add_argument("--model", default="dragon-dice", help="bundle folder or shipped name (dragon-dice, d6)")
    p.add_argument(
        "--standard-model",
        metavar="NAME|BUNDLE",
        help="read standard dice (d4..d20, Battle Dice) instead, with this numeral model: a shipped "
        "name (polyhedral, polyhedral-oblique) or a bundle made by `companion vision enroll "
        '--model polyhedral-oblique`; --roster then lists die sizes (["d20", "d6"])',
    )
    p.add_argument(
        "--turn",
        type=turn,
        default=0,
        help="degrees clockwise (0, 90, 180, 270) to turn each frame so that the table's far side is at the "
        "top (standard dice are read that way up; with --standard-model an event says when they read "
        "better turned)",
    )
    p.add_argument("--still-ms", type=non_negative, default=150.0, help="how long the table must be still")
    p.add_argument("--fps", type=positive, default=30.0, help="frame rate assumed for a folder of frames")
    p.add_argument(
        "--roster",
        help="JSON list of the rolling army's dice (catalogue names; with --standard-model, die sizes)",
    )
    p.add_argument(
        "--max-events", type=whole(1), help="stop after this many roll events (default: run until Ctrl-C)"
    )
    p.set_defaults(func=_watch)
