"""Training a complete model bundle (detector + face reader) from a YOLO dataset, and export.

Two dataset forms are recognised by their class names:

* Dragon Dice (``d4``..``d12``, with ``manifest.jsonl``): the detector learns die kinds; the face
  reader learns (icon kind or ``cocked``, count) from crops of the boxes.
* pip d6 (``dice_1``..``dice_6``, like the d6-real photographs): the detector learns one class
  ``die``; the face reader learns ``dice_1``..``dice_6`` from crops.

Why two stages (see models/*/MODEL_CARD.md): on two CPU cores a from-scratch detector with 100+
face classes cannot be trained in the time available, and faces become a few pixels wide at the
detector's 320 px input.  A detector with few classes converges fast, and the face reader sees
each die at full camera resolution in a 64 px crop.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from companion.vision.crops import CROP_MARGIN, CROP_SIZE, crop_die
from companion.vision.die_kinds import KIND_CLASSES
from companion.vision.yolo_dataset import (
    DatasetError,
    boxes_px,
    dataset_images,
    label_path_for,
    link_or_copy,
    load_data_yaml,
    read_labels,
    write_data_yaml,
    write_labels,
)

D6_CLASSES = [f"dice_{i}" for i in range(1, 7)]
#: Dragon Dice face crops: 80 px, 0.9 x the box side (the top face and its glyph fill the crop),
#: read by a FaceNet with a 16-channel stride-2 stem (see models/dragon-dice/MODEL_CARD.md).
DD_CROP_SIZE, DD_CROP_MARGIN, DD_FACE_STEM = 80, 0.9, 16
COCKED = "cocked"


def dataset_form(data_dir: Path) -> str:
    names = load_data_yaml(data_dir)["names"]
    if names == D6_CLASSES:
        return "d6"
    if names == list(KIND_CLASSES):
        return "dragon-dice"
    raise DatasetError(f"{data_dir}: classes {names} are neither d4..d12 die kinds nor dice_1..dice_6")


def collect_crops(
    data_dir: Path,
    split: str = "train",
    repeats: int = 1,
    jitter: float = 0.06,
    seed: int = 0,
    progress: bool = True,
    size: int = CROP_SIZE,
    margin: float = CROP_MARGIN,
) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, list[str]]]:
    """Face-reader training crops from a dataset's boxes: (crops, targets, class names per head).

    Dragon Dice crops carry three heads: ``kind`` (d4..d12), ``icon`` (or ``cocked``) and ``count``."""
    form = dataset_form(data_dir)
    meta = load_data_yaml(data_dir)
    rng = np.random.default_rng(seed)
    manifest = {}
    mpath = Path(meta["_root"]) / "manifest.jsonl"
    if form == "dragon-dice":
        if not mpath.is_file():
            raise DatasetError(
                f"{data_dir}: a Dragon Dice dataset needs manifest.jsonl (the face of every box)"
            )
        for line in mpath.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                manifest[Path(rec["image"]).name] = rec["dice"]
    crops, icons, counts, kinds = [], [], [], []
    for img_path in tqdm(dataset_images(data_dir, split), desc="cut crops", unit="img", disable=not progress):
        image = cv2.imread(str(img_path))
        if image is None:
            raise DatasetError(f"{img_path} is not a readable image")
        cls, norm = read_labels(label_path_for(img_path))
        boxes = boxes_px(norm, image.shape[1], image.shape[0])
        dice = manifest.get(img_path.name) if form == "dragon-dice" else None
        for k, box in enumerate(boxes):
            if form == "dragon-dice":
                if dice is None or len(dice) != len(boxes):
                    raise DatasetError(f"{img_path.name}: manifest and labels disagree")
                d = dice[k]
                icon, count = (COCKED if d.get("cocked") else d["icon"]), int(d["count"])
            else:
                icon, count = D6_CLASSES[cls[k]], 0
            wh = np.tile(box[2:] - box[:2], 2)
            for r in range(repeats):
                j = rng.normal(0, jitter, 4) * wh * 0.5 if r else 0
                crops.append(crop_die(image, box + j, size, margin))
                icons.append(icon)
                counts.append(count)
                kinds.append(int(cls[k]))
    if not crops:
        raise DatasetError(f"{data_dir}: no boxes to learn faces from")
    if form == "d6":
        names = {"icon": D6_CLASSES}
        return np.stack(crops), {"icon": np.array([D6_CLASSES.index(i) for i in icons])}, names
    names = {
        "kind": list(KIND_CLASSES),
        "icon": sorted(set(icons) - {COCKED}) + [COCKED],
        "count": [str(i) for i in range(max(counts) + 1)],
    }
    return (
        np.stack(crops),
        {
            "kind": np.array(kinds),
            "icon": np.array([names["icon"].index(i) for i in icons]),
            "count": np.array(counts),
        },
        names,
    )


def one_class_copy(data_dir: Path, out: Path) -> Path:
    """A copy of a pip-d6 dataset with every box relabelled class 0 (``die``), for the box finder."""
    meta = load_data_yaml(data_dir)
    for split in ("train", "val"):
        try:
            imgs = dataset_images(data_dir, split)
        except DatasetError:
            continue
        for img in imgs:
            link_or_copy(img, out / split / "images" / img.name)
            cls, boxes = read_labels(label_path_for(img))
            write_labels(out / split / "labels" / (img.stem + ".txt"), [0] * len(cls), boxes)
    has_val = (out / "val" / "images").is_dir()
    del meta
    return write_data_yaml(out, ["die"], val="val/images" if has_val else "train/images")


def faces_by_kind(catalogue=None) -> dict[str, list[list]]:
    """Every (icon kind, count) a die of each kind prints, from the catalogue: the reader's constraint."""
    if catalogue is None:
        from companion.rules.catalogue import load_catalogue  # noqa: PLC0415

        catalogue = load_catalogue()
    out: dict[str, set] = {k: set() for k in KIND_CLASSES}
    for die in catalogue:
        kind = f"d{len(die.faces)}"
        if kind in out:
            out[kind].update((f.name, int(f.count)) for f in die.faces)
    return {k: [list(p) for p in sorted(v)] for k, v in out.items()}


