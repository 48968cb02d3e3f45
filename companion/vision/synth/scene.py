"""Photo-like renders of a table with Dragon Dice on it, by OpenCV compositing.

A scene is drawn flat (as seen straight down), then warped by a homography that stands for a
camera tilted up to ~35 degrees, then degraded (light gradient, colour cast, blur, noise, JPEG).
Every die's body outline is carried through the same warp, so its label box is exactly the
bounding box of what was drawn.  ``profile="heldout"`` draws from table surfaces, light
settings and tilts that ``profile="train"`` never uses, for an honest held-out set.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.colour import MATERIALS_BGR
from companion.vision.die_kinds import FACES_TO_KIND, die_materials
from companion.vision.die_size import KIND_MM as DIE_KIND_MM
from companion.vision.die_size import SIZE_MM as DIE_SIZE_MM
from companion.vision.synth.glyphs import face_texture

#: Physical sizes (mm across) of the dice: one table, the run time's (``die_size``), which reads them.
SIZE_MM, KIND_MM = DIE_SIZE_MM, DIE_KIND_MM

#: Display colours (BGR) of die materials: the run-time colour table (V4.01c L138-164), copied so
#: that renderers adding plastic colours (``numerals._materials``) never change the run-time one.
MATERIAL_BGR = dict(MATERIALS_BGR)

TRAIN_SURFACES = ("wood", "felt", "cloth", "tiles", "playmat")
HELDOUT_SURFACES = ("marble", "checker")


@dataclass
class DieSpec:
    """What to draw: a die, the face that is up, and whether it is cocked."""

    name: str
    kind: str  # d4..d12
    icon: str  # face.name
    count: int
    materials: tuple[str, ...]
    size_mm: float
    species: str = ""
    cocked: bool = False
    face_index: int = 0


@dataclass
class DrawnDie:
    spec: DieSpec
    box: tuple[float, float, float, float]  # x1 y1 x2 y2 in pixels
    outline: np.ndarray  # body outline polygon after the camera warp
    top: np.ndarray  # top-face polygon after the camera warp


@dataclass
class Scene:
    image: np.ndarray
    dice: list[DrawnDie] = field(default_factory=list)
    meta: dict = field(default_factory=dict)


def die_spec(die, face_index: int, cocked: bool = False) -> DieSpec:
    kind = FACES_TO_KIND[len(die.faces)]
    face = die.faces[face_index]
    mm = SIZE_MM.get(die.size or "", 18) if kind == "d6" else KIND_MM[kind]
    return DieSpec(
        die.name,
        kind,
        face.name,
        face.count,
        die_materials(die),
        float(mm),
        die.species or "",
        cocked,
        face_index,
    )


# --------------------------------------------------------------------------- surfaces


def _value_noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    small = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def draw_surface(rng: np.random.Generator, h: int, w: int, surface: str, scale: float = 1.0) -> np.ndarray:
    """A table surface; ``scale`` = pixels per pixel of a 640 px frame of the same table (weave, tiles
    and checks keep their size on the table whatever the camera resolution)."""
    base = np.array(rng.integers(40, 200, 3), np.float32)
    if surface == "wood":
        base = np.array([rng.uniform(30, 80), rng.uniform(70, 120), rng.uniform(110, 170)], np.float32)
        y = np.linspace(0, 1, h, dtype=np.float32)[:, None]
        warp = _value_noise(rng, h, w, 6) * rng.uniform(4, 12)
        grain = np.sin((y * rng.uniform(30, 90) + warp) * np.pi) * 0.5 + 0.5
        tone = 0.75 + 0.35 * grain[..., None] * rng.uniform(0.5, 1)
        img = base * tone
        if rng.random() < 0.5:  # the grain runs the other way
            img = np.ascontiguousarray(np.rot90(img))
            if img.shape[:2] != (h, w):  # a frame that is not square keeps its size (was turned on its side)
                img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    elif surface == "felt":
        n = _value_noise(rng, h, w, 40) * 0.15 + rng.normal(0, 0.04, (h, w)).astype(np.float32)
        img = base * (0.9 + n[..., None])
    elif surface == "cloth":
        xs = np.arange(w, dtype=np.float32)
        period = rng.uniform(3, 7) * scale
        weave = np.sin(xs[None, :] / period) * np.sin(np.arange(h, dtype=np.float32)[:, None] / period)
        img = base * (0.92 + 0.08 * weave[..., None] + 0.1 * _value_noise(rng, h, w, 8)[..., None])
    elif surface == "tiles":
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        step = int(int(rng.integers(60, 160)) * scale)
        lw = max(1, int(round(3 * scale)))
        for x in range(0, w, step):
            img[:, x : x + lw] *= 0.6
        for y in range(0, h, step):
            img[y : y + lw, :] *= 0.6
        img *= (0.9 + 0.2 * _value_noise(rng, h, w, 5))[..., None]
    elif surface == "playmat":  # a printed terrain mat: bold shapes in unrelated colours, hard edges
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        for _ in range(int(rng.integers(6, 18))):
            colour = [float(v) for v in rng.integers(20, 235, 3)]
            c = rng.uniform(0, 1, 2) * (w, h)
            r = float(rng.uniform(25, 160)) * scale
            if rng.random() < 0.5:
                n = int(rng.integers(3, 8))
                ang = np.sort(rng.uniform(0, 2 * np.pi, n))
                rad = r * rng.uniform(0.5, 1.2, n)
                pts = np.stack([c[0] + rad * np.cos(ang), c[1] + rad * np.sin(ang)], 1).astype(np.int32)
                cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
            elif rng.random() < 0.5:
                cv2.circle(img, (int(c[0]), int(c[1])), int(r), colour, -1, cv2.LINE_AA)
            else:  # a band across the mat (a road, a river)
                a = rng.uniform(0, np.pi)
                d = np.array([np.cos(a), np.sin(a)]) * 2 * max(w, h)
                cv2.line(
                    img,
                    tuple((c - d).astype(int)),
                    tuple((c + d).astype(int)),
                    colour,
                    max(2, int(r / 3)),
                    cv2.LINE_AA,
                )
        img *= (0.85 + 0.3 * _value_noise(rng, h, w, 12))[..., None]
    elif surface == "marble":
        n = _value_noise(rng, h, w, 5) * 8 + _value_noise(rng, h, w, 20) * 2
        veins = np.abs(np.sin(n * np.pi)) ** 0.3
        img = base * (0.7 + 0.35 * veins[..., None])
    elif surface == "checker":
        step = int(int(rng.integers(40, 90)) * scale)
        yy, xx = np.mgrid[0:h, 0:w]
        chk = ((yy // step + xx // step) % 2).astype(np.float32)
        other = np.array(rng.integers(40, 220, 3), np.float32)
        img = base * (1 - chk[..., None]) + other * chk[..., None]
    else:
        raise ValueError(f"unknown table surface {surface!r}")
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_clutter(
    rng: np.random.Generator, img: np.ndarray, keep_out: list[tuple[float, float, float]], scale: float = 1.0
) -> None:
    """Cards and banners under the dice (drawn before them); sizes as in a 640 px frame x ``scale``."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(0, 3))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        cw, ch = rng.uniform(60, 140) * scale, rng.uniform(90, 200) * scale
        ang = rng.uniform(0, 180)
        box = cv2.boxPoints(((cx, cy), (cw, ch), ang)).astype(np.int32)
        if rng.random() < 0.6:  # a card with lines of text
            cv2.fillPoly(img, [box], tuple(int(v) for v in rng.integers(200, 250, 3)), cv2.LINE_AA)
            for k in range(int(rng.integers(2, 6))):
                t = (k + 1) / 7
                p1 = box[0] + (box[1] - box[0]) * 0.15 + (box[3] - box[0]) * t
                p2 = box[0] + (box[1] - box[0]) * 0.85 + (box[3] - box[0]) * t
                cv2.line(
                    img,
                    tuple(p1.astype(int)),
                    tuple(p2.astype(int)),
                    (60, 60, 60),
                    max(1, int(round(2 * scale))),
                )
        else:  # a banner: a coloured cloth strip with a notched end
            colour = tuple(int(v) for v in rng.integers(0, 255, 3))
            cv2.fillPoly(img, [box], colour, cv2.LINE_AA)


