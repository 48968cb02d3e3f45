"""Scene sampling from the dice catalogue, and the YOLO dataset writer.

``write_dataset`` writes ``images/``, ``labels/`` (classes = die kinds d4..d12), ``data.yaml``
and ``manifest.jsonl`` (per image: every box with its die, face, materials and cocked flag).
``write_crops`` writes face-classifier training crops (one per die) as an ``.npz``.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from companion.vision.crops import CROP_MARGIN, CROP_SIZE, crop_die
from companion.vision.die_kinds import KIND_CLASSES
from companion.vision.synth.scene import DieSpec, die_spec, render_scene

COCKED = "cocked"


def face_vocabulary(catalogue) -> tuple[str, ...]:
    """Every icon kind printed on a die of the catalogue (``face.name``), sorted."""
    return tuple(sorted({f.name for d in catalogue for f in d.faces}))


def max_count(catalogue) -> int:
    return max(f.count for d in catalogue for f in d.faces)


class SceneSampler:
    """Draws random dice and faces from the catalogue (rare icons are drawn more often)."""

    def __init__(self, catalogue):
        self.dice = list(catalogue)
        self.vocabulary = face_vocabulary(catalogue)
        self.by_icon: dict[str, list[tuple[int, int]]] = {}
        for i, d in enumerate(self.dice):
            for j, f in enumerate(d.faces):
                self.by_icon.setdefault(f.name, []).append((i, j))
        self.by_kind: dict[str, list[int]] = {}
        for i, d in enumerate(self.dice):
            self.by_kind.setdefault(f"d{len(d.faces)}", []).append(i)

    def spec(self, rng: np.random.Generator, cocked_rate: float = 0.05) -> DieSpec:
        u = rng.random()
        if u < 0.4:  # balanced over icon kinds
            icon = self.vocabulary[int(rng.integers(len(self.vocabulary)))]
            i, j = self.by_icon[icon][int(rng.integers(len(self.by_icon[icon])))]
        elif u < 0.7:  # balanced over die kinds
            kind = KIND_CLASSES[int(rng.integers(len(KIND_CLASSES)))]
            i = self.by_kind[kind][int(rng.integers(len(self.by_kind[kind])))]
            j = int(rng.integers(len(self.dice[i].faces)))
        else:
            i = int(rng.integers(len(self.dice)))
            j = int(rng.integers(len(self.dice[i].faces)))
        return die_spec(self.dice[i], j, cocked=bool(rng.random() < cocked_rate))

    def scene_specs(self, rng: np.random.Generator, low: int = 1, high: int = 12) -> list[DieSpec]:
        return [self.spec(rng) for _ in range(int(rng.integers(low, high + 1)))]


def _record(d) -> dict:
    s = d.spec
    return {
        "die": s.name,
        "kind": s.kind,
        "face_index": s.face_index,
        "icon": s.icon,
        "count": s.count,
        "materials": list(s.materials),
        "size_mm": s.size_mm,
        "cocked": s.cocked,
        "box": [round(v, 2) for v in d.box],
    }


def write_dataset(
    out: Path,
    count: int,
    seed: int,
    catalogue,
    *,
    profile: str = "train",
    size: int = 640,
    glyph_dir: str | None = None,
    val_fraction: float = 0.0,
    progress: bool = True,
) -> Path:
    """Render ``count`` scenes into a YOLO dataset at ``out``; returns the data.yaml path."""
    out = Path(out)
    sampler = SceneSampler(catalogue)
    n_val = int(round(count * val_fraction))
    manifest = []
    for k in tqdm(range(count), desc=f"render {out.name}", unit="img", disable=not progress):
        rng = np.random.default_rng([seed, k])
        split = "val" if k < n_val else "train"
        scene = render_scene(
            rng,
            sampler.scene_specs(rng),
            sampler.vocabulary,
            size=size,
            profile=profile,
            hand=bool(rng.random() < 0.08),
            glyph_dir=glyph_dir,
        )
        name = f"{seed}_{k:06d}"
        (out / split / "images").mkdir(parents=True, exist_ok=True)
        (out / split / "labels").mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(out / split / "images" / f"{name}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        lines = []
        for d in scene.dice:
            x1, y1, x2, y2 = d.box
            lines.append(
                f"{KIND_CLASSES.index(d.spec.kind)} {(x1 + x2) / 2 / size:.6f} {(y1 + y2) / 2 / size:.6f} "
                f"{(x2 - x1) / size:.6f} {(y2 - y1) / size:.6f}"
            )
        (out / split / "labels" / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
        manifest.append(
            {
                "image": f"{split}/images/{name}.jpg",
                "scene": scene.meta,
                "dice": [_record(d) for d in scene.dice],
            }
        )
    with open(out / "manifest.jsonl", "w") as fh:
        for rec in manifest:
            fh.write(json.dumps(rec) + "\n")
    yml = out / "data.yaml"
    import yaml  # noqa: PLC0415

    yml.write_text(
        yaml.safe_dump(
            {
                "path": str(out.resolve()),
                "train": "train/images",
                "val": "val/images" if n_val else "train/images",
                "nc": len(KIND_CLASSES),
                "names": list(KIND_CLASSES),
                "faces": list(sampler.vocabulary),
            },
            sort_keys=False,
        )
    )
    return yml


def write_crops(
    out: Path,
    scenes: int,
    seed: int,
    catalogue,
    *,
    profile: str = "train",
    size: int = 640,
    jitter: float = 0.08,
    glyph_dir: str | None = None,
    crop_size: int = CROP_SIZE,
    margin: float = CROP_MARGIN,
    density: tuple[float, ...] = (1.0,),
    dice: tuple[int, int] = (2, 10),
    repeats: int = 1,
    progress: bool = True,
) -> Path:
    """Render scenes and keep classifier crops of every die: ``crops``, ``icon``, ``count``, ``kind``.

    ``density`` lists pixel densities relative to a 640 px frame of the table (2.0 = the detail a
    1280 px camera frame gives); each scene draws one.  A dense scene is rendered as a 640 px window
    of the bigger frame (same pixels per millimetre, a quarter of the cost).  ``repeats`` cuts each
    die that many times with different box jitter (the detector's boxes are never exact).
    """
    sampler = SceneSampler(catalogue)
    icons = list(sampler.vocabulary) + [COCKED]
    crops, icon_idx, counts, kinds = [], [], [], []
    for k in tqdm(range(scenes), desc="render crops", unit="scene", disable=not progress, mininterval=10):
        rng = np.random.default_rng([seed, k, 7])
        dens = float(density[int(rng.integers(len(density)))])
        ppm = float(rng.uniform(1.9, 3.2)) * dens * size / 640
        scene = render_scene(
            rng,
            sampler.scene_specs(rng, *dice),
            sampler.vocabulary,
            size=size,
            profile=profile,
            glyph_dir=glyph_dir,
            ppm=ppm,
            hand=bool(rng.random() < 0.05),
            px_scale=dens * size / 640,
        )
        for d in scene.dice:
            for _ in range(repeats):
                box = np.array(d.box, float)
                wh = box[2:] - box[:2]
                box = box + rng.normal(0, jitter, 4) * np.tile(wh, 2) * 0.5
                crops.append(crop_die(scene.image, box, crop_size, margin))
                s = d.spec
                icon_idx.append(icons.index(COCKED if s.cocked else s.icon))
                counts.append(s.count)
                kinds.append(KIND_CLASSES.index(s.kind))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        out,
        crops=np.stack(crops).reshape(-1, crop_size, crop_size, 3),
        icon=np.array(icon_idx),
        count=np.array(counts),
        kind=np.array(kinds),
        icons=np.array(icons),
        margin=margin,
    )
    return out