def write_bundle(
    out: Path,
    form: str,
    det_pt: Path,
    face_pt: Path,
    imgsz: int,
    extra: dict | None = None,
    det_onnx: Path | None = None,
) -> Path:
    """Export both networks to ONNX and write ``model.json`` (keeps the .pt files for fine-tuning).

    ``det_onnx``: an existing export of ``det_pt`` at ``imgsz`` to reuse instead of exporting again."""
    from companion.vision.face_classifier import export_classifier, load_classifier  # noqa: PLC0415

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if det_onnx is not None:
        if Path(det_onnx).resolve() != (out / "detector.onnx").resolve():
            shutil.copyfile(det_onnx, out / "detector.onnx")
    else:
        from companion.vision.train.training import export_onnx  # noqa: PLC0415

        settings = extra or {}
        free = bool((settings.get("small_dice") or {}).get("window") or settings.get("rect"))
        export_onnx(det_pt, out / "detector.onnx", imgsz, free_size=free)  # free: windows or frames' shapes
    export_classifier(face_pt, out / "face.onnx")
    if Path(det_pt).resolve() != (out / "detector.pt").resolve():
        shutil.copyfile(det_pt, out / "detector.pt")
    if Path(face_pt).resolve() != (out / "face.pt").resolve():
        shutil.copyfile(face_pt, out / "face.pt")
    _, face_meta = load_classifier(face_pt)
    kind_head = "kind" in face_meta["heads"]
    meta = {
        "name": out.name,
        "form": form,
        "imgsz": imgsz,
        "conf": 0.25,
        "iou": 0.6,
        "detector_classes": ["die"] if form == "d6" or kind_head else list(KIND_CLASSES),
        "face_heads": face_meta["heads"],
        "crop": {
            "size": int(face_meta.get("input", CROP_SIZE)),
            "margin": float(face_meta.get("margin", CROP_MARGIN)),
        },
        "eval_classes": D6_CLASSES if form == "d6" else list(KIND_CLASSES),
        "eval_from": "icon" if form == "d6" else "detector",
        "min_face_confidence": 0.5,
    }
    if form == "dragon-dice" and kind_head:
        meta["faces_by_kind"] = faces_by_kind()
    meta.update(extra or {})
    (out / "model.json").write_text(json.dumps(meta, indent=1))
    return out


#: ``model.json`` settings of how a bundle reads (thresholds, test-time views); fine-tuning keeps them
READING_SETTINGS = (
    "rect",
    "conf",
    "iou",
    "box_vote",
    "small_dice",
    "face_turns",
    "face_shift",
    "min_face_confidence",
)