def draw_hand(rng: np.random.Generator, img: np.ndarray, scale: float = 1.0) -> None:
    """A hand reaching in from an edge (skin-toned palm and fingers, blurred); sizes x ``scale``."""
    h, w = img.shape[:2]
    layer = img.copy()
    skin = np.array([rng.uniform(60, 170), rng.uniform(100, 190), rng.uniform(150, 235)])
    side = int(rng.integers(4))
    cx = rng.uniform(0.2, 0.8) * w
    pts = {0: (cx, -10 * scale), 1: (cx, h + 10 * scale), 2: (-10 * scale, cx), 3: (w + 10 * scale, cx)}[side]
    centre = np.array(pts, float)
    toward = np.array([w / 2, h / 2]) - centre
    toward /= np.linalg.norm(toward)
    palm = centre + toward * rng.uniform(40, 110) * scale
    ang = float(np.degrees(np.arctan2(toward[1], toward[0])))
    cv2.ellipse(
        layer,
        (int(palm[0]), int(palm[1])),
        (int(70 * scale), int(55 * scale)),
        ang,
        0,
        360,
        skin.tolist(),
        -1,
        cv2.LINE_AA,
    )
    cv2.ellipse(
        layer,
        (int(centre[0]), int(centre[1])),
        (int(90 * scale), int(50 * scale)),
        ang,
        0,
        360,
        skin.tolist(),
        -1,
    )
    perp = np.array([-toward[1], toward[0]])
    for k in range(4):
        base = palm + (perp * (k - 1.5) * 24 + toward * 40) * scale
        tip = base + toward * rng.uniform(40, 70) * scale
        cv2.line(
            layer,
            tuple(base.astype(int)),
            tuple(tip.astype(int)),
            (skin * 0.97).tolist(),
            max(1, int(round(20 * scale))),
            cv2.LINE_AA,
        )
    # only the hand is soft (it moves); the table and dice under the rest of the frame stay sharp
    hand = (np.abs(layer.astype(np.int16) - img.astype(np.int16)).sum(2) > 0).astype(np.float32)
    alpha = cv2.GaussianBlur(hand, (0, 0), 1.5 * scale)[..., None]
    soft = cv2.GaussianBlur(layer, (0, 0), 1.5 * scale).astype(np.float32)
    img[:] = np.clip(img * (1 - alpha) + soft * alpha, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- dice


def _regular(n: int, r: float, rot: float) -> np.ndarray:
    a = rot + np.arange(n) * 2 * np.pi / n
    return np.stack([r * np.cos(a), r * np.sin(a)], 1)


def d10_silhouette(r: float) -> np.ndarray:
    """The outline of a d10 lying on a face, seen from above, radius ``r`` (both renderers draw it)."""
    return np.array(
        [
            [0, -r],
            [r * 0.85, -r * 0.2],
            [r * 0.75, r * 0.45],
            [0, r * 0.8],
            [-r * 0.75, r * 0.45],
            [-r * 0.85, -r * 0.2],
        ]
    )


def die_polygons(kind: str, r: float) -> tuple[np.ndarray, np.ndarray, float]:
    """(silhouette, top face, art half-size) of a die centred at 0, unrotated, radius ``r``."""
    if kind == "d6":
        sq = np.array([[-r, -r], [r, -r], [r, r], [-r, r]], float)
        return sq, sq, r
    if kind == "d8":
        return _regular(6, r, np.pi / 6), _regular(3, r * 0.86, -np.pi / 2), r * 0.48
    if kind == "d10":
        top = np.array([[0, -r * 0.98], [r * 0.62, -r * 0.05], [0, r * 0.55], [-r * 0.62, -r * 0.05]])
        return d10_silhouette(r), top, r * 0.42
    if kind == "d12":
        return _regular(10, r, 0), _regular(5, r * 0.62, -np.pi / 2), r * 0.5
    if kind == "d4":
        tri = _regular(3, r, -np.pi / 2)
        return tri, tri * 0.62, r * 0.36
    raise ValueError(f"unknown die kind {kind!r}")


def _rot(theta: float) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def _ink_for(bgr) -> tuple[int, int, int]:
    b, g, r = bgr
    lum = 0.114 * b + 0.587 * g + 0.299 * r
    return (25, 22, 20) if lum > 120 else (235, 235, 230)


def _paint_body(rng, canvas, mask_poly, materials, shade: float) -> None:
    """Fill a polygon with the die material (two-tone dice are marbled)."""
    x, y, w, h = cv2.boundingRect(mask_poly.astype(np.int32))
    if w <= 0 or h <= 0:
        return
    cols = [np.array(MATERIAL_BGR.get(m, (128, 128, 128)), np.float32) for m in materials]
    patch = np.empty((h, w, 3), np.float32)
    patch[:] = cols[0]
    if len(cols) > 1:
        n = _value_noise(rng, h, w, 4)
        mix = np.clip((n - 0.45) * 4, 0, 1)[..., None] * 0.85
        patch = patch * (1 - mix) + cols[1] * mix
    if materials[0] in ("Gold", "Silver", "Bronze"):
        patch *= (0.8 + 0.45 * _value_noise(rng, h, w, 3))[..., None]
    patch *= shade
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [(mask_poly - [x, y]).astype(np.int32)], 255, cv2.LINE_AA)
    _blend(canvas, patch, m, x, y)


