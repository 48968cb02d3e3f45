"""``companion vision``: render training data, train, read, evaluate, capture and export.

Heavy imports (numpy, OpenCV, onnxruntime, torch) happen inside the handlers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ._argtypes import positive, share_below_1, turn, whole

MIN_SYNTH_SIZE = (
    32  # the smallest table image ``vision synth`` renders (below ~11 px its tiled surfaces fail)
)


def _err(msg: str) -> int:
    print(f"companion vision: error: {msg}", file=sys.stderr)
    return 2


def _synth(args) -> int:
    from companion.rules.catalogue import load_catalogue
    from companion.vision.synth import write_dataset

    if args.count < 1:
        return _err("--count must be at least 1")
    yml = write_dataset(
        Path(args.out),
        args.count,
        args.seed,
        load_catalogue(),
        profile=args.profile,
        size=args.size,
        glyph_dir=args.glyphs,
        val_fraction=args.val_fraction,
    )
    print(f"wrote {args.count} images to {Path(args.out)} ({yml})")
    return 0


def _train(args) -> int:
    from companion.vision.bundle import train_bundle
    from companion.vision.reader import ModelError, resolve_model
    from companion.vision.yolo_dataset import DatasetError

    finetune = None
    if args.finetune:
        try:
            finetune = resolve_model(args.finetune)
        except ModelError as exc:
            return _err(str(exc))
    try:
        out = train_bundle(
            Path(args.data),
            Path(args.out),
            epochs=args.epochs,
            imgsz=args.imgsz,
            hours=args.hours,
            face_epochs=args.face_epochs,
            batch=args.batch,
            resume=Path(args.resume) if args.resume else None,
            finetune=finetune,
            work=Path(args.work),
        )
    except DatasetError as exc:
        return _err(str(exc))
    print(f"model bundle written to {out}")
    return 0


def _turn_advice(image, det, turn: int) -> str | None:
    """What the turn-up network says of a Dragon Dice image's turn (None: right, or too few dice)."""
    from companion.vision.camera_turn import dragon_dice_check, weigh_dragon_dice

    check = dragon_dice_check()
    weigh_dragon_dice(check, image, det.xyxy)
    return check.advice(turn)


def _read(args) -> int:
    from companion.vision.numerals import numeral_bundle
    from companion.vision.reader import ImageError, ModelError, load_model, read_image

    if numeral_bundle(args.model) is not None:  # standard dice (Battle Dice): d4..d20 numbers
        from companion.cli.vision_numerals import read_numerals

        if args.roster:
            return _err(
                f"--roster applies to Dragon Dice models only; {args.model!r} reads standard dice "
                "(`companion watch --standard-model` assigns a roster of die sizes)"
            )

        return read_numerals(args)
    from companion.vision.camera_turn import turn_image

    try:
        image = turn_image(read_image(args.image), args.turn)
        model = load_model(args.model)
        det = model.detect(image)
        readings = model.readings(image, det, px_per_mm=args.px_per_mm)
    except (ImageError, ModelError) as exc:
        return _err(str(exc))
    advice = _turn_advice(image, det, args.turn)
    if advice:  # the image is the wrong way round: no face read in it is trusted
        from companion.vision.camera_turn import withhold

        print(f"warning: {advice}; no face is kept", file=sys.stderr)
        withhold(readings)
    records = [r.to_dict() for r in readings]
    if args.roster:
        from companion.vision.assign import AssignmentError, assign_from_files

        try:
            result = assign_from_files(Path(args.roster), model, image, readings)
        except AssignmentError as exc:
            return _err(str(exc))
        if advice:
            from companion.vision.camera_turn import withhold_units

            withhold_units(result)
        payload = {"dice": records, "units": result}
        print(json.dumps(payload, indent=1) if args.json else payload)
        return 0
    if args.json:
        print(json.dumps(records, indent=1))
    else:
        for r in records:
            flag = " COCKED" if r["cocked"] else (" UNREADABLE" if r["unreadable"] else "")
            print(
                f"{r['kind']:4s} {r['reading'] or '-':24s} conf {r['confidence']:.2f} "
                f"colour {'/'.join(r['colour'])} box {r['box']}{flag}"
            )
    return 0


def _eval(args) -> int:
    from companion.vision.evaluation import evaluate
    from companion.vision.numerals import numeral_bundle
    from companion.vision.reader import ImageError, ModelError, load_model
    from companion.vision.yolo_dataset import DatasetError

    if numeral_bundle(args.model) is not None:  # standard dice (Battle Dice): d4..d20 numbers
        from companion.cli.vision_numerals import eval_numerals

        return eval_numerals(args)
    try:
        model = load_model(args.model)
        out = evaluate(
            model,
            Path(args.data),
            split=args.split,
            confusion_path=Path(args.confusion) if args.confusion else None,
            limit=args.limit,
            progress=not args.json,
        )
    except (ModelError, DatasetError, ImageError) as exc:
        return _err(str(exc))
    if args.json:
        print(json.dumps(out))
    else:
        print(f"model {out['model']} on {out['images']} images, {out['instances']} dice")
        print(f"mAP50 {out['map50']:.4f}  mAP50-95 {out['map50_95']:.4f}  recall {out['recall']:.4f}")
        print(f"face accuracy {out['face_accuracy']:.4f} (of detected: {out['face_accuracy_detected']:.4f})")
        print(
            "dice found by size (longest side): "
            + ", ".join(
                f"{size} px {b['found']}/{b['dice']}"
                for size, b in out["recall_by_size"].items()
                if b["dice"]
            )
        )
        print(f"{out['ms_per_image']} ms per image")
        if args.confusion:
            print(f"confusion matrix: {args.confusion}")
    return 0


