"""The d6 bundle with and without its box refiner (``box_refiner`` in model.json), on real photos.

    python bench/d6_refine.py [--model d6] [--refiner DIR] [--variants 1x1,1x2,8x1,8x2]
                              [--sets heldout-choice] [--frames 20] [--json]

``--refiner DIR`` scores a trained refiner (``refine.onnx`` + ``refine.json``, from
``python -m companion.vision.train.box_refiner``) added to the bundle, read in each of
``--variants`` (LOOKSxPASSES: 1 or 8 views of the crop, 1 or 2 passes); without it the bundle's own
refiner is scored as shipped.  Every variant is read through ``companion vision eval``'s path
(``evaluation.evaluate``: detector, refiner, face reader) on each set of ``companion.vision.train.d6_prep``
(``heldout-choice``: choices are made there; ``heldout-test``: the strict figure, read once per shipped
refiner), and prints mAP50, mAP50-95, recall, false boxes per photo and face accuracy, with the ratio
to the bundle without a refiner.  Then the cost: the bundle without and with (the last variant) read the
same ``--frames`` held-out photos enlarged to 1280 px frames, alternately (CPU time of this process
and wall time per frame, and their ratio; the load average is printed beside them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from d6_small import _frame_cost  # noqa: E402  (the same timing as the small-dice bench)

from companion.vision.evaluation import evaluate  # noqa: E402
from companion.vision.reader import DiceModel, resolve_model  # noqa: E402
from companion.vision.train.d6_prep import prepare_d6  # noqa: E402
from companion.vision.yolo_dataset import dataset_images  # noqa: E402

D6_REAL = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "d6-real"
FIELDS = ("map50", "map50_95", "recall", "false_boxes_per_image", "face_accuracy")


def _variant(text: str) -> tuple[int, int]:
    try:
        looks, passes = (int(v) for v in text.split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a variant is LOOKSxPASSES such as 8x1, not {text!r}") from None
    if looks not in (1, 8) or passes not in (1, 2):
        raise argparse.ArgumentTypeError(f"looks must be 1 or 8 and passes 1 or 2: {text!r}")
    return looks, passes


def _bundle(src: Path, out: Path, refiner: dict | None, onnx: Path | None) -> DiceModel:
    """``src``'s networks linked into ``out`` with ``refiner`` as its ``box_refiner`` (None: none)."""
    out.mkdir(parents=True)
    for name in ("detector.onnx", "face.onnx"):
        (out / name).symlink_to((src / name).resolve())
    meta = json.loads((src / "model.json").read_text())
    meta.pop("box_refiner", None)
    if refiner is not None and onnx is not None:
        (out / "refine.onnx").symlink_to(onnx.resolve())
        meta["box_refiner"] = {**refiner, "onnx": "refine.onnx"}
    (out / "model.json").write_text(json.dumps(meta))
    return DiceModel(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="d6", help="a shipped model's name or a bundle folder")
    ap.add_argument("--refiner", type=Path, help="a trained refiner's folder (refine.onnx, refine.json)")
    ap.add_argument(
        "--variants", default="1x1,1x2,8x1,8x2", help="with --refiner: LOOKSxPASSES, comma-separated"
    )
    ap.add_argument(
        "--blend", type=float, default=1.0, help="with --refiner: the share of the refined box kept"
    )
    ap.add_argument("--src", type=Path, default=D6_REAL, help="a folder in the d6-real form")
    ap.add_argument("--copies", type=int, default=4, help="the detector's cap of copies per source photo")
    ap.add_argument(
        "--sets", default="heldout-choice", help="comma-separated sets of d6_prep ('' = timing only)"
    )
    ap.add_argument("--frames", type=int, default=20, help="photos timed as 1280 px frames (0: no timing)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    args = ap.parse_args(argv)

    src = resolve_model(args.model)
    shipped = json.loads((src / "model.json").read_text()).get("box_refiner")
    if args.refiner is not None:
        rmeta = json.loads((args.refiner / "refine.json").read_text())
        onnx = args.refiner / rmeta.get("onnx", "refine.onnx")
        base = {"size": rmeta["size"], "margin": rmeta["margin"], "blend": args.blend}
        try:
            pairs = [_variant(v) for v in args.variants.split(",")]
        except argparse.ArgumentTypeError as exc:
            ap.error(f"--variants: {exc}")
        variants = {
            f"{looks}x{passes}": {**base, "looks": looks, "passes": passes} for looks, passes in pairs
        }
    elif shipped:
        onnx = src / shipped.get("onnx", "refine.onnx")
        variants = {"shipped": shipped}
    else:
        raise SystemExit(f"{src}/model.json names no box_refiner: give --refiner DIR")
    out: dict = {"model": str(args.model), "refiner": str(onnx), "variants": variants}
    with tempfile.TemporaryDirectory() as tmp:
        models = {"without": _bundle(src, Path(tmp) / "without", None, None)}
        for name, v in variants.items():
            models[name] = _bundle(src, Path(tmp) / name, v, onnx)
        split_dir = Path(tmp) / "split"
        prepare_d6(args.src, split_dir, copies_per_photo=args.copies)
        for set_name in filter(None, args.sets.split(",")):
            res = {k: evaluate(m, split_dir / set_name, progress=False) for k, m in models.items()}
            out[set_name] = {k: {f: r.get(f) for f in (*FIELDS, "images", "dice")} for k, r in res.items()}
            if not args.json:
                base_r = res["without"]
                print(f"{set_name}: {base_r['images']} photos, {base_r['dice']} dice", flush=True)
                for k, r in res.items():
                    cells = "  ".join(
                        f"{f} {r[f]:.4f} ({r[f] / max(base_r[f], 1e-9):.3f}x)" for f in FIELDS[:2]
                    )
                    rest = "  ".join(f"{f} {r[f]:.3f}" for f in FIELDS[2:])
                    print(f"  {k:8s} {cells}  {rest}", flush=True)
        if args.frames:
            photos = dataset_images(split_dir / "heldout")[: args.frames]
            last = list(variants)[-1]
            cost = _frame_cost({"without": models["without"], last: models[last]}, photos)
            out["frame_1280"] = {**cost, "frames": len(photos), "load_average": os.getloadavg()}
            if not args.json:
                print(
                    f"1280 px frame, read whole ({len(photos)} frames, load average {os.getloadavg()[0]:.1f}):"
                )
                for k, c in cost.items():
                    print(f"  {k:8s} CPU {c['cpu_ms']:.0f} ms, wall {c['wall_ms']:.0f} ms per frame")
                print(f"  with/without CPU time: {cost[last]['cpu_ms'] / cost['without']['cpu_ms']:.2f}x")
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