def _blend(canvas, patch, mask, x, y) -> None:
    H, W = canvas.shape[:2]
    h, w = mask.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x1 <= x0 or y1 <= y0:
        return
    p = patch[y0 - y : y1 - y, x0 - x : x1 - x]
    a = mask[y0 - y : y1 - y, x0 - x : x1 - x].astype(np.float32)[..., None] / 255
    region = canvas[y0:y1, x0:x1].astype(np.float32)
    canvas[y0:y1, x0:x1] = np.clip(region * (1 - a) + p * a, 0, 255).astype(np.uint8)


def draw_die(
    rng, canvas, spec: DieSpec, centre, ppm: float, theta: float, lean, light, vocabulary, glyph_dir=None
) -> tuple[np.ndarray, np.ndarray]:
    """Draw one die flat; returns (body outline, top polygon) in canvas pixels."""
    r = spec.size_mm * ppm / 2
    sil, top, art = die_polygons(spec.kind, r)
    R = _rot(theta)
    squash = np.eye(2)
    if spec.cocked:  # leaning on another die: the top face is seen at a steep angle
        phi = rng.uniform(0, np.pi)
        d = np.array([np.cos(phi), np.sin(phi)])
        squash = np.eye(2) - (1 - rng.uniform(0.4, 0.62)) * np.outer(d, d)
        lean = lean + d * r * rng.uniform(0.35, 0.6)
    M = squash @ R
    c = np.asarray(centre, float)
    base = sil @ R.T + c
    top_poly = top @ M.T + c + lean
    body = cv2.convexHull(np.vstack([base, sil @ M.T + c + lean]).astype(np.float32)).reshape(-1, 2)
    draw_shadow(rng, canvas, body, light, r)
    # sides, then top
    _paint_body(rng, canvas, body, spec.materials, rng.uniform(0.5, 0.72))
    if spec.kind != "d6":  # facet edges around the top face
        _paint_body(rng, canvas, sil @ M.T + c + lean * 0.7, spec.materials, rng.uniform(0.7, 0.85))
    face_col = np.array(MATERIAL_BGR.get(spec.materials[0], (128, 128, 128)), float)
    tex_size = 72
    tex = face_texture(
        spec.icon,
        spec.count,
        tex_size,
        tuple(int(v) for v in face_col),
        _ink_for(face_col),
        vocabulary,
        spec.species,
        glyph_dir,
    )
    if len(spec.materials) > 1:
        second = np.array(MATERIAL_BGR.get(spec.materials[1], (128, 128, 128)), np.float32)
        tex = marble_texture(rng, tex, face_col, second)
    sq = art_square(art)
    if spec.kind != "d6":
        sq = sq + np.array([0, (top[:, 1].max() + top[:, 1].min()) / 2])
    paint_top_face(rng, canvas, tex, (sq @ M.T + c + lean).astype(np.float32), top_poly, spec.materials[:1])
    return body, top_poly


