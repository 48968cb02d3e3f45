"""Reading and writing YOLO-format datasets (``images/`` + ``labels/`` + ``data.yaml``).

A label file holds one line per box: ``class cx cy w h`` with coordinates normalised to the
image size.  ``split_groups`` keeps every augmented copy of one source photo on the same side
of a train/validation split (Roboflow exports name copies ``<stem>_jpg.rf.<hash>.jpg``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class DatasetError(ValueError):
    """A dataset folder or label file is malformed."""


@dataclass(frozen=True)
class LabelledImage:
    image: Path
    classes: np.ndarray  # (n,) int
    boxes: np.ndarray  # (n, 4) float, normalised cx cy w h


def read_labels(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Parse one label file; a missing file means no boxes."""
    if not path.exists():
        return np.zeros(0, int), np.zeros((0, 4), float)
    classes, boxes = [], []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 5:
            raise DatasetError(f"{path}:{lineno}: expected 'class cx cy w h', got {line!r}")
        try:
            classes.append(int(float(parts[0])))
            boxes.append([float(p) for p in parts[1:5]])
        except ValueError as exc:
            raise DatasetError(f"{path}:{lineno}: not a number in {line!r}") from exc
    return np.asarray(classes, int), np.asarray(boxes, float).reshape(-1, 4)


def write_labels(path: Path, classes, boxes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        f"{int(c)} {b[0]:.6f} {b[1]:.6f} {b[2]:.6f} {b[3]:.6f}" for c, b in zip(classes, boxes, strict=True)
    ]
    path.write_text("\n".join(lines) + ("\n" if lines else ""))


def boxes_px(norm: np.ndarray, w: int, h: int) -> np.ndarray:
    """YOLO boxes (centre x, centre y, width, height as shares of a ``w`` x ``h`` frame) -> pixel
    corners ``(x1, y1, x2, y2)``, shape (n, 4)."""
    norm = np.asarray(norm, float).reshape(-1, 4)
    return np.column_stack(
        [
            (norm[:, 0] - norm[:, 2] / 2) * w,
            (norm[:, 1] - norm[:, 3] / 2) * h,
            (norm[:, 0] + norm[:, 2] / 2) * w,
            (norm[:, 1] + norm[:, 3] / 2) * h,
        ]
    )


def boxes_norm(xyxy: np.ndarray, w: float, h: float) -> np.ndarray:
    """Pixel corners ``(x1, y1, x2, y2)`` -> YOLO boxes as shares of a ``w`` x ``h`` frame
    (``boxes_px`` undone), shape (n, 4)."""
    b = np.asarray(xyxy, float).reshape(-1, 4)
    return np.column_stack(
        [
            (b[:, 0] + b[:, 2]) / 2 / w,
            (b[:, 1] + b[:, 3]) / 2 / h,
            (b[:, 2] - b[:, 0]) / w,
            (b[:, 3] - b[:, 1]) / h,
        ]
    )


def label_path_for(image: Path) -> Path:
    """``.../images/x.jpg`` -> ``.../labels/x.txt`` (the YOLO convention)."""
    parts = list(image.parts)
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == "images":
            parts[i] = "labels"
            break
    return Path(*parts).with_suffix(".txt")


def load_data_yaml(data_dir: Path) -> dict:
    """Read ``data.yaml`` of a dataset folder (or a yaml path); class names as a list."""
    data_dir = Path(data_dir)
    yml = data_dir if data_dir.is_file() else data_dir / "data.yaml"
    if not yml.is_file():
        raise DatasetError(f"no data.yaml in {data_dir}")
    meta = yaml.safe_load(yml.read_text()) or {}
    names = meta.get("names")
    if isinstance(names, dict):
        names = [names[k] for k in sorted(names)]
    if not names:
        raise DatasetError(f"{yml}: no class names")
    meta["names"] = list(names)
    meta["_root"] = yml.parent
    return meta


def dataset_images(data_dir: Path, split: str | None = None) -> list[Path]:
    """Images of a YOLO dataset: the ``val`` (else ``test``, else ``train``) split unless one is named."""
    meta = load_data_yaml(data_dir)
    given = Path(str(meta.get("path", ".")))
    root = given if given.is_absolute() else (Path(meta["_root"]) / given).resolve()
    splits = [split] if split else ["val", "test", "train"]
    for key in splits:
        rel = meta.get(key)
        if not rel:
            continue
        folder = (root / rel) if not Path(rel).is_absolute() else Path(rel)
        if folder.is_dir():
            return sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    raise DatasetError(f"{data_dir}: none of the splits {splits} names an image folder")


def load_split(images: list[Path]) -> list[LabelledImage]:
    out = []
    for img in images:
        c, b = read_labels(label_path_for(img))
        out.append(LabelledImage(img, c, b))
    return out


def source_group(name: str) -> str:
    """The source photo an augmented Roboflow copy came from (``00011_jpg.rf.x`` -> ``00011``)."""
    stem = name.split(".rf.")[0]
    if stem in ("i_jpg", "image_jpg"):  # generic names shared by unrelated photos
        return name
    return stem


def split_groups(names: list[str], holdout_percent: int, salt: str = "h5") -> tuple[list[str], list[str]]:
    """Split file names into (train, held-out) by a stable hash of their source group."""
    train, held = [], []
    for name in sorted(names):
        digest = hashlib.sha1((salt + source_group(name)).encode()).digest()
        (held if digest[0] * 100 // 256 < holdout_percent else train).append(name)
    return train, held


def link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists():
        return
    try:
        os.symlink(src.resolve(), dst)
    except OSError:
        import shutil  # noqa: PLC0415

        shutil.copyfile(src, dst)


def write_data_yaml(
    out: Path, names: list[str], train: str | list[str] = "train/images", val: str = "val/images"
) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    yml = out / "data.yaml"
    yml.write_text(
        yaml.safe_dump(
            {"path": str(out.resolve()), "train": train, "val": val, "nc": len(names), "names": list(names)},
            sort_keys=False,
        )
    )
    return yml
