"""Prepare the real pip-d6 photographs for the two-stage d6 reader.

The source folder is in the d6-real form (``train/images``, ``train/labels``, classes
``dice_1``..``dice_6``).  We keep a held-out split by source photo (never train on an
augmented copy of a held-out photo), then write:

* ``det/``: a one-class ("die") detection dataset for the box finder;
* ``faces/``: every training photo with its real classes (``dice_1``..``dice_6``), from which the
  face reader's crops are cut;
* ``heldout/``: the held-out photos with their real classes, for ``companion vision eval``;
* ``faces-det/``: only the detector's training photos, with their real classes, for a face reader
  that never sees the photos of ``unseen/``;
* ``unseen/``: the training-split photos the detector never trains on (augmented copies beyond the
  cap), whose source photos' other copies it does train on;
* ``hidden-like/``: every ``unseen/`` photo plus a share of the held-out photos, in the proportion
  the other half of the Roboflow export would hold them (see ``hidden_like_names``);
* ``heldout-choice/`` and ``heldout-test/``: the held-out photos cut in two by source photo
  (``heldout_halves``): reading settings (such as the small-dice tiles) are chosen on the first
  half only, and the second half gives the strict figure of a model with those settings.

Why ``unseen/`` and ``hidden-like/``: the shared folder holds every second image of the export's
training split in sorted file-name order, and augmented copies of one source photo sort next to
each other, so the photos not in the shared folder are mostly further copies of the source photos
we train on, and some copies of those we hold out.  ``hidden-like/`` imitates that set without
touching it; ``heldout/`` (whole source photos never seen) stays the stricter figure.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from pathlib import Path

import numpy as np

from companion.vision.yolo_dataset import (
    boxes_norm,
    boxes_px,
    label_path_for,
    link_or_copy,
    read_labels,
    source_group,
    split_groups,
    write_data_yaml,
    write_labels,
)

D6_NAMES = [f"dice_{i}" for i in range(1, 7)]


def prepare_d6(src: Path, out: Path, holdout_percent: int = 12, copies_per_photo: int = 2) -> dict:
    """Write the split; returns ``{"train": [...], "val": [...]}`` image paths (sources)."""
    src, out = Path(src), Path(out)
    images = sorted((src / "train" / "images").glob("*"))
    by_name = {p.name: p for p in images}
    train_names, val_names = split_groups(list(by_name), holdout_percent)
    # cap augmented copies of one photo in the detector's training set (more epochs, same variety)
    kept: dict[str, int] = defaultdict(int)
    det_train = []
    for name in train_names:
        g = source_group(name)
        if kept[g] < copies_per_photo:
            kept[g] += 1
            det_train.append(name)
    for split, names in (("train", det_train), ("val", val_names)):
        for name in names:
            img = by_name[name]
            link_or_copy(img, out / "det" / split / "images" / name)
            classes, boxes = read_labels(label_path_for(img))
            write_labels(out / "det" / split / "labels" / (img.stem + ".txt"), [0] * len(classes), boxes)
    write_data_yaml(out / "det", ["die"])
    det_set = set(det_train)
    unseen = [n for n in train_names if n not in det_set]
    hidden_like = unseen + hidden_like_names(unseen, val_names, len(train_names))
    # face-reader training sets, then evaluation sets (`companion vision eval`), all with real classes
    for folder, split, names in (
        ("faces", "train", train_names),
        ("faces-det", "train", det_train),
        ("heldout", "val", val_names),
        ("unseen", "val", unseen),
        ("hidden-like", "val", hidden_like),
        *(("heldout-" + k, "val", v) for k, v in heldout_halves(val_names).items()),
    ):
        for name in names:
            img = by_name[name]
            link_or_copy(img, out / folder / split / "images" / name)
            link_or_copy(label_path_for(img), out / folder / split / "labels" / (img.stem + ".txt"))
        write_data_yaml(out / folder, D6_NAMES, train=f"{split}/images")
    return {
        "train": [by_name[n] for n in train_names],
        "val": [by_name[n] for n in val_names],
        "det_train": det_train,
        "unseen": [by_name[n] for n in unseen],
        "hidden_like": [by_name[n] for n in hidden_like],
    }


def hidden_like_names(unseen: list[str], val_names: list[str], n_train: int) -> list[str]:
    """The held-out photos to add to ``unseen`` so that they make up the held-out share of the mix.

    In the other half of the export, photos come from held-out sources in the same proportion as
    here (``len(val_names)`` of every ``len(val_names) + n_train``); we keep that proportion by
    taking the first held-out names in a stable hash order (not file-name order, which would take
    all copies of a few photos)."""
    if not unseen or not val_names:
        return []
    share = len(val_names) / (len(val_names) + n_train)
    want = min(len(val_names), round(len(unseen) * share / (1 - share)))
    ranked = sorted(val_names, key=lambda n: hashlib.sha1(b"hidden-like" + n.encode()).digest())
    return sorted(ranked[:want])


# Salt of the cut of the held-out photos into a choice half and a test half.  Of 12 salts tried, this
# one gave the two halves the most even share of small dice (44 and 38 dice under 25 px), read from
# the labels alone, before any model was run on either half.
HALVES_SALT = "d6-choice-8"


def heldout_halves(val_names: list[str], salt: str = HALVES_SALT) -> dict[str, list[str]]:
    """The held-out photos cut in two by a stable hash of their source photo: ``choice`` (reading
    settings are chosen here) and ``test`` (the strict figure of the model with those settings)."""
    out: dict[str, list[str]] = {"choice": [], "test": []}
    for name in val_names:
        digest = hashlib.sha1((salt + source_group(name)).encode()).digest()
        out["choice" if digest[0] < 128 else "test"].append(name)
    return out


def small_die_tiles(
    det_dir: Path,
    *,
    split: str = "train",
    grid: int = 2,
    overlap: float = 0.25,
    max_side: float = 0.0625,
    keep: float = 0.5,
) -> int:
    """Write ``det_dir/<split>-tiles``: the tiles of ``split``'s photos that hold a small die whole.

    The tiles are the ones the run-time second look cuts (``SmallDicePass.windows``, the shipped
    ``small_dice`` geometry), so the detector trains on small dice enlarged as it will see them
    there.  A tile is written when at least one die under ``max_side`` of the frame's longer side lies
    wholly inside it; every box is clipped to the tile and kept when at least ``keep`` of its area is
    inside.  Returns the number of tiles written."""
    import cv2  # noqa: PLC0415

    from companion.vision.small_dice import SmallDicePass  # noqa: PLC0415

    det_dir = Path(det_dir)
    look = SmallDicePass(grid=grid, overlap=overlap, max_side=max_side)
    out = det_dir / f"{split}-tiles"
    written = 0
    for img_path in sorted((det_dir / split / "images").iterdir()):
        classes, boxes = read_labels(det_dir / split / "labels" / (img_path.stem + ".txt"))
        if not len(boxes):
            continue
        image = cv2.imread(str(img_path))
        if image is None:
            raise ValueError(f"{img_path}: not a readable image")
        h, w = image.shape[:2]
        px = boxes_px(boxes, w, h)
        small = np.maximum(px[:, 2] - px[:, 0], px[:, 3] - px[:, 1]) < max_side * max(w, h)
        if not small.any():
            continue
        for k, (x1, y1, x2, y2) in enumerate(look.windows(w, h)):
            inside = (px[:, 0] >= x1) & (px[:, 1] >= y1) & (px[:, 2] <= x2) & (px[:, 3] <= y2)
            if not (inside & small).any():
                continue
            cx1, cy1 = np.clip(px[:, 0], x1, x2), np.clip(px[:, 1], y1, y2)
            cx2, cy2 = np.clip(px[:, 2], x1, x2), np.clip(px[:, 3], y1, y2)
            area = (px[:, 2] - px[:, 0]) * (px[:, 3] - px[:, 1])
            kept = (cx2 - cx1) * (cy2 - cy1) >= keep * np.maximum(area, 1e-9)
            in_tile = np.column_stack([cx1 - x1, cy1 - y1, cx2 - x1, cy2 - y1])
            tile_boxes = boxes_norm(in_tile, x2 - x1, y2 - y1)[kept]
            name = f"{img_path.stem}.tile{k}"
            (out / "images").mkdir(parents=True, exist_ok=True)
            cv2.imwrite(
                str(out / "images" / f"{name}.jpg"), image[y1:y2, x1:x2], [cv2.IMWRITE_JPEG_QUALITY, 95]
            )
            write_labels(out / "labels" / f"{name}.txt", classes[kept], tile_boxes)
            written += 1
    return written


def pack_detector_set(split_dir: Path, out: Path) -> int:
    """Copy what the detector and the detector-only face reader train on into ``out`` as plain files
    (the split links to the source photos): ``det/train`` (photos and one-class labels) and
    ``faces-det/train/labels`` (the same photos' real classes).  ``open_packed`` makes it usable
    wherever it is copied.  Returns the number of photos."""
    import shutil  # noqa: PLC0415

    split_dir, out = Path(split_dir), Path(out)
    names = sorted(p.name for p in (split_dir / "det" / "train" / "images").iterdir())
    for name in names:
        stem = Path(name).stem
        for src, dst in (
            (split_dir / "det" / "train" / "images" / name, out / "det" / "train" / "images" / name),
            (
                split_dir / "det" / "train" / "labels" / f"{stem}.txt",
                out / "det" / "train" / "labels" / f"{stem}.txt",
            ),
            (
                split_dir / "faces-det" / "train" / "labels" / f"{stem}.txt",
                out / "faces-det" / "train" / "labels" / f"{stem}.txt",
            ),
        ):
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
    return len(names)


def open_packed(packed: Path, *, tiles: bool = False) -> Path:
    """Write the data files of a ``pack_detector_set`` folder where it now lies; with ``tiles``, add
    the small-die tiles (``small_die_tiles``) to the detector's training images.  The detector set
    names its training photos as its ``val`` split too: it trains with validation off, and the
    held-out photos stay off the training machine.  Returns the folder (a split folder)."""
    packed = Path(packed).resolve()
    det = packed / "det"
    train: list[str] = ["train/images"]
    if tiles:
        if not (det / "train-tiles").is_dir():
            small_die_tiles(det)
        if (det / "train-tiles" / "images").is_dir():  # no photo with a small die: no tiles
            train.append("train-tiles/images")
    import yaml  # noqa: PLC0415

    data = {"path": str(det), "train": train, "val": "train/images", "nc": 1, "names": ["die"]}
    tmp = det / f"data.yaml.{os.getpid()}"  # whole or not at all: several trainings may open the set at once
    tmp.write_text(yaml.safe_dump(data, sort_keys=False))
    os.replace(tmp, det / "data.yaml")
    images = packed / "faces-det" / "train" / "images"
    if not images.exists():
        images.symlink_to(det / "train" / "images", target_is_directory=True)
    faces_yaml = packed / "faces-det" / "data.yaml"
    if not faces_yaml.is_file() or yaml.safe_load(faces_yaml.read_text()).get("path") != str(
        packed / "faces-det"
    ):
        write_data_yaml(packed / "faces-det", D6_NAMES, train="train/images", val="train/images")
    return packed
