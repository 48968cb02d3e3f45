"""The Dragon Dice die finder: how many dice it boxes and how many boxes are no die, per set.

    python bench/finder.py --model dragon-dice [--model BUNDLE ...] SET [SET ...] [--json]

Each SET is a YOLO folder with a ``data.yaml`` (``companion.vision.synth.real_tables`` frames of
real-looking dice, or ``companion vision synth`` procedural scenes); every labelled box is a die,
whatever its class.  The boxes scored are the whole reading's (``DiceModel.detect``: the finder at
the bundle's input size and threshold, then the face reader's veto of boxes it reads as no die),
matched one die to one box, best overlap first.  Printed per model and set: dice found at IoU 0.5
(recall) and at IoU 0.75, false boxes per frame, and with two or more models the ratio of each
figure to the first model's.
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
    args = ap.parse_args(argv)
    models = args.model or ["dragon-dice"]
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
