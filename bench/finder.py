"""The Dragon Dice die finder: how many dice it boxes and how many boxes are no die, per set.

    python bench/finder.py --model dragon-dice [--model BUNDLE ...] SET [SET ...] [--json] [--picture PNG]

Each SET is a YOLO folder with a ``data.yaml`` (``companion.vision.synth.real_tables`` frames of
real-looking dice, or ``companion vision synth`` procedural scenes); every labelled box is a die,
whatever its class.  The boxes scored are the whole reading's (``DiceModel.detect``: the finder at
the bundle's input size and threshold, then the face reader's veto of boxes it reads as no die),
matched one die to one box, best overlap first.  Printed per model and set: dice found at IoU 0.5
(recall) and at IoU 0.75, false boxes per frame, and with two or more models the ratio of each
figure to the first model's.  ``--picture PNG`` also draws the last model's six worst frames of the
first set (green a die found, red a die missed, yellow a box on no die).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.detections import box_iou  # noqa: E402
from companion.vision.reader import load_model  # noqa: E402
from companion.vision.yolo_dataset import boxes_px, dataset_images, label_path_for, read_labels  # noqa: E402


def match(truth: np.ndarray, found: np.ndarray, at: float) -> int:
    """Dice of ``truth`` given a box of ``found`` at IoU >= ``at``, one box per die, best overlap first."""
    if not len(truth) or not len(found):
        return 0
    iou = box_iou(truth, found)
    hits, used_t, used_f = 0, set(), set()
    for flat in np.argsort(-iou, axis=None):
        t, f = divmod(int(flat), iou.shape[1])
        if iou[t, f] < at:
            break
        if t in used_t or f in used_f:
            continue
        used_t.add(t)
        used_f.add(f)
        hits += 1
    return hits


def matched(truth: np.ndarray, found: np.ndarray, at: float) -> tuple[np.ndarray, np.ndarray]:
    """(dice given a box, boxes given to a die) as masks, matched as ``match`` does."""
    t_ok, f_ok = np.zeros(len(truth), bool), np.zeros(len(found), bool)
    if len(truth) and len(found):
        iou = box_iou(truth, found)
        for flat in np.argsort(-iou, axis=None):
            t, f = divmod(int(flat), iou.shape[1])
            if iou[t, f] < at:
                break
            if not t_ok[t] and not f_ok[f]:
                t_ok[t] = f_ok[f] = True
    return t_ok, f_ok


def picture(model_name: str, folder: Path, out: Path, frames: int = 6, width: int = 640) -> Path:
    """The ``frames`` frames of ``folder`` where ``model_name`` misses most dice or draws most false
    boxes, side by side (3 a row, ``width`` px each): green a die found, red a die missed, yellow a
    box on no die."""
    model = load_model(model_name)
    scored = []
    for img_path in dataset_images(folder, "train"):
        image = cv2.imread(str(img_path))
        h, w = image.shape[:2]
        truth = boxes_px(read_labels(label_path_for(img_path))[1], w, h)
        det = model.detect(image)
        t_ok, f_ok = matched(truth, det.xyxy, 0.5)
        scored.append(((~t_ok).sum() + (~f_ok).sum(), img_path, truth, t_ok, det.xyxy, f_ok))
    tiles = []
    for _, img_path, truth, t_ok, found, f_ok in sorted(scored, key=lambda r: -r[0])[:frames]:
        image = cv2.imread(str(img_path))
        tall = width * 3 // 4  # every frame fits a 4:3 tile, whatever its own shape
        k = min(width / image.shape[1], tall / image.shape[0])
        image = cv2.resize(image, (int(round(image.shape[1] * k)), int(round(image.shape[0] * k))))
        for boxes, ok, colours in (
            (truth, t_ok, ((0, 200, 0), (0, 0, 255))),
            (found, f_ok, (None, (0, 220, 255))),
        ):
            for b, good in zip(boxes * k, ok, strict=True):
                colour = colours[0] if good else colours[1]
                if colour is not None:
                    cv2.rectangle(image, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), colour, 2)
        cv2.putText(
            image, img_path.name, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA
        )
        pad_h, pad_w = tall - image.shape[0], width - image.shape[1]
        tiles.append(cv2.copyMakeBorder(image, 0, pad_h, 0, pad_w, cv2.BORDER_CONSTANT))
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % 3)
    grid = np.vstack([np.hstack(tiles[i : i + 3]) for i in range(0, len(tiles), 3)])
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), grid)
    return out


def score(model_name: str, folder: Path) -> dict:
    model = load_model(model_name)
    frames = dice = found50 = found75 = boxes = 0
    for img_path in dataset_images(folder, "train"):
        image = cv2.imread(str(img_path))
        h, w = image.shape[:2]
        _, yolo = read_labels(label_path_for(img_path))
        truth = boxes_px(yolo, w, h)
        det = model.detect(image)
        hit = match(truth, det.xyxy, 0.5)
        frames += 1
        dice += len(truth)
        found50 += hit
        found75 += match(truth, det.xyxy, 0.75)
        boxes += len(det)
    return {
        "frames": frames,
        "dice": dice,
        "recall": found50 / max(dice, 1),
        "recall_iou75": found75 / max(dice, 1),
        "false_boxes_per_frame": (boxes - found50) / max(frames, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", help="YOLO folders with data.yaml")
    ap.add_argument("--model", action="append", help="shipped name or bundle folder (repeatable)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--picture",
        type=Path,
        help="also write the last model's 6 worst frames of the first SET here (PNG: green found, red "
        "missed, yellow a box on no die)",
    )
    args = ap.parse_args(argv)
    models = args.model or ["dragon-dice"]
    if args.picture:
        print(f"picture: {picture(models[-1], Path(args.sets[0]), args.picture)}", file=sys.stderr)
    out: dict[str, dict] = {}
    for s in args.sets:
        out[s] = {m: score(m, Path(s)) for m in models}
    if args.json:
        print(json.dumps(out))
        return 0
    for s, by_model in out.items():
        first = by_model[models[0]]
        print(f"{s}: {first['frames']} frames, {first['dice']} dice")
        for m, r in by_model.items():
            ratio = (
                ""
                if m == models[0]
                else "  (x{:.3f} recall, x{:.3f} at IoU 0.75, x{:.2f} false boxes)".format(
                    r["recall"] / max(first["recall"], 1e-9),
                    r["recall_iou75"] / max(first["recall_iou75"], 1e-9),
                    r["false_boxes_per_frame"] / max(first["false_boxes_per_frame"], 1e-9),
                )
            )
            print(
                f"  {m:<40} recall {r['recall']:.4f}  at IoU 0.75 {r['recall_iou75']:.4f}  "
                f"false boxes/frame {r['false_boxes_per_frame']:.2f}{ratio}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
