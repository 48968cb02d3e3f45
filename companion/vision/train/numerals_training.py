"""Training, export and held-out figures of the standard-dice numeral reader (``models/polyhedral``).

``python -m companion.vision.train.numerals_training --work artifacts/numerals --out models/polyhedral``
renders crops (``companion.vision.synth.numerals``) unless they exist, trains the two-head face
reader (kind, value), exports ``face.onnx`` and writes ``model.json``, ``heldout.json`` (figures
per die kind) and ``confusion_heldout.png``.  The held-out crops and frames come from the renderer's
``heldout`` profile: table surfaces, light, tilts and a number font never used in training.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from companion.vision.numerals import KINDS, SIDES, decode

VALUES = [str(v) for v in range(1, 21)]


def crop_figures(
    pt: Path, crops: np.ndarray, kinds: np.ndarray, values: np.ndarray
) -> tuple[dict, np.ndarray]:
    """Per-kind accuracy of (kind, value) on crops of true boxes, and the value confusion matrix."""
    from companion.vision.face_classifier import load_classifier, predict  # noqa: PLC0415

    model, _ = load_classifier(pt)
    kp, vp = predict(model, crops)
    k, v, _ = decode(kp, vp)
    right = (k == kinds) & (v == values)
    out = {
        "crops": int(len(crops)),
        "accuracy": round(float(right.mean()), 4),
        "kind_accuracy": round(float((k == kinds).mean()), 4),
        "per_kind": {},
    }
    for i, name in enumerate(KINDS):
        sel = kinds == i
        if sel.any():
            out["per_kind"][name] = {
                "crops": int(sel.sum()),
                "accuracy": round(float(right[sel].mean()), 4),
                "kind_accuracy": round(float((k[sel] == i).mean()), 4),
            }
    cm = np.zeros((21, 21), int)  # rows: value read (last: wrong kind), columns: true value
    for ki, vi, tk, tv in zip(k, v, kinds, values, strict=True):
        cm[20 if ki != tk else vi - 1, tv - 1] += 1
    return out, cm


def main(argv: list[str] | None = None) -> None:
    from companion.vision.face_classifier import export_classifier, train_classifier  # noqa: PLC0415
    from companion.vision.metrics import confusion_png  # noqa: PLC0415
    from companion.vision.synth.numerals import write_numeral_crops, write_numeral_dataset  # noqa: PLC0415

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default="artifacts/numerals")
    ap.add_argument("--out", default="models/polyhedral")
    ap.add_argument("--scenes", type=int, default=2600)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--width", type=int, default=24)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--init", help="face.pt to start from")
    ap.add_argument("--skip-train", action="store_true", help="only export and measure work/face/face.pt")
    args = ap.parse_args(argv)
    import torch  # noqa: PLC0415

    torch.set_num_threads(args.threads)
    work, out = Path(args.work), Path(args.out)
    train_npz, held_npz, frames = (
        work / "train_crops.npz",
        work / "heldout_crops.npz",
        work / "heldout_frames",
    )
    if not held_npz.is_file():
        write_numeral_crops(held_npz, 300, 777, profile="heldout")
    if not (frames / "manifest.jsonl").is_file():
        write_numeral_dataset(frames, 150, 778, profile="heldout")
    if not train_npz.is_file():
        write_numeral_crops(train_npz, args.scenes, 1, profile="train")
    t0 = time.time()
    pt = work / "face" / "face.pt"
    if not args.skip_train:
        z = np.load(train_npz)
        pt = train_classifier(
            z["crops"],
            {"kind": z["kind"], "value": z["value"] - 1},
            {"kind": list(KINDS), "value": VALUES},
            work / "face",
            epochs=args.epochs,
            flips=False,
            width=args.width,
            init=Path(args.init) if args.init else None,
        )
        print(f"trained on {len(z['crops'])} crops in {time.time() - t0:.0f} s", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    export_classifier(pt, out / "face.onnx")
    meta = {
        "name": out.name,
        "form": "numerals",
        "box_finder": "dragon-dice",
        "conf": 0.15,
        "face_heads": {"kind": list(KINDS), "value": VALUES},
        "min_face_confidence": 0.2,
        "sides": SIDES,
    }
    (out / "model.json").write_text(json.dumps(meta, indent=1))
    h = np.load(held_npz)
    crop_fig, cm = crop_figures(pt, h["crops"], h["kind"], h["value"])
    confusion_png(cm, VALUES, out / "confusion_heldout.png", "numerals, held-out crops")
    from companion.vision.numerals import NumeralModel, evaluate_frames  # noqa: PLC0415

    figures = {
        "heldout_crops": crop_fig,
        "heldout_frames": evaluate_frames(NumeralModel(out), frames),
        "train_seconds": round(time.time() - t0, 1),
    }
    (work / "heldout.json").write_text(json.dumps(figures, indent=1))
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
