"""``companion vision eval``: score a model bundle on any YOLO-format dataset.

The dataset's class names must be the model's evaluation classes (``d4``..``d12`` for the
Dragon Dice model, ``dice_1``..``dice_6`` for the pip-d6 model).  A ``manifest.jsonl`` beside
``data.yaml`` (written by ``companion vision synth``) adds the true face of every box, and with
it per-die face accuracy; for pip-d6 datasets the class itself is the face.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tqdm import tqdm

from companion.vision.detections import box_iou
from companion.vision.metrics import (
    ImageResult,
    confusion_matrix,
    confusion_png,
    detection_metrics,
    face_accuracy,
    recall_by_size,
)
from companion.vision.reader import COCKED, DiceModel, read_image
from companion.vision.table_reading import profile_faces
from companion.vision.yolo_dataset import (
    DatasetError,
    boxes_px,
    dataset_images,
    label_path_for,
    load_data_yaml,
    read_labels,
)


def _manifest(root: Path) -> dict[str, list[dict]]:
    path = root / "manifest.jsonl"
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            out[Path(rec["image"]).name] = rec["dice"]
    return out


def evaluate(
    model: DiceModel,
    data_dir: Path,
    *,
    split: str | None = None,
    confusion_path: Path | None = None,
    limit: int | None = None,
    progress: bool = True,
    conf: float = 0.01,
) -> dict:
    meta = load_data_yaml(data_dir)
    names = meta["names"]
    if list(names) != list(model.eval_classes):
        raise DatasetError(
            f"dataset classes {names} do not match model {model.name!r} classes {model.eval_classes}"
        )
    images = dataset_images(data_dir, split)
    if limit:
        images = images[:limit]
    if not images:
        raise DatasetError(f"{data_dir}: no images")
    manifest = _manifest(Path(meta["_root"]))
    icons = model.heads.get("icon", [])
    counts = model.heads.get("count")
    results, shipped = [], []
    t_total = 0.0
    for img_path in tqdm(images, desc="eval", unit="img", disable=not progress):
        image = read_image(img_path)
        gt_cls, gt_norm = read_labels(label_path_for(img_path))
        h, w = image.shape[:2]
        gt_boxes = boxes_px(gt_norm, w, h)
        t0 = time.perf_counter()
        det = model.detect(image, conf=conf)
        t_total += time.perf_counter() - t0
        faces = []
        for i in range(len(det)):
            icon = icons[det.face_id[i]] if det.face_id[i] >= 0 else None
            cnt = int(counts[det.count[i]]) if counts and det.count[i] >= 0 else None
            faces.append((icon, cnt, icon == COCKED))
        if (
            getattr(model, "profile", None) is not None
        ):  # an enrolled bundle reads faces from its table profile
            faces = profile_faces(model, det)
        dice = manifest.get(img_path.name)
        if dice is not None and len(dice) == len(gt_cls):
            gt_faces = [(d["icon"], d["count"], bool(d.get("cocked"))) for d in dice]
        elif model.eval_from == "icon":
            gt_faces = [(names[c], None, False) for c in gt_cls]
        else:
            gt_faces = []
        results.append(
            ImageResult(
                gt_boxes, gt_cls, det.xyxy, model.eval_scores(det), model.eval_class_ids(det), gt_faces, faces
            )
        )
        shipped.append(det.confidence >= model.detector.conf)
    nc = len(names)
    out = detection_metrics(results, nc)
    # reading quality is judged on the detections the product keeps (the model's confidence threshold)
    confident = [
        ImageResult(
            r.gt_boxes,
            r.gt_classes,
            r.boxes[k],
            r.scores[k],
            r.classes[k],
            r.gt_faces,
            [f for f, keep in zip(r.faces, k, strict=True) if keep],
        )
        for r, k in zip(results, shipped, strict=True)
    ]
    out["shipped_conf"] = model.detector.conf
    false_boxes = sum(
        int((box_iou(r.boxes, r.gt_boxes).max(1) < 0.5).sum()) if len(r.gt_boxes) else len(r.boxes)
        for r in confident
        if len(r.boxes)
    )
    out["false_boxes_per_image"] = round(false_boxes / len(images), 3)
    out.update(face_accuracy(confident))
    out["recall_by_size"] = recall_by_size(confident)
    cm = confusion_matrix(results, nc, conf=model.detector.conf)  # the boxes the product keeps
    out["confusion_matrix"] = cm.tolist()
    out["classes"] = list(names)
    out["images"] = len(images)
    out["ms_per_image"] = round(1000 * t_total / len(images), 1)
    out["model"] = model.name
    if confusion_path is not None:
        confusion_png(cm, names, confusion_path, f"{model.name} on {Path(data_dir).name}")
        out["confusion_png"] = str(confusion_path)
    return out
