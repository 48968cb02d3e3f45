"""The recipe that trains the shipped ``dragon-dice`` bundle (``python -m companion.vision.train.dd_training``).

Stages (each resumable on its own; see models/dragon-dice/MODEL_CARD.md for the figures):

* ``detector``: a one-class ("die") YOLO11n at 320 px, continued from a detector checkpoint
  (every layer whose shape fits carries over: a die finder's class head too, a die-kind
  detector's not) for a wall-clock budget (``--hours``), on ``--threads`` CPU threads.  Finding
  dice is all it does: the die kind is read from the crop.
* ``face``: the face reader (kind, icon kind or ``cocked``, count) on crops rendered by
  ``companion.vision.synth.write_crops`` at camera-like pixel density (80 px crops, 0.9 x the
  box side, so the glyph on a small die is still ~15 px wide).
* ``negatives``: hard negatives for the reader's ``none`` kind: what the shipped die finder finds at
  a low confidence on rendered training-profile scenes (cards, banners, hands, surface patterns)
  that is no die.
* ``bundle``: ONNX export of both and ``model.json`` with the catalogue's faces per die kind; the
  die finder may be exported at a larger input than it was trained at (``--imgsz``): it is fully
  convolutional, and small dice are then more pixels wide.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from companion.vision import offline
from companion.vision.bundle import DD_FACE_STEM, one_class_copy, write_bundle
from companion.vision.die_kinds import KIND_CLASSES
from companion.vision.reader import NOT_A_DIE


def train_die_finder(
    data_dir: Path,
    start: Path | None,
    work: Path,
    *,
    hours: float,
    epochs: int = 20,
    threads: int = 1,
    batch: int = 16,
    name: str = "dd-det",
    lr0: float | None = None,
    warmup_epochs: float = 3.0,
) -> Path:
    """One-class detector on a Dragon Dice dataset (d4..d12 labels merged into ``die``).

    A ``start`` checkpoint keeps every layer whose shape fits one class: all of them for a die
    finder (its class head too), all but the class head for a detector of die kinds.  When
    continuing a trained finder, ``warmup_epochs`` 0 keeps ultralytics' warm-up (whose bias rate
    starts at 0.1) from knocking the trained head off its minimum in the first batches."""
    offline.prepare(threads=threads)
    from ultralytics import YOLO  # noqa: PLC0415

    data_yaml = one_class_copy(Path(data_dir), Path(work) / f"{name}-oneclass")
    model = YOLO(str(start) if start is not None else "yolo11n.yaml")
    results = model.train(
        data=str(data_yaml),
        imgsz=320,
        epochs=epochs,
        time=hours,
        batch=batch,
        device="cpu",
        workers=0,
        project=str(Path(work).resolve()),
        name=name,
        exist_ok=True,
        pretrained=start is not None,
        amp=False,
        plots=False,
        cache=True,
        val=True,
        close_mosaic=max(1, epochs // 5),
        patience=1000,
        verbose=False,
        seed=0,
        deterministic=False,
        warmup_epochs=warmup_epochs,
        **({"optimizer": "AdamW", "lr0": lr0} if lr0 else {}),
    )
    save_dir = Path(getattr(results, "save_dir", None) or model.trainer.save_dir)
    best = save_dir / "weights" / "best.pt"
    return best if best.exists() else save_dir / "weights" / "last.pt"


def load_crop_sets(
    paths: list[Path], negatives: np.ndarray | None = None, neg_repeats: int = 3
) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, list[str]], float]:
    """Join ``write_crops`` files (same vocabulary) into classifier inputs, with ``negatives`` (crops
    that are no die: what the die finder finds at low confidence on cards, banners, hands) appended
    ``neg_repeats`` times with kind ``none`` and no icon or count label, so the reader can veto false
    boxes.  The crops are copied once into one array (half a million crops are ~10 GB)."""
    heads: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    icons = margin = shape = None
    for p in paths:
        with np.load(p) as z:
            if icons is None:
                icons, margin, shape = [str(i) for i in z["icons"]], float(z["margin"]), z["crops"].shape[1:]
            elif [str(i) for i in z["icons"]] != icons or float(z["margin"]) != margin:
                raise ValueError(f"{p}: another vocabulary or crop margin than {paths[0]}")
            heads.append((z["kind"], z["icon"], z["count"]))
    n_neg = 0 if negatives is None else len(negatives) * neg_repeats
    if negatives is not None and negatives.shape[1:] != shape:
        raise ValueError(f"negatives are {negatives.shape[1:]} crops, the crop sets {shape}")
    total = sum(len(k) for k, _, _ in heads)
    crops = np.empty((total + n_neg, *shape), np.uint8)
    at = 0
    for p, (kind, _, _) in zip(paths, heads, strict=True):
        with np.load(p) as z:
            crops[at : at + len(kind)] = z["crops"]
        at += len(kind)
    count_all = np.concatenate([c for _, _, c in heads])
    kinds = list(KIND_CLASSES)
    targets = {
        "kind": np.concatenate([k for k, _, _ in heads]),
        "icon": np.concatenate([i for _, i, _ in heads]),
        "count": count_all,
    }
    if n_neg:
        crops[total:] = np.concatenate([negatives] * neg_repeats)
        kinds.append(NOT_A_DIE)
        targets = {
            "kind": np.concatenate([targets["kind"], np.full(n_neg, len(kinds) - 1)]),
            "icon": np.concatenate([targets["icon"], np.full(n_neg, -1)]),
            "count": np.concatenate([count_all, np.full(n_neg, -1)]),
        }
    classes = {"kind": kinds, "icon": icons, "count": [str(i) for i in range(int(count_all.max()) + 1)]}
    return crops, targets, classes, margin


def train_face(
    paths: list[Path],
    out_dir: Path,
    *,
    epochs: int,
    width: int = 24,
    threads: int = 1,
    lr: float = 3e-3,
    negatives: Path | None = None,
    init: Path | None = None,
    widths: tuple[int, int, int, int] | None = None,
) -> Path:
    from companion.vision.face_classifier import train_classifier  # noqa: PLC0415

    neg = np.load(negatives)["crops"] if negatives is not None else None
    crops, targets, classes, margin = load_crop_sets(paths, neg)
    print(f"{len(crops)} crops of {crops.shape[1]} px, margin {margin}", flush=True)
    return train_classifier(
        crops,
        targets,
        classes,
        out_dir,
        epochs=epochs,
        width=width,
        stem=DD_FACE_STEM,
        widths=widths,
        margin=margin,
        threads=threads,
        lr=lr,
        log_every=100,
        progress=False,
        init=init,
    )


def far_from_dice(boxes: np.ndarray, dice: np.ndarray, max_iou: float) -> np.ndarray:
    """Indices of ``boxes`` (x1 y1 x2 y2) whose IoU with every die box is under ``max_iou``."""
    from companion.vision.detections import box_iou  # noqa: PLC0415

    if not len(dice):
        return np.arange(len(boxes))
    return np.flatnonzero(box_iou(boxes, dice).max(1) < max_iou)


def mine_negatives(
    out: Path,
    scenes: int,
    seed: int,
    *,
    model: str | Path = "dragon-dice",
    size: int = 1280,
    conf: float = 0.03,
    max_iou: float = 0.3,
    limit: int = 800,
    progress: bool = True,
) -> Path:
    """Crops (the reader's size and margin) of die-finder boxes that overlap no die by ``max_iou`` or more."""
    from tqdm import tqdm  # noqa: PLC0415

    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415
    from companion.vision.crops import crop_die  # noqa: PLC0415
    from companion.vision.reader import load_model  # noqa: PLC0415
    from companion.vision.synth.dataset import SceneSampler  # noqa: PLC0415
    from companion.vision.synth.scene import render_scene  # noqa: PLC0415

    bundle = load_model(model)
    sampler = SceneSampler(load_catalogue())
    crops = []
    for k in tqdm(range(scenes), desc="mine negatives", unit="scene", disable=not progress, mininterval=10):
        rng = np.random.default_rng([seed, k, 11])
        scene = render_scene(
            rng,
            sampler.scene_specs(rng),
            sampler.vocabulary,
            size=size,
            profile="train",
            hand=bool(rng.random() < 0.15),
        )
        det = bundle.detector(scene.image, conf)
        dice = np.array([d.box for d in scene.dice], float).reshape(-1, 4)
        crops += [
            crop_die(scene.image, det.xyxy[i], bundle.crop_size, bundle.crop_margin)
            for i in far_from_dice(det.xyxy, dice, max_iou)
        ]
        if len(crops) >= limit:
            break
    crops = crops[:limit]
    if not crops:
        raise ValueError("the die finder found nothing but dice: no negatives")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, crops=np.stack(crops))
    print(f"{len(crops)} negatives from {k + 1} scenes -> {out}", flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="stage", required=True)
    d = sub.add_parser("detector")
    d.add_argument("--data", required=True)
    d.add_argument("--start", help="checkpoint to fine-tune from (e.g. models/dragon-dice/detector.pt)")
    d.add_argument("--work", default="runs/dd")
    d.add_argument("--hours", type=float, required=True)
    d.add_argument("--epochs", type=int, default=20)
    d.add_argument("--threads", type=int, default=1)
    d.add_argument("--lr0", type=float, help="AdamW learning rate (default: ultralytics' automatic choice)")
    d.add_argument(
        "--warmup-epochs",
        type=float,
        default=3.0,
        help="warm-up length; 0-0.5 when continuing a trained die finder",
    )
    f = sub.add_parser("face")
    f.add_argument("--crops", nargs="+", required=True)
    f.add_argument("--out", default="runs/dd/face")
    f.add_argument("--epochs", type=int, default=8)
    f.add_argument("--width", type=int, default=24)
    f.add_argument(
        "--widths",
        type=int,
        nargs=4,
        metavar="C",
        help="the four blocks' channels (default: width x 1, 2, 4, 4 + 32); wider than --init's "
        "blocks start afresh, the rest carries over",
    )
    f.add_argument("--negatives", help=".npz of crops that are not dice (kind 'none')")
    f.add_argument("--init", help="face.pt to continue from (heads may gain classes)")
    f.add_argument("--lr", type=float, default=3e-3)
    f.add_argument("--threads", type=int, default=1)
    n = sub.add_parser("negatives")
    n.add_argument("--out", default="runs/dd/negatives.npz")
    n.add_argument("--scenes", type=int, default=700)
    n.add_argument("--seed", type=int, default=3003)
    n.add_argument("--limit", type=int, default=800)
    n.add_argument(
        "--conf",
        type=float,
        default=0.03,
        help="keep die-finder boxes from this score (a good finder leaves few strong ones off the dice)",
    )
    b = sub.add_parser("bundle")
    b.add_argument("--detector", required=True)
    b.add_argument("--face", required=True)
    b.add_argument("--out", default="models/dragon-dice")
    b.add_argument("--note", default="", help="JSON-free text stored as model.json 'recipe'")
    b.add_argument(
        "--detector-onnx", help="reuse this export of --detector (at --imgsz) instead of exporting"
    )
    b.add_argument(
        "--imgsz",
        type=int,
        default=320,
        help="the die finder's input size at run time (it may differ from the training size)",
    )
    b.add_argument("--conf", type=float, default=0.25, help="detector confidence threshold the product uses")
    b.add_argument("--turns", type=int, default=1, help="face reader test-time turns (1, 2 or 4)")
    b.add_argument(
        "--shift",
        type=float,
        default=0.0,
        help="also read each crop moved by this share of the box each way, and average (0: one view)",
    )
    b.add_argument(
        "--min-face-conf", type=float, default=0.5, help="below this a face is reported unreadable"
    )
    args = ap.parse_args(argv)
    t0 = time.time()
    if args.stage == "detector":
        pt = train_die_finder(
            Path(args.data),
            Path(args.start) if args.start else None,
            Path(args.work),
            hours=args.hours,
            epochs=args.epochs,
            threads=args.threads,
            lr0=args.lr0,
            warmup_epochs=args.warmup_epochs,
        )
    elif args.stage == "face":
        pt = train_face(
            [Path(p) for p in args.crops],
            Path(args.out),
            epochs=args.epochs,
            width=args.width,
            lr=args.lr,
            negatives=Path(args.negatives) if args.negatives else None,
            threads=args.threads,
            init=Path(args.init) if args.init else None,
            widths=tuple(args.widths) if args.widths else None,
        )
    elif args.stage == "negatives":
        pt = mine_negatives(Path(args.out), args.scenes, args.seed, limit=args.limit, conf=args.conf)
    else:
        extra = {
            "recipe": args.note or "python -m companion.vision.train.dd_training",
            "conf": args.conf,
            "face_turns": args.turns,
            "min_face_confidence": args.min_face_conf,
            "face_shift": args.shift,
        }
        if args.detector_onnx:  # an earlier die-kind detector serves as the die finder (best class score)
            extra["detector_classes"] = list(KIND_CLASSES)
            extra["detector_role"] = (
                "die finder: a box's score is its best class score; the kind is read from the crop"
            )
        pt = write_bundle(
            Path(args.out),
            "dragon-dice",
            Path(args.detector),
            Path(args.face),
            args.imgsz,
            extra,
            det_onnx=Path(args.detector_onnx) if args.detector_onnx else None,
        )
    print(f"{args.stage}: {pt} ({time.time() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
