"""The learning loop: capture frames, store corrected readings, export them for fine-tuning.

A correction is a frame ``<name>.jpg`` with ``<name>.json`` beside it::

    {"dice": [{"box": [x1, y1, x2, y2], "kind": "d6", "icon": "Melee", "count": 2,
               "cocked": false, "die": "Dwarves/Mammoth Rider"}]}

The tablet (or anyone) writes them with ``save_correction``; ``export_corrections`` turns a
folder of them into a YOLO dataset (``d4``..``d12`` labels + ``manifest.jsonl``) that
``companion vision train --finetune dragon-dice --data DIR`` learns from.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import cv2
import numpy as np

from companion.vision.detections import box_problem
from companion.vision.die_kinds import KIND_CLASSES
from companion.vision.yolo_dataset import write_data_yaml


class CorrectionError(ValueError):
    """A correction record is malformed."""


def _check_die(rec: dict, where: str, w: int, h: int) -> dict:
    if not isinstance(rec, dict):
        raise CorrectionError(f"{where}: each die must be an object")
    box = rec.get("box")
    if problem := box_problem(box, w, h):
        raise CorrectionError(f"{where}: box {problem}")
    if rec.get("kind") not in KIND_CLASSES:
        raise CorrectionError(f"{where}: 'kind' must be one of {', '.join(KIND_CLASSES)}")
    cocked = bool(rec.get("cocked", False))
    if not cocked:
        if not isinstance(rec.get("icon"), str) or not rec["icon"]:
            raise CorrectionError(f"{where}: 'icon' (the face's icon kind) is required unless cocked")
        if not isinstance(rec.get("count"), int) or rec["count"] < 0:
            raise CorrectionError(f"{where}: 'count' must be a non-negative integer")
    return {
        "box": [float(v) for v in box],
        "kind": rec["kind"],
        "icon": rec.get("icon") or "cocked",
        "count": int(rec.get("count") or 0),
        "cocked": cocked,
        "die": rec.get("die"),
    }


def save_correction(folder: Path, image: np.ndarray, dice: list[dict], name: str | None = None) -> Path:
    """Store one corrected frame; validates everything before writing anything."""
    if image is None or image.ndim != 3:
        raise CorrectionError("image must be a BGR frame")
    h, w = image.shape[:2]
    if not isinstance(dice, list):
        raise CorrectionError("dice must be a list")
    clean = [_check_die(d, f"die {k}", w, h) for k, d in enumerate(dice)]
    name = name or time.strftime("%Y%m%d-%H%M%S") + f"-{int(time.time() * 1000) % 1000:03d}"
    return write_record(Path(folder), name, image, {"dice": clean})


def write_record(folder: Path, name: str, image: np.ndarray, record: dict) -> Path:
    """Write ``NAME.jpg`` and ``NAME.json`` (``record``) in ``folder``, each whole or not at all (a
    temporary file, then a rename): a write that fails half way leaves no half JSON for enrolment to
    refuse, and a record written again under its name is the old one or the new one.  Returns the
    image's path."""
    folder.mkdir(parents=True, exist_ok=True)
    img_path, rec_path = folder / f"{name}.jpg", folder / f"{name}.json"
    tmp_img, tmp_rec = folder / f".{name}.tmp.jpg", folder / f".{name}.json.tmp"
    try:
        if not cv2.imwrite(str(tmp_img), image, [cv2.IMWRITE_JPEG_QUALITY, 95]):
            raise CorrectionError(f"could not write {img_path}")
        tmp_rec.write_text(json.dumps(record, indent=1))
        os.replace(tmp_img, img_path)
        os.replace(tmp_rec, rec_path)
    finally:
        tmp_img.unlink(missing_ok=True)
        tmp_rec.unlink(missing_ok=True)
    return img_path


def export_corrections(folder: Path, out: Path) -> tuple[Path, int]:
    """Write every correction in ``folder`` as a YOLO dataset at ``out``; returns (data.yaml, images)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CorrectionError(f"no corrections folder {folder}")
    records = sorted(folder.glob("*.json"))
    if not records:
        raise CorrectionError(f"{folder} holds no corrections (<name>.jpg + <name>.json)")
    prepared = []
    for rec_path in records:
        img_path = rec_path.with_suffix(".jpg")
        image = cv2.imread(str(img_path))
        if image is None:
            raise CorrectionError(f"{img_path} is missing or not a readable image")
        try:
            data = json.loads(rec_path.read_text())
        except json.JSONDecodeError as exc:
            raise CorrectionError(f"{rec_path}: not JSON ({exc})") from exc
        h, w = image.shape[:2]
        dice = [_check_die(d, f"{rec_path.name} die {k}", w, h) for k, d in enumerate(data.get("dice", []))]
        prepared.append((img_path, image, dice))
    out = Path(out)
    (out / "train" / "images").mkdir(parents=True, exist_ok=True)
    (out / "train" / "labels").mkdir(parents=True, exist_ok=True)
    with open(out / "manifest.jsonl", "w") as manifest:
        for img_path, image, dice in prepared:
            h, w = image.shape[:2]
            cv2.imwrite(str(out / "train" / "images" / img_path.name), image)
            lines = []
            for d in dice:
                x1, y1, x2, y2 = d["box"]
                lines.append(
                    f"{KIND_CLASSES.index(d['kind'])} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} "
                    f"{(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}"
                )
            (out / "train" / "labels" / f"{img_path.stem}.txt").write_text(
                "\n".join(lines) + "\n" if lines else ""
            )
            manifest.write(json.dumps({"image": f"train/images/{img_path.name}", "dice": dice}) + "\n")
    return write_data_yaml(out, list(KIND_CLASSES), val="train/images"), len(prepared)


def capture_frames(source: str, out: Path, every_ms: int = 1000, limit: int = 100, turn: int = 0) -> int:
    """Save one frame every ``every_ms`` from a source (camera:N, video, folder) as JPEGs, each turned
    ``turn`` degrees clockwise first (``camera_turn``: the table's far side at the top, as the readers see it)."""
    from companion.vision.camera_turn import parse_turn, turn_image  # noqa: PLC0415
    from companion.vision.sources import open_source  # noqa: PLC0415

    turn = parse_turn(turn)  # a bad turn is refused before the source is opened

    out = Path(out)
    saved, next_t = 0, 0.0
    for t, frame in open_source(source):  # a source that cannot be read is refused before a folder is made
        if t + 1e-9 >= next_t:
            if not saved:
                out.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(
                str(out / f"frame_{saved:05d}.jpg"), turn_image(frame, turn), [cv2.IMWRITE_JPEG_QUALITY, 95]
            )
            saved += 1
            next_t = t + every_ms / 1000
            if saved >= limit:
                break
    return saved