def _capture(args) -> int:
    from companion.vision.learning import capture_frames
    from companion.vision.sources import SourceError

    try:
        n = capture_frames(
            args.source, Path(args.out), every_ms=args.every_ms, limit=args.max, turn=args.turn
        )
    except SourceError as exc:
        return _err(str(exc))
    print(f"saved {n} frames to {args.out}")
    return 0


def _export(args) -> int:
    from companion.vision.learning import CorrectionError, export_corrections

    try:
        yml, n = export_corrections(Path(args.corrections), Path(args.out))
    except CorrectionError as exc:
        return _err(str(exc))
    print(f"exported {n} corrected images as a YOLO dataset: {yml}")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("vision", help="camera pipeline: synth, train, read, eval, capture, export")
    sub = p.add_subparsers(dest="vision_command", metavar="ACTION")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])

    s = sub.add_parser("synth", help="render a synthetic YOLO dataset of Dragon Dice tables")
    s.add_argument("--out", required=True, help="dataset folder to write (images, labels, data.yaml)")
    s.add_argument("--count", type=int, required=True, help="how many table images to render")
    s.add_argument(
        "--seed", type=int, default=0, help="seed of the renderer (the same seed renders the same set)"
    )
    s.add_argument(
        "--profile",
        choices=("train", "heldout"),
        default="train",
        help="heldout: table surfaces, light and tilts never used for training",
    )
    s.add_argument(
        "--size", type=whole(MIN_SYNTH_SIZE), default=640, help="image size in pixels (default 640)"
    )
    s.add_argument("--glyphs", help="folder of your own face scans (<Species>/<icon>.png or <icon>.png)")
    s.add_argument(
        "--val-fraction",
        type=share_below_1,
        default=0.0,
        help="share of the images put in a validation split (default 0: none)",
    )
    s.set_defaults(func=_synth)

    t = sub.add_parser("train", help="train a model bundle (detector + face reader) on a YOLO dataset")
    t.add_argument(
        "--data", required=True, help="dataset folder with data.yaml (d4..d12 + manifest, or dice_1..6)"
    )
    t.add_argument("--out", required=True, help="bundle folder to write (e.g. models/my-table)")
    t.add_argument("--epochs", type=int, default=20, help="detector training epochs (default 20)")
    t.add_argument("--face-epochs", type=int, default=10, help="face reader training epochs (default 10)")
    t.add_argument("--imgsz", type=int, default=320, help="detector input size in pixels (default 320)")
    t.add_argument("--hours", type=float, help="train the detector for this long instead of --epochs")
    t.add_argument("--batch", type=int, default=16, help="images per training batch (default 16)")
    t.add_argument(
        "--resume", metavar="LAST_PT", help="continue an interrupted detector run from its last.pt"
    )
    t.add_argument(
        "--finetune", metavar="MODEL", help="start from a bundle (name or folder), e.g. dragon-dice"
    )
    t.add_argument("--work", default="runs/train", help="folder for training runs")
    t.set_defaults(func=_train)

    r = sub.add_parser("read", help="read every die in one image")
    r.add_argument("image", help="photo of the dice (JPEG or PNG)")
    r.add_argument(
        "--model", default="dragon-dice", help="dragon-dice, d6, polyhedral (d4..d20 numbers) or a folder"
    )
    r.add_argument("--json", action="store_true", help="print the reading as JSON (for programs)")
    r.add_argument("--px-per-mm", type=positive, help="table scale, for the size class of six-sided dice")
    r.add_argument("--roster", help="JSON list of the rolling army's units (catalogue names) to assign")
    r.add_argument(
        "--turn",
        type=turn,
        default=0,
        help="degrees clockwise (0, 90, 180, 270) to turn the image first, so that the table's far side is "
        "at the top (standard dice are read that way up; a warning says when they read better turned)",
    )
    r.set_defaults(func=_read)

    e = sub.add_parser("eval", help="mAP50, mAP50-95, face accuracy and confusion matrix on a YOLO dataset")
    e.add_argument("--model", default="dragon-dice", help="bundle folder or shipped name (dragon-dice, d6)")
    e.add_argument("--data", required=True, help="dataset folder with data.yaml")
    e.add_argument(
        "--split",
        choices=("train", "val", "test"),
        help="which split to score (default: val, else test, else train)",
    )
    e.add_argument("--json", action="store_true", help="print the figures as JSON (for programs)")
    e.add_argument("--confusion", help="PNG path for the confusion matrix")
    e.add_argument("--limit", type=whole(1), help="score at most this many images")
    e.set_defaults(func=_eval)

    c = sub.add_parser("capture", help="save frames from a camera, video or folder for labelling")
    c.add_argument(
        "--source",
        default="camera:0",
        help="camera:N (asked for 1920x1080 frames; camera:N@WxH asks for another size), a video file, or a folder of frames",
    )
    c.add_argument("--out", required=True, help="folder to save the frames in")
    c.add_argument(
        "--turn",
        type=turn,
        default=0,
        help="degrees clockwise (0, 90, 180, 270) to turn each frame before it is saved, so that the table's "
        "far side is at the top (as the readers see it)",
    )
    c.add_argument(
        "--every-ms", type=int, default=1000, help="milliseconds between saved frames (default 1000)"
    )
    c.add_argument("--max", type=int, default=100, help="stop after saving this many frames (default 100)")
    c.set_defaults(func=_capture)

    x = sub.add_parser("export", help="write corrected readings (from the tablet) as a YOLO dataset")
    x.add_argument("--corrections", required=True, help="folder of <name>.jpg + <name>.json corrections")
    x.add_argument("--out", required=True, help="YOLO dataset folder to write")
    x.set_defaults(func=_export)

    from companion.cli.vision_enroll import register as register_enroll  # issue 20: learn a table's own dice

    register_enroll(sub)
