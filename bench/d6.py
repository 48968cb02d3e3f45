"""Pip-d6 accuracy on three splits of the shared photos: whole held-out source photos, unseen copies
of trained source photos, and a mix shaped like the photos that are not in the shared folder.

    python bench/d6.py [--model d6] [--src ../shared/datasets/d6-real] [--copies 4] [--json]

The shared folder holds every second image of the Roboflow export's training split in sorted
file-name order; augmented copies of one source photo sort together, so the photos left out of the
folder (where the issue's target is scored) are mostly further copies of photos we train on.  This
script scores a model bundle on:

* ``heldout``: source photos no stage ever trained on (the strict figure, the one the card leads with);
* ``unseen``: training-split photos that the detector never trained on (copies beyond its cap of
  ``--copies`` per source photo); a face reader trained with ``--face-photos detector`` has not
  seen them either;
* ``hidden-like``: ``unseen`` plus a share of ``heldout`` in the proportion the left-out half would
  hold them (``companion.vision.train.d6_prep.hidden_like_names``).

It prints one line per split (mAP50, mAP50-95, recall, face accuracy, false boxes per image) and
each figure as a ratio of the issue's target (mAP50 0.95, mAP50-95 0.70).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.evaluation import evaluate  # noqa: E402
from companion.vision.reader import load_model  # noqa: E402
from companion.vision.train.d6_prep import prepare_d6  # noqa: E402

D6_REAL = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "d6-real"  # the reference folder
TARGET = {"map50": 0.95, "map50_95": 0.70}
KEEP = (
    "map50",
    "map50_95",
    "recall",
    "face_accuracy",
    "face_accuracy_detected",
    "false_boxes_per_image",
    "images",
    "dice",
    "ms_per_image",
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="d6", help="a shipped model's name or a bundle folder")
    ap.add_argument("--src", default=str(D6_REAL), help="a folder in the d6-real form")
    ap.add_argument("--copies", type=int, default=4, help="the detector's cap of copies per source photo")
    ap.add_argument(
        "--split-dir", default="", help="where to write the split (a temporary folder by default)"
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    args = ap.parse_args(argv)

    model = load_model(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        split_dir = Path(args.split_dir or tmp) / f"split-c{args.copies}"
        split = prepare_d6(Path(args.src), split_dir, copies_per_photo=args.copies)
        out = {
            "model": model.name,
            "copies": args.copies,
            "photos": {k: len(split[k]) for k in ("train", "det_train", "val", "unseen", "hidden_like")},
        }
        if not args.json:
            print(
                f"model {model.name}; {out['photos']['train']} training photos "
                f"({out['photos']['det_train']} for the detector), {out['photos']['val']} held out"
            )
        for name in ("heldout", "unseen", "hidden-like"):
            r = evaluate(model, split_dir / name, progress=not args.json)
            out[name] = {k: r[k] for k in KEEP}
            if not args.json:
                print(
                    f"{name:12s} {r['images']:4d} photos {r['dice']:5d} dice: "
                    f"mAP50 {r['map50']:.3f} ({r['map50'] / TARGET['map50']:.3f}x target), "
                    f"mAP50-95 {r['map50_95']:.3f} ({r['map50_95'] / TARGET['map50_95']:.3f}x target), "
                    f"recall {r['recall']:.3f}, face accuracy {r['face_accuracy']:.3f} "
                    f"(of found {r['face_accuracy_detected']:.3f}), "
                    f"false boxes/photo {r['false_boxes_per_image']:.2f}",
                    flush=True,
                )
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