def draw_shadow(rng, canvas, body: np.ndarray, light, r: float) -> None:
    """A die's soft shadow, cast away from ``light`` (computed in the die's neighbourhood only)."""
    spoly = body + light * r * 0.5
    pad = int(r * 0.8) + 2
    x, y, w, h = cv2.boundingRect(spoly.astype(np.int32))
    x, y, w, h = x - pad, y - pad, w + 2 * pad, h + 2 * pad
    sh = np.zeros((h, w), np.uint8)
    cv2.fillPoly(sh, [(spoly - [x, y]).astype(np.int32)], 255, cv2.LINE_AA)
    sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, r * 0.25))
    dark = np.zeros((h, w, 3), np.float32)
    _blend(canvas, dark, (sh * rng.uniform(0.3, 0.6)).astype(np.uint8), x, y)


def marble_texture(rng, tex: np.ndarray, face_col: np.ndarray, second: np.ndarray) -> np.ndarray:
    """A two-tone die's face art: ``second`` (BGR, float32) marbled into the face colour, ink kept."""
    n = _value_noise(rng, tex.shape[0], tex.shape[1], 3)
    mix = (np.clip((n - 0.6) * 4, 0, 1) * 0.35)[..., None]
    ink_mask = np.abs(tex.astype(np.float32) - face_col).sum(2, keepdims=True) > 60
    return np.where(ink_mask, tex, tex * (1 - mix) + second * mix).astype(np.uint8)