def reading_settings(meta: dict) -> dict:
    """The ``READING_SETTINGS`` a bundle's ``model.json`` holds (a new bundle built from it reads alike)."""
    return {k: meta[k] for k in READING_SETTINGS if k in meta}


def train_bundle(
    data_dir: Path,
    out: Path,
    *,
    epochs: int = 20,
    imgsz: int = 320,
    hours: float | None = None,
    face_epochs: int = 10,
    batch: int = 16,
    resume: Path | None = None,
    finetune: Path | None = None,
    work: Path = Path("runs/train"),
    crop_repeats: int = 2,
    progress: bool = True,
    face_crop: int | None = None,
    face_margin: float | None = None,
    face_stem: int | None = None,
) -> Path:
    """Train detector and face reader on one dataset and write a bundle at ``out``.

    ``finetune``: a bundle folder whose ``detector.pt`` and ``face.pt`` are the starting weights.
    ``resume``: a detector ``last.pt`` of an interrupted run to continue (then the face reader trains).
    """
    from companion.vision.face_classifier import train_classifier  # noqa: PLC0415
    from companion.vision.train.training import train_detector  # noqa: PLC0415

    data_dir = Path(data_dir)
    form = dataset_form(data_dir)
    # Dragon Dice faces are read from larger, tighter crops (finer glyph detail); pip d6 keeps 64 px
    dd = form == "dragon-dice"
    face_crop = face_crop or (DD_CROP_SIZE if dd else CROP_SIZE)
    face_margin = face_margin or (DD_CROP_MARGIN if dd else CROP_MARGIN)
    face_stem = (DD_FACE_STEM if dd else 0) if face_stem is None else face_stem
    out = Path(out)
    name = out.name
    t0 = time.time()
    det_data = Path(data_dir) / "data.yaml" if Path(data_dir).is_dir() else Path(data_dir)
    # the detector only finds dice; the face reader names the kind (Dragon Dice) and the face
    det_data = one_class_copy(data_dir, Path(work) / f"{name}-oneclass")
    start_det = Path(finetune) / "detector.pt" if finetune else None
    start_face = Path(finetune) / "face.pt" if finetune else None
    det_pt = train_detector(
        det_data,
        Path(work),
        f"{name}-det",
        imgsz=imgsz,
        epochs=epochs,
        hours=hours,
        batch=batch,
        resume=resume,
        finetune=start_det,
    )
    t_det = time.time() - t0
    fm = None
    if start_face is not None:  # fine-tuning cuts crops the way the starting face reader was trained
        from companion.vision.face_classifier import load_classifier  # noqa: PLC0415

        _, fm = load_classifier(start_face)
        face_crop, face_margin = int(fm.get("input", CROP_SIZE)), float(fm.get("margin", CROP_MARGIN))
    crops, targets, classes = collect_crops(
        data_dir, "train", repeats=crop_repeats, progress=progress, size=face_crop, margin=face_margin
    )
    if fm is not None:
        if fm["heads"] != classes:  # keep the shipped vocabulary: map new labels into it
            for head, names in classes.items():
                target_names = fm["heads"][head]
                missing = set(names) - set(target_names)
                if missing:
                    raise DatasetError(
                        f"fine-tuning data has {head} classes the model lacks: {sorted(missing)}"
                    )
                targets[head] = np.array([target_names.index(names[i]) for i in targets[head]])
            classes = fm["heads"]
    face_pt = train_classifier(
        crops,
        targets,
        classes,
        Path(work) / f"{name}-face",
        epochs=face_epochs,
        flips=form == "d6",
        init=start_face,
        progress=progress,
        width=24,
        stem=face_stem,
        margin=face_margin,
    )
    extra = {
        "trained_seconds": {"detector": round(t_det, 1), "total": round(time.time() - t0, 1)},
        "train_data": str(data_dir),
        "epochs": epochs,
        "face_epochs": face_epochs,
    }
    run_imgsz = imgsz
    if finetune:  # a fine-tuned model reads the way the model it started from was set to read,
        # at the same run-time input (the die finder is fully convolutional)
        base = json.loads((Path(finetune) / "model.json").read_text())
        extra = {**reading_settings(base), **extra, "finetuned_from": base.get("name"), "train_imgsz": imgsz}
        run_imgsz = int(base.get("imgsz", imgsz))
    return write_bundle(out, form, det_pt, face_pt, run_imgsz, extra)
