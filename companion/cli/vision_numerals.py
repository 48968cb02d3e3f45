"""``companion vision read|eval --model polyhedral``: standard dice (d4..d20) read by their numbers."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _err(msg: str) -> int:
    print(f"companion vision: error: {msg}", file=sys.stderr)
    return 2


def read_numerals(args) -> int:
    from companion.vision.camera_turn import TurnCheck, turn_image, withhold
    from companion.vision.numerals import load_numeral_model
    from companion.vision.reader import ImageError, ModelError, read_image

    try:
        image = turn_image(read_image(args.image), getattr(args, "turn", 0))
        model = load_numeral_model(args.model)
        readings = model.readings(image)
    except (ImageError, ModelError) as exc:
        return _err(str(exc))
    check = TurnCheck()  # enough dice in the image say whether it is the right way up
    model.weigh_turn(check, image, [r.box for r in readings])
    advice = check.advice(getattr(args, "turn", 0))
    if advice:  # the image is the wrong way round: no value is trusted
        print(f"warning: {advice}; every die is left unreadable", file=sys.stderr)
        withhold(readings)
    records = [r.to_dict() for r in readings]
    if args.json:
        print(json.dumps(records, indent=1))
    else:
        for r in records:
            flag = " UNREADABLE" if r["unreadable"] else ""
            print(f"{r['kind']:4s} {r['reading'] or '-':4s} conf {r['confidence']:.2f} box {r['box']}{flag}")
    return 0


def eval_numerals(args) -> int:
    from companion.vision.numerals import evaluate_frames, load_numeral_model
    from companion.vision.reader import ImageError, ModelError

    try:
        out = evaluate_frames(load_numeral_model(args.model), Path(args.data))
    except (ImageError, ModelError) as exc:
        return _err(str(exc))
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"model {out['model']} on {out['images']} images, {out['dice']} flat dice: found {out['recall']:.4f}, "
            f"read right {out['accuracy']:.4f} (of found: {out['accuracy_found']:.4f}), read wrong "
            f"{out['wrong']:.4f}; {out['false_boxes_per_image']:.2f} false boxes an image"
        )
        if out["cocked"]:
            print(f"  cocked dice: {out['cocked']}, read as a value: {out['cocked_read']}")
        for kind, s in out["per_kind"].items():
            print(
                f"  {kind:4s} {s['dice']:4d} dice  found {s['recall']:.3f}  read right {s['accuracy']:.3f}"
                f"  read wrong {s['wrong']:.3f}"
            )
    return 0