def art_square(art: float) -> np.ndarray:
    """The corners of the face art's square, half-size ``art``, centred at 0."""
    return np.array([[-art, -art], [art, -art], [art, art], [-art, art]])


def paint_top_face(rng, canvas, tex: np.ndarray, dst: np.ndarray, top_poly: np.ndarray, material) -> None:
    """The top face: ``material``, then the art ``tex`` warped onto the square ``dst``, masked to the face
    polygon ``top_poly`` (canvas pixels)."""
    tex_size = tex.shape[0]
    src = np.array([[0, 0], [tex_size, 0], [tex_size, tex_size], [0, tex_size]], np.float32)
    _paint_body(rng, canvas, top_poly, material, rng.uniform(0.92, 1.05))
    H = cv2.getPerspectiveTransform(src, dst)
    x, y, w, h = cv2.boundingRect(np.vstack([dst, top_poly]).astype(np.int32))
    T = np.array([[1, 0, -x], [0, 1, -y], [0, 0, 1]], float) @ H
    patch = cv2.warpPerspective(tex, T, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)
    m = cv2.warpPerspective(np.full((tex_size, tex_size), 255, np.uint8), T, (w, h))
    face_mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(face_mask, [(top_poly - [x, y]).astype(np.int32)], 255, cv2.LINE_AA)
    _blend(canvas, patch * rng.uniform(0.92, 1.05), cv2.min(m, face_mask), x, y)


# --------------------------------------------------------------------------- camera and light


def camera_homography(rng, w: int, h: int, tilt_deg: float) -> np.ndarray:
    """A homography standing for a camera tilted by ``tilt_deg`` towards a random direction."""
    t = np.radians(tilt_deg)
    shrink = np.tan(t) * 0.55  # far edge appears narrower
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src.copy()
    dst[0, 0] += w * shrink / 2
    dst[1, 0] -= w * shrink / 2
    dst[0, 1] += h * shrink * 0.3
    dst[1, 1] += h * shrink * 0.3
    H = cv2.getPerspectiveTransform(src, dst)
    ang = rng.uniform(0, 360)
    Rm = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), ang, 1.0), [0, 0, 1]])
    return Rm @ H @ np.linalg.inv(Rm)


