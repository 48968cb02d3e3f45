"""8-bit copies of a bundle's networks (onnxruntime static quantisation), for a faster frame on a small CPU.

    python -m companion.vision.train.quantize --model d6 --photos SPLIT/faces-det --out bundle-int8 \\
        [--networks detector,face] [--photos-used 64] [--seed 0]

The bundle is copied to ``--out`` and each network named in ``--networks`` is replaced by its 8-bit
version (QDQ form: weights int8 per output channel, activations uint8), calibrated on ``--photos-used``
photos drawn from ``--photos`` (a YOLO-format folder, its ``train`` split): the detector on the photos
letterboxed as the reader feeds them, the face reader on the crops of their labelled dice cut as the
reader cuts them.  Draw the photos from the networks' own training photos, never from a set a figure is
measured on.  ``model.json`` gets a ``quantized`` entry naming what was changed and with what.

A quantised network reads differently from its float original: score the copy before shipping it
(``python bench/d6_small.py --model bundle-int8``, ``companion vision eval``).  For the d6 detector the
loss was too large to ship (mAP50-95 0.009-0.013 lower on the choice half: models/d6/CHANGELOG.md,
2026-11-28); no shipped bundle is quantised.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

import cv2
import numpy as np

from companion.vision.crops import crop_die
from companion.vision.detector import letterbox
from companion.vision.reader import resolve_model
from companion.vision.yolo_dataset import boxes_px, dataset_images, label_path_for, read_labels

NETWORKS = {"detector": "detector.onnx", "face": "face.onnx"}


class _Feed:
    """An onnxruntime calibration reader over a list of ready inputs."""

    def __init__(self, name: str, inputs: list[np.ndarray]):
        self.name, self.inputs = name, iter(inputs)

    def get_next(self):
        x = next(self.inputs, None)
        return None if x is None else {self.name: x}


def detector_inputs(photos: list[Path], imgsz: int) -> list[np.ndarray]:
    out = []
    for p in photos:
        lb, _, _ = letterbox(cv2.imread(str(p)), imgsz)
        out.append(cv2.cvtColor(lb, cv2.COLOR_BGR2RGB).transpose(2, 0, 1)[None].astype(np.float32) / 255)
    return out


def face_inputs(photos: list[Path], size: int, margin: float, per_batch: int = 32) -> list[np.ndarray]:
    crops = []
    for p in photos:
        image = cv2.imread(str(p))
        h, w = image.shape[:2]
        crops += [crop_die(image, b, size, margin) for b in boxes_px(read_labels(label_path_for(p))[1], w, h)]
    x = np.stack(crops).transpose(0, 3, 1, 2).astype(np.float32) / 255
    return [x[i : i + per_batch] for i in range(0, len(x), per_batch)]


def quantize_network(src: Path, out: Path, inputs: list[np.ndarray], recipe: str = "all-but-head") -> None:
    """``recipe``: ``all-but-head`` quantises every op but a YOLO head's decoding (twice as fast as float
    for the d6 detector); ``conv`` only the convolutions (a sixth faster)."""
    import onnxruntime as ort  # noqa: PLC0415
    from onnxruntime.quantization import QuantFormat, QuantType, quant_pre_process, quantize_static  # noqa: PLC0415

    name = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"]).get_inputs()[0].name
    import onnx  # noqa: PLC0415

    # Only the convolutions are quantised, and not the box decoder's fixed one (the YOLO head's ``dfl``,
    # which reads a softmax): a uint8 scale over the head's joined output (box pixels and class
    # scores in one tensor) rounds every class score to 0, and nothing is found.
    nodes = onnx.load(str(src)).graph.node
    exclude = [n.name for n in nodes if "/dfl/" in n.name]
    if recipe == "all-but-head":  # every op but the YOLO head's decoding after its last convolutions
        head = [n for n in nodes if n.name.startswith("/model.23/") and "/cv" not in n.name]
        exclude += [n.name for n in head if n.name not in exclude]
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        graph = onnx.load(str(src))
        dims = graph.graph.input[0].type.tensor_type.shape.dim
        if any(d.dim_param for d in dims[2:]):  # a free image size: fixed at the calibration size first,
            from onnxruntime.tools.onnx_model_utils import fix_output_shapes, make_input_shape_fixed  # noqa: PLC0415

            make_input_shape_fixed(graph.graph, name, list(inputs[0].shape))  # which shape inference needs
            fix_output_shapes(graph)
            src = Path(tmp) / "fixed.onnx"
            onnx.save(graph, str(src))
        quant_pre_process(str(src), str(pre))
        quantize_static(
            str(pre),
            str(out),
            _Feed(name, inputs),
            quant_format=QuantFormat.QDQ,
            op_types_to_quantize=["Conv"] if recipe == "conv" else None,
            nodes_to_exclude=exclude,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )


RECIPES = ("all-but-head", "conv")


def quantize_bundle(
    model: str | Path,
    photos_dir: Path,
    out: Path,
    *,
    networks=("detector", "face"),
    photos_used: int = 64,
    seed: int = 0,
    recipe: str = "all-but-head",
) -> Path:
    """Copy bundle ``model`` to ``out`` with ``networks`` quantised; returns ``out``."""
    if recipe not in RECIPES:
        raise ValueError(f"recipe must be one of {', '.join(RECIPES)}, not {recipe!r}")
    src = resolve_model(str(model))
    unknown = set(networks) - set(NETWORKS)
    if unknown or not networks:
        raise ValueError(
            f"networks must be among {', '.join(NETWORKS)}, not {', '.join(sorted(unknown)) or 'none'}"
        )
    photos = dataset_images(Path(photos_dir))
    if not photos:
        raise ValueError(f"{photos_dir}: no photos to calibrate on")
    rng = np.random.default_rng(seed)
    picked = [
        photos[i] for i in sorted(rng.choice(len(photos), min(photos_used, len(photos)), replace=False))
    ]
    out = Path(out)
    if out.exists():
        raise FileExistsError(f"{out} exists: give a new folder")
    shutil.copytree(src, out)
    meta = json.loads((out / "model.json").read_text())
    crop = meta.get("crop", {})
    for net in networks:
        inputs = (
            detector_inputs(picked, int(meta.get("imgsz", 320)))
            if net == "detector"
            else face_inputs(picked, int(crop.get("size", 64)), float(crop.get("margin", 1.15)))
        )
        quantize_network(src / NETWORKS[net], out / NETWORKS[net], inputs, recipe)
    if "detector" in networks and isinstance(meta.get("small_dice"), dict):
        meta["small_dice"].pop("window", None)  # the 8-bit detector takes one fixed size: whole tiles
    meta["quantized"] = {
        "networks": list(networks),
        "form": f"onnxruntime static QDQ ({recipe}), weights int8 per channel, activations uint8",
        "calibration": f"{len(picked)} photos of {Path(photos_dir).name} (seed {seed})",
        "float_original": str(meta.get("name", src.name)),
    }
    (out / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="d6", help="a shipped model's name or a bundle folder")
    ap.add_argument("--photos", required=True, type=Path, help="YOLO-format folder of training photos")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--networks", default="detector,face")
    ap.add_argument("--photos-used", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--recipe", choices=RECIPES, default="all-but-head")
    a = ap.parse_args(argv)
    try:
        out = quantize_bundle(
            a.model,
            a.photos,
            a.out,
            networks=tuple(a.networks.split(",")),
            photos_used=a.photos_used,
            seed=a.seed,
            recipe=a.recipe,
        )
    except (ValueError, FileExistsError) as exc:
        ap.error(str(exc))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
