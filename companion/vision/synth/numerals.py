"""Renders of standard polyhedral dice (d4, d6, d8, d10, d12, d20) showing numbers, for Battle Dice.

Same method as ``companion.vision.synth.scene`` (whose table surfaces, shading, camera warp and
photo degradation are reused): each die is drawn flat as seen from above (silhouette, facet ring,
top face), its top face carries the rolled number (pips on a d6; the number three times around
the apex on a d4, as on a d4 read at its top corner; a d10 shows 10 as ``0``; 6 and 9 are
underlined), then the scene is warped and degraded like a photo.  Every label box is the bounding
box of the die's warped outline.

``write_numeral_dataset`` writes a YOLO dataset (classes = die kinds) with ``manifest.jsonl`` (the
number up on every die); ``write_numeral_crops`` writes classifier crops as an ``.npz``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.crops import CROP_SIZE, crop_die
from companion.vision.synth.scene import (
    HELDOUT_SURFACES,
    TRAIN_SURFACES,
    _ink_for,
    _paint_body,
    _regular,
    _rot,
    _tilt,
    art_square,
    camera_view,
    d10_silhouette,
    die_lean,
    draw_clutter,
    draw_shadow,
    draw_surface,
    free_spot,
    label_box,
    marble_texture,
    paint_top_face,
    photometric,
)

STANDARD_KINDS = ("d4", "d6", "d8", "d10", "d12", "d20")
SIDES = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20}
VALUES = tuple(str(v) for v in range(1, 21))
#: Typical size across (mm) of standard gaming dice.
STANDARD_MM = {"d4": 20, "d6": 16, "d8": 18, "d10": 18, "d12": 20, "d20": 21}
#: Plastic colours (BGR) of standard dice; a die is one of these, sometimes marbled with a second.
PLASTICS = (
    (30, 30, 200),
    (200, 80, 30),
    (40, 150, 40),
    (20, 170, 230),
    (240, 240, 240),
    (30, 30, 30),
    (140, 40, 120),
    (0, 120, 240),
    (160, 160, 160),
    (90, 60, 30),
    (200, 200, 60),
    (120, 200, 250),
)


@dataclass
class StandardDie:
    kind: str  # d4..d20
    value: int  # the number up (1..sides)
    colour: tuple[int, int, int]
    second: tuple[int, int, int] | None
    size_mm: float


@dataclass
class DrawnStandardDie:
    die: StandardDie
    box: tuple[float, float, float, float]


def face_text(kind: str, value: int) -> str:
    if not 1 <= value <= SIDES[kind]:
        raise ValueError(f"a {kind} has faces 1..{SIDES[kind]}, not {value}")
    return "0" if kind == "d10" and value == 10 else str(value)


def standard_polygons(kind: str, r: float) -> tuple[np.ndarray, np.ndarray, float]:
    """(silhouette, top face, numeral half-size) of a die centred at 0, unrotated, radius ``r``."""
    if kind == "d6":
        sq = np.array([[-r, -r], [r, -r], [r, r], [-r, r]], float) * 0.72
        return sq, sq * 0.92, r * 0.62
    if kind == "d4":
        tri = _regular(3, r, -np.pi / 2)
        return tri, tri * 0.92, r * 0.62
    if kind == "d8":
        return _regular(6, r, np.pi / 6), _regular(3, r * 0.82, -np.pi / 2), r * 0.4
    if kind == "d10":
        top = np.array([[0, -r * 0.95], [r * 0.6, -r * 0.05], [0, r * 0.55], [-r * 0.6, -r * 0.05]])
        return d10_silhouette(r), top, r * 0.36
    if kind == "d12":
        return _regular(10, r, 0), _regular(5, r * 0.6, -np.pi / 2), r * 0.4
    if kind == "d20":
        return _regular(12, r, 0), _regular(3, r * 0.62, -np.pi / 2), r * 0.3
    raise ValueError(f"unknown die kind {kind!r}")


def numeral_texture(
    kind: str, value: int, size: int, face_bgr, ink_bgr, font: int = cv2.FONT_HERSHEY_DUPLEX
) -> np.ndarray:
    """The top face's art, ``size`` x ``size``: pips (d6) or the number (centred; three times on a d4)."""
    tex = np.empty((size, size, 3), np.uint8)
    tex[:] = face_bgr
    if kind == "d6":
        q = size / 4
        spots = {
            1: [(2, 2)],
            2: [(1, 1), (3, 3)],
            3: [(1, 1), (2, 2), (3, 3)],
            4: [(1, 1), (3, 1), (1, 3), (3, 3)],
            5: [(1, 1), (3, 1), (2, 2), (1, 3), (3, 3)],
            6: [(1, 1), (3, 1), (1, 2), (3, 2), (1, 3), (3, 3)],
        }
        for x, y in spots[value]:
            cv2.circle(tex, (int(x * q), int(y * q)), max(2, int(size * 0.1)), ink_bgr, -1, cv2.LINE_AA)
        return tex
    text = face_text(kind, value)

    def stamp(canvas: np.ndarray, scale_frac: float, cy_frac: float) -> None:
        scale = 1.0
        thick = max(1, int(size / 22))
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
        scale = min(size * scale_frac / max(tw, 1), size * scale_frac / max(th, 1))
        thick = max(1, int(round(scale * 2)))
        (tw, th), base = cv2.getTextSize(text, font, scale, thick)
        org = (int((size - tw) / 2), int(size * cy_frac + th / 2))
        cv2.putText(canvas, text, org, font, scale, ink_bgr, thick, cv2.LINE_AA)
        if text in ("6", "9"):
            y = org[1] + max(2, base // 2 + 1)
            cv2.line(canvas, (org[0], y), (org[0] + tw, y), ink_bgr, thick, cv2.LINE_AA)

    if kind == "d4":  # the number sits at the apex on each of the three faces seen from above
        for k in range(3):
            layer = np.empty_like(tex)
            layer[:] = face_bgr
            stamp(layer, 0.34, 0.28)
            M = cv2.getRotationMatrix2D((size / 2, size / 2), 120 * k, 1.0)
            layer = cv2.warpAffine(layer, M, (size, size), borderValue=tuple(int(v) for v in face_bgr))
            ink = np.abs(layer.astype(np.int16) - np.array(face_bgr, np.int16)).sum(2) > 30
            tex[ink] = layer[ink]
        return tex
    stamp(tex, 0.78 if len(text) == 1 else 0.9, 0.5)
    return tex


def draw_standard_die(
    rng,
    canvas,
    die: StandardDie,
    centre,
    ppm: float,
    theta: float,
    lean,
    light,
    font: int = cv2.FONT_HERSHEY_DUPLEX,
) -> np.ndarray:
    """Draw one die flat; returns its body outline in canvas pixels."""
    r = die.size_mm * ppm / 2
    sil, top, art = standard_polygons(die.kind, r)
    R = _rot(theta)
    c = np.asarray(centre, float)
    base = sil @ R.T + c
    top_poly = top @ R.T + c + lean
    body = cv2.convexHull(np.vstack([base, sil @ R.T + c + lean]).astype(np.float32)).reshape(-1, 2)
    draw_shadow(rng, canvas, body, light, r)
    # _paint_body looks colours up by material name: register this die's plastic under private names
    mats = _materials(die)
    _paint_body(rng, canvas, body, mats, rng.uniform(0.5, 0.72))
    if die.kind != "d6":
        _paint_body(rng, canvas, sil @ R.T + c + lean * 0.7, mats, rng.uniform(0.7, 0.85))
        # facet edges from the top face's corners to the silhouette
        ring = sil @ R.T + c + lean * 0.7
        edge = tuple(int(v * 0.55) for v in die.colour)
        for p in top_poly:
            q = ring[int(np.argmin(np.hypot(*(ring - p).T)))]
            cv2.line(canvas, tuple(p.astype(int)), tuple(q.astype(int)), edge, 1, cv2.LINE_AA)
    face_col = np.array(die.colour, float)
    tex_size = 72
    tex = numeral_texture(
        die.kind, die.value, tex_size, tuple(int(v) for v in face_col), _ink_for(face_col), font
    )
    if die.second is not None:
        tex = marble_texture(rng, tex, face_col, np.array(die.second, np.float32))
    sq = art_square(art)
    if die.kind not in ("d6", "d4"):
        sq = sq + np.array([0, (top[:, 1].max() + top[:, 1].min()) / 2])
    elif die.kind == "d4":
        sq = sq + np.array([0, top[:, 1].mean()])
    paint_top_face(rng, canvas, tex, (sq @ R.T + c + lean).astype(np.float32), top_poly, mats[:1])
    return body


def _materials(die: StandardDie) -> tuple[str, ...]:
    from companion.vision.synth import scene  # noqa: PLC0415

    names = []
    for col in (die.colour, die.second):
        if col is None:
            continue
        key = f"plastic:{col[0]},{col[1]},{col[2]}"
        scene.MATERIAL_BGR.setdefault(key, tuple(col))
        names.append(key)
    return tuple(names)


def random_die(rng: np.random.Generator, kind: str | None = None, value: int | None = None) -> StandardDie:
    kind = kind or STANDARD_KINDS[int(rng.integers(len(STANDARD_KINDS)))]
    value = value or int(rng.integers(1, SIDES[kind] + 1))
    colour = PLASTICS[int(rng.integers(len(PLASTICS)))]
    colour = tuple(int(np.clip(v + rng.integers(-25, 26), 0, 255)) for v in colour)
    second = PLASTICS[int(rng.integers(len(PLASTICS)))] if rng.random() < 0.2 else None
    return StandardDie(kind, value, colour, second, STANDARD_MM[kind] * float(rng.uniform(0.9, 1.15)))


FONTS = (
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
)
HELDOUT_FONTS = (cv2.FONT_HERSHEY_PLAIN,)


def render_standard_scene(
    rng: np.random.Generator,
    dice: list[StandardDie],
    *,
    size: int = 640,
    profile: str = "train",
    ppm: float | None = None,
    tilt_deg: float | None = None,
    clutter: bool = True,
    photo: bool = True,
) -> tuple[np.ndarray, list[DrawnStandardDie], dict]:
    """Draw ``dice`` on a table: (image, drawn dice with boxes, scene facts).

    ``profile="heldout"`` uses table surfaces, light, tilts and a number font that ``train`` never uses.
    """
    if profile not in ("train", "heldout"):
        raise ValueError(f"profile must be 'train' or 'heldout', not {profile!r}")
    surface = str(rng.choice(TRAIN_SURFACES if profile == "train" else HELDOUT_SURFACES))
    fonts = FONTS if profile == "train" else HELDOUT_FONTS
    ppm = ppm or float(rng.uniform(1.9, 3.2)) * size / 640
    tilt = _tilt(rng, profile) if tilt_deg is None else float(tilt_deg)
    canvas = draw_surface(rng, size, size, surface)
    if clutter:
        draw_clutter(rng, canvas, [])
    light = np.array([np.cos(a := rng.uniform(0, 2 * np.pi)), np.sin(a)])
    placed: list[tuple[float, float, float]] = []
    flat = []
    for die in dice:
        r = die.size_mm * ppm / 2
        c = free_spot(rng, r, size, placed)
        if c is None:
            continue
        placed.append((c[0], c[1], r))
        lean = die_lean(rng, c, r, size, tilt)
        font = fonts[int(rng.integers(len(fonts)))]
        body = draw_standard_die(rng, canvas, die, c, ppm, rng.uniform(0, 2 * np.pi), lean, light, font)
        flat.append((die, body))
    img, Hm = camera_view(rng, canvas, tilt)
    drawn = []
    for die, body in flat:
        _, box = label_box(body, Hm, size)
        if box is not None:
            drawn.append(DrawnStandardDie(die, box))
    if photo:
        img = photometric(rng, img, profile)
    return img, drawn, {"surface": surface, "tilt": tilt, "ppm": ppm, "profile": profile}


def _scene_dice(rng: np.random.Generator, low: int = 1, high: int = 10) -> list[StandardDie]:
    return [random_die(rng) for _ in range(int(rng.integers(low, high + 1)))]


def write_numeral_dataset(
    out: Path, count: int, seed: int, *, profile: str = "train", size: int = 640
) -> Path:
    """``count`` scenes as a YOLO dataset (classes d4..d20) + ``manifest.jsonl``; returns data.yaml."""
    import yaml  # noqa: PLC0415

    out = Path(out)
    (out / "val" / "images").mkdir(parents=True, exist_ok=True)
    (out / "val" / "labels").mkdir(parents=True, exist_ok=True)
    with open(out / "manifest.jsonl", "w") as fh:
        for k in range(count):
            rng = np.random.default_rng([seed, k, 20])
            img, drawn, meta = render_standard_scene(rng, _scene_dice(rng), size=size, profile=profile)
            name = f"std{seed}_{k:05d}"
            cv2.imwrite(str(out / "val" / "images" / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
            lines = [
                f"{STANDARD_KINDS.index(d.die.kind)} {(d.box[0] + d.box[2]) / 2 / size:.6f} "
                f"{(d.box[1] + d.box[3]) / 2 / size:.6f} {(d.box[2] - d.box[0]) / size:.6f} "
                f"{(d.box[3] - d.box[1]) / size:.6f}"
                for d in drawn
            ]
            (out / "val" / "labels" / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
            fh.write(
                json.dumps(
                    {
                        "image": f"val/images/{name}.jpg",
                        "scene": meta,
                        "dice": [
                            {
                                "kind": d.die.kind,
                                "value": d.die.value,
                                "icon": str(d.die.value),
                                "count": 0,
                                "box": [round(v, 2) for v in d.box],
                            }
                            for d in drawn
                        ],
                    }
                )
                + "\n"
            )
    yml = out / "data.yaml"
    yml.write_text(
        yaml.safe_dump(
            {
                "path": str(out.resolve()),
                "train": "val/images",
                "val": "val/images",
                "nc": len(STANDARD_KINDS),
                "names": list(STANDARD_KINDS),
            },
            sort_keys=False,
        )
    )
    return yml


def write_numeral_crops(
    out: Path, scenes: int, seed: int, *, profile: str = "train", size: int = 640, jitter: float = 0.08
) -> Path:
    """Render scenes and keep one jittered crop per die: ``crops``, ``kind`` (index), ``value`` (1..20)."""
    crops, kinds, values = [], [], []
    for k in range(scenes):
        rng = np.random.default_rng([seed, k, 21])
        img, drawn, _ = render_standard_scene(rng, _scene_dice(rng, 2, 10), size=size, profile=profile)
        for d in drawn:
            box = np.array(d.box, float)
            wh = box[2:] - box[:2]
            box = box + rng.normal(0, jitter, 4) * np.tile(wh, 2) * 0.5
            crops.append(crop_die(img, box))
            kinds.append(STANDARD_KINDS.index(d.die.kind))
            values.append(d.die.value)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out,
        crops=np.stack(crops).reshape(-1, CROP_SIZE, CROP_SIZE, 3),
        kind=np.array(kinds),
        value=np.array(values),
    )
    return out