def camera_view(rng, canvas: np.ndarray, tilt: float) -> tuple[np.ndarray, np.ndarray]:
    """The square table ``canvas`` as a camera tilted ``tilt`` degrees sees it: (image, homography);
    what the warp uncovers takes the colour of the table's left edge."""
    size = canvas.shape[0]
    Hm = camera_homography(rng, size, size, tilt)
    border = tuple(int(v) for v in canvas[size // 2, :5].mean(0))
    img = cv2.warpPerspective(canvas, Hm, (size, size), borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    return img, Hm


def _warp_points(points: np.ndarray, Hm: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), Hm).reshape(-1, 2)


def label_box(
    outline: np.ndarray, Hm: np.ndarray, size: int
) -> tuple[np.ndarray, tuple[float, float, float, float] | None]:
    """A die's outline after the camera warp ``Hm``, and its label box (x1, y1, x2, y2) clipped to the
    ``size`` px frame; None for a die whose box is mostly (over 40 %) outside the frame."""
    b = _warp_points(outline, Hm)
    x1, y1 = np.clip(b.min(0), 0, size)
    x2, y2 = np.clip(b.max(0), 0, size)
    if (x2 - x1) * (y2 - y1) < 0.6 * np.prod(b.max(0) - b.min(0)):
        return b, None
    return b, (float(x1), float(y1), float(x2), float(y2))


def photometric(rng, img: np.ndarray, profile: str) -> np.ndarray:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = ((xx - w / 2) * np.cos(ang) + (yy - h / 2) * np.sin(ang)) / max(w, h)
    strength = rng.uniform(0.1, 0.5) if profile == "train" else rng.uniform(0.5, 0.7)
    gain = rng.uniform(0.7, 1.2) if profile == "train" else rng.choice([rng.uniform(0.55, 0.7), 1.25])
    f *= (gain * (1 + strength * g))[..., None]
    cast = rng.uniform(0.85, 1.15, 3) if profile == "train" else rng.uniform(0.78, 1.22, 3)
    f *= cast.astype(np.float32)
    sigma = rng.uniform(0, 1.1)
    if sigma > 0.3:
        f = cv2.GaussianBlur(f, (0, 0), sigma)
    f += rng.normal(0, rng.uniform(0, 7), f.shape).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    q = int(rng.integers(40, 96))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _tilt(rng, profile: str) -> float:
    if profile == "train":
        return float(rng.uniform(0, 12) if rng.random() < 0.5 else rng.uniform(20, 35))
    return float(rng.uniform(12, 20))


def free_spot(
    rng: np.random.Generator,
    r: float,
    size: int,
    placed: list[tuple[float, float, float]],
    overlap: float | None = None,
) -> np.ndarray | None:
    """A centre for a die of radius ``r`` on the ``size`` px table, clear of the dice ``placed`` ((x, y,
    radius) each) by 15 % of the two radii (60 random tries; None if none is clear).  With ``overlap``
    (a cocked die, which leans on another), a spot overlapping a placed die by less than ``overlap``
    px also does."""
    for _ in range(60):
        cand = rng.uniform(r * 1.6, size - r * 1.6, 2)
        gap = min((np.hypot(*(cand - p[:2])) - (r + p[2]) * 1.15 for p in placed), default=1e9)
        if gap > 0 or (overlap is not None and placed and gap > -overlap):
            return cand
    return None


def die_lean(rng: np.random.Generator, c: np.ndarray, r: float, size: int, tilt: float) -> np.ndarray:
    """How far a die's top is drawn off its base (px): away from the frame centre, more under a more
    tilted camera, with a little noise."""
    return (c - size / 2) / size * r * 0.5 * (0.4 + tilt / 35) + rng.normal(0, r * 0.04, 2)


def render_scene(
    rng: np.random.Generator,
    specs: list[DieSpec],
    vocabulary: tuple[str, ...],
    *,
    size: int = 640,
    profile: str = "train",
    ppm: float | None = None,
    tilt_deg: float | None = None,
    surface: str | None = None,
    clutter: bool = True,
    hand: bool = False,
    glyph_dir: str | None = None,
    photo: bool = True,
    positions: list[tuple[float, float]] | None = None,
    px_scale: float | None = None,
) -> Scene:
    """Draw ``specs`` on a table; returns the image and each die's label geometry.

    ``px_scale``: pixels per pixel of a 640 px frame of the same table (default ``size / 640``):
    surface patterns, cards and hands keep their size on the table at any camera resolution.
    """
    if profile not in ("train", "heldout"):
        raise ValueError(f"profile must be 'train' or 'heldout', not {profile!r}")
    surfaces = TRAIN_SURFACES if profile == "train" else HELDOUT_SURFACES
    surface = surface or str(rng.choice(surfaces))
    ppm = ppm or float(rng.uniform(1.9, 3.2)) * size / 640
    tilt = _tilt(rng, profile) if tilt_deg is None else float(tilt_deg)
    scale = size / 640 if px_scale is None else float(px_scale)
    canvas = draw_surface(rng, size, size, surface, scale)
    if clutter:
        draw_clutter(rng, canvas, [], scale)
    light = np.array([np.cos(a := rng.uniform(0, 2 * np.pi)), np.sin(a)])
    placed: list[tuple[float, float, float]] = []
    flat = []
    for i, spec in enumerate(specs):
        r = spec.size_mm * ppm / 2
        if positions is not None:
            c = np.array(positions[i], float)
        else:
            c = free_spot(rng, r, size, placed, overlap=r * 0.6 if spec.cocked else None)
            if c is None:
                continue
            if spec.cocked and placed:  # lean against the nearest die
                near = min(placed, key=lambda p: np.hypot(*(c - p[:2])))
                d = c - near[:2]
                d /= np.linalg.norm(d) + 1e-6
                c = near[:2] + d * (near[2] + r) * 0.92
        placed.append((c[0], c[1], r))
        lean = die_lean(rng, c, r, size, tilt)
        body, top = draw_die(
            rng, canvas, spec, c, ppm, rng.uniform(0, 2 * np.pi), lean, light, vocabulary, glyph_dir
        )
        flat.append((spec, body, top))
    if hand:
        draw_hand(rng, canvas, scale)
    img, Hm = camera_view(rng, canvas, tilt)
    drawn = []
    for spec, body, top in flat:
        b, box = label_box(body, Hm, size)
        if box is None:
            continue  # not labelled (and not counted as a die)
        drawn.append(DrawnDie(spec, box, b, _warp_points(top, Hm)))
    if photo:
        img = photometric(rng, img, profile)
    return Scene(img, drawn, {"surface": surface, "tilt": tilt, "ppm": ppm, "profile": profile})
