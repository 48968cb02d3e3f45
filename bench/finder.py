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


def matched(truth: np.ndarray, found: np.ndarray, at: float) -> tuple[np.ndarray, np.ndarray]:
    """(dice given a box, boxes given to a die) as masks: one box per die at IoU >= ``at``, best
    overlap first."""
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


def read_set(model_name: str, folder: Path) -> list[tuple[Path, np.ndarray, np.ndarray]]:
    """(frame, true boxes, boxes of the whole reading) for every frame of ``folder``: read once, then
    scored and drawn from."""
    model = load_model(model_name)
    out = []
    for img_path in dataset_images(folder, "train"):
        image = cv2.imread(str(img_path))
        h, w = image.shape[:2]
        truth = boxes_px(read_labels(label_path_for(img_path))[1], w, h)
        out.append((img_path, truth, model.detect(image).xyxy))
    return out


def score(reads: list) -> dict:
    dice = found50 = found75 = boxes = 0
    for _, truth, found in reads:
        dice += len(truth)
        found50 += int(matched(truth, found, 0.5)[0].sum())
        found75 += int(matched(truth, found, 0.75)[0].sum())
        boxes += len(found)
    return {
        "frames": len(reads),
        "dice": dice,
        "recall": found50 / max(dice, 1),
        "recall_iou75": found75 / max(dice, 1),
        "false_boxes_per_frame": (boxes - found50) / max(len(reads), 1),
    }


def picture(reads: list, out: Path, frames: int = 6, width: int = 640) -> Path:
    """The ``frames`` frames of ``reads`` with the most dice missed and boxes on no die, 3 a row in
    4:3 tiles ``width`` px wide: green a die found, red a die missed, yellow a box on no die."""
    marked = [(path, truth, found, *matched(truth, found, 0.5)) for path, truth, found in reads]
    marked.sort(key=lambda r: -int((~r[3]).sum() + (~r[4]).sum()))
    tall = width * 3 // 4  # every frame fits a 4:3 tile, whatever its own shape
    tiles = []
    for img_path, truth, found, t_ok, f_ok in marked[:frames]:
        image = cv2.imread(str(img_path))
        k = min(width / image.shape[1], tall / image.shape[0])
        image = cv2.resize(image, (int(round(image.shape[1] * k)), int(round(image.shape[0] * k))))
        for boxes, ok, colours in (
            (truth, t_ok, ((0, 200, 0), (0, 0, 255))),
            (found, f_ok, (None, (0, 220, 255))),
        ):
            for box, good in zip(boxes * k, ok, strict=True):
                colour = colours[0] if good else colours[1]
                if colour is not None:
                    cv2.rectangle(image, (int(box[0]), int(box[1])), (int(box[2]), int(box[3])), colour, 2)
        cv2.putText(
            image, img_path.name, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA
        )
        tiles.append(
            cv2.copyMakeBorder(
                image, 0, tall - image.shape[0], 0, width - image.shape[1], cv2.BORDER_CONSTANT
            )
        )
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % 3)
    grid = np.vstack([np.hstack(tiles[i : i + 3]) for i in range(0, len(tiles), 3)])
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), grid)
    return out


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
    out: dict[str, dict] = {}
    for k, s in enumerate(args.sets):
        out[s] = {}
        for m in models:
            reads = read_set(m, Path(s))
            out[s][m] = score(reads)
            if args.picture and k == 0 and m == models[-1]:
                print(f"picture: {picture(reads, args.picture)}", file=sys.stderr)
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
