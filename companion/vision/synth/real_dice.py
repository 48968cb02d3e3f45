"""Renders of real-looking dice: marbled plastic bodies in 3D, wearing an art family's faces.

What a camera over a real table sees (``../shared/vision/real-dice-appearance.md``): bevelled
dice of marbled two-colour plastic in the species' colours (some species plain ivory), one flat
ink colour that contrasts with the plastic, an oblique camera (30-60 degrees from straight down),
side faces in view, glare, a cast shadow, dice touching, blur, noise and JPEG.

* :func:`render_die_crop` -- one die as the run-time reader crops it (same framing as
  :func:`companion.vision.crops.crop_die`: the detector's box of the die's body, a square of the
  longer side x ``CROP_MARGIN``, with a small box jitter as from a real detector).
* :func:`render_table` -- a whole frame with several dice (some touching) and their boxes.
* :func:`place_face_picture` -- a player's picture of a face put onto a rendered body (enrolment
  from scans: ``companion vision enroll --art``).

Bodies are true convex solids seen through a pinhole camera: cubes for unit dice (d6), an
octahedron (d8, terrains), a kite-topped frustum (d10, monsters and artifacts; an approximation),
a dodecahedron (d12, dragons) and a truncated triangular pyramid (d4 items; an approximation).
Everything is deterministic given ``rng``; the art of a face comes from
:mod:`companion.vision.synth.art` (``family`` = art family id).

Speed (``python bench/render_art.py``): about 110 crops of 64 px per CPU second on one thread with
cold art caches (random dice and families), 150+ with warm caches; call ``cv2.setNumThreads(1)`` in
data-loader workers.  Caches (art masks) stay under about 200 MB per process.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import cv2
import numpy as np
from scipy.spatial import ConvexHull

from companion.rules.catalogue import DieKind
from companion.vision.crops import CROP_MARGIN, crop_die
from companion.vision.die_kinds import die_materials as _die_materials
from companion.vision.synth import art
from companion.vision.synth.scene import (
    HELDOUT_SURFACES,
    KIND_MM,
    MATERIAL_BGR,
    SIZE_MM,
    TRAIN_SURFACES,
    draw_clutter,
    draw_surface,
)

FACES_TO_KIND = {4: "d4", 6: "d6", 8: "d8", 10: "d10", 12: "d12", 20: "d20"}
SURFACES = TRAIN_SURFACES + HELDOUT_SURFACES
#: Tilt of the camera from straight down, degrees (issue 20: oblique cameras of 30-60 degrees).
TILT_RANGE = (30.0, 60.0)
#: The frame width the renders' die sizes model (a whole table in 1280 x 960): a ``resolution`` of 1, and
#: the scale every wider or narrower frame is measured against (``resolution`` = width / BASE_WIDTH).
BASE_WIDTH = 1280
#: Plastic colours beyond the element colours (BGR).
PLASTIC_BGR = dict(
    MATERIAL_BGR,
    Ivory=(180, 215, 228),
    Earth=(40, 175, 215),
    Air=(200, 120, 40),
    Death=(45, 40, 45),
    Water=(90, 150, 50),
    Fire=(40, 60, 210),
)


# --------------------------------------------------------------------------- solids


@dataclass(frozen=True)
class _Solid:
    verts: np.ndarray  # (N, 3) in units of the die's nominal size (mm / size_mm); bottom at z = 0
    faces: tuple[np.ndarray, ...]  # vertex index loops (counter-clockwise seen from outside)
    normals: np.ndarray  # (F, 3) outward unit normals
    top: int  # index of the face that points up (the face read)


def _hull_solid(verts: np.ndarray) -> _Solid:
    verts = np.asarray(verts, float)
    verts = verts - [verts[:, 0].mean(), verts[:, 1].mean(), verts[:, 2].min()]
    hull = ConvexHull(verts)
    groups: dict[tuple, list[int]] = {}
    for simplex, eq in zip(hull.simplices, hull.equations, strict=True):
        key = tuple(np.round(eq[:3], 4))
        groups.setdefault(key, []).extend(int(i) for i in simplex)
    faces, normals = [], []
    for key, idx in groups.items():
        n = np.array(key, float)
        n /= np.linalg.norm(n)
        ids = np.unique(idx)
        c = verts[ids].mean(0)
        u = verts[ids[0]] - c
        u /= np.linalg.norm(u)
        v = np.cross(n, u)
        ang = np.arctan2((verts[ids] - c) @ v, (verts[ids] - c) @ u)
        faces.append(ids[np.argsort(ang)])
        normals.append(n)
    normals = np.array(normals)
    return _Solid(verts, tuple(faces), normals, int(np.argmax(normals[:, 2])))


def _inradius(pts3: np.ndarray, c: np.ndarray, n: np.ndarray) -> float:
    """Distance from ``c`` to the nearest edge of the planar polygon ``pts3``."""
    best = np.inf
    for a, b in zip(pts3, np.roll(pts3, -1, 0), strict=True):
        e = (b - a) / (np.linalg.norm(b - a) + 1e-12)
        d = c - a
        best = min(best, float(np.linalg.norm(d - e * (d @ e))))
    return best


def _incentre(pts3: np.ndarray, n: np.ndarray) -> np.ndarray:
    """A point deep inside a convex face: the vertex mean moved toward the widest part."""
    c = pts3.mean(0)
    for _ in range(2):  # two steps of a crude search over nearby points
        cands = [c] + [c + (p - c) * 0.12 for p in pts3]
        c = max(cands, key=lambda q: _inradius(pts3, q, n))
    return c


def _face_up(verts: np.ndarray) -> np.ndarray:
    """Rotate a solid so that one of its faces points straight up."""
    hull = ConvexHull(verts)
    n = hull.equations[0, :3]
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(n, z)
    s, c = np.linalg.norm(axis), float(n @ z)
    if s < 1e-9:
        return verts if c > 0 else verts * [1, -1, -1]
    k = axis / s
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    R = np.eye(3) + K * s + K @ K * (1 - c)
    return verts @ R.T


@cache
def solid(kind: str) -> _Solid:
    """The body of a die kind, one nominal size across (x/y), resting on a face."""
    if kind == "d6":
        v = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (0, 1)], float)
        return _hull_solid(v)
    if kind == "d8":
        v = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
        v = _face_up(v)
        return _hull_solid(v / (np.ptp(v[:, 0]) or 1) * 0.95)
    if kind == "d12":
        p = (1 + 5**0.5) / 2
        v = [[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
        for a in (-1, 1):
            for b in (-1, 1):
                v += [[0, a / p, b * p], [a / p, b * p, 0], [a * p, 0, b / p]]
        v = _face_up(np.array(v, float))
        return _hull_solid(v / np.ptp(v[:, 0]))
    if kind == "d20":
        p = (1 + 5**0.5) / 2
        v = []
        for a in (-1, 1):
            for b in (-1, 1):
                v += [[0, a, b * p], [a, b * p, 0], [a * p, 0, b]]
        v = _face_up(np.array(v, float))
        return _hull_solid(v / np.ptp(v[:, 0]))
    if kind == "d10":  # pentagonal trapezohedron (kite faces); resting on one, the opposite one is up
        h = 1.05
        z0 = h * (1 - np.cos(np.pi / 5)) / (1 + np.cos(np.pi / 5))
        ring = [[np.cos(k * np.pi / 5), np.sin(k * np.pi / 5), z0 if k % 2 == 0 else -z0] for k in range(10)]
        v = _face_up(np.array([[0, 0, h], [0, 0, -h]] + ring, float))
        return _hull_solid(v / np.ptp(v[:, 0]))
    if kind == "d4t":  # a regular tetrahedron (standard d4), resting on a face
        v = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], float)
        v = _face_up(v) * [1, 1, -1]  # that face now points down: a corner is up
        return _hull_solid(v / np.ptp(v[:, 0]))
    if kind == "d4":  # truncated triangular pyramid (items; an approximation)
        a = np.radians(-90 + np.arange(3) * 120)
        top = np.c_[0.36 * np.cos(a), 0.36 * np.sin(a), np.full(3, 0.34)]
        bot = np.c_[0.6 * np.cos(a), 0.6 * np.sin(a), np.zeros(3)]
        return _hull_solid(np.vstack([top, bot]))
    raise art.ArtError(f"unknown die kind {kind!r} (known: d4, d6, d8, d10, d12, d20, d4t)")


@cache
def face_frames(kind: str) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray, float], ...]:
    """Per face of a solid (body units): (centre, u, v, half): the art square is centre +- half*u
    +- half*v; texture x runs along u, texture y along v."""
    s = solid(kind)
    out = []
    for loop, n in zip(s.faces, s.normals, strict=True):
        pts3 = s.verts[loop]
        c3 = pts3.mean(0)
        u = pts3[0] - c3
        u -= n * (u @ n)
        u /= np.linalg.norm(u) + 1e-9
        v = np.cross(n, u)
        if kind == "d6":
            half = float(np.min(np.abs((pts3 - c3) @ np.stack([u, v], 1)).max(0)) * 0.93)
        elif len(loop) == 3:
            half = float(min(np.linalg.norm(pts3 - c3, axis=1)) * 0.62)
        else:  # kites and pentagons: a square a little larger than the inscribed circle (clipped)
            c3 = _incentre(pts3, n)
            half = _inradius(pts3, c3, n) * (1.3 if len(loop) == 4 else 1.1)
        out.append((c3, u, v, half))
    return tuple(out)


# --------------------------------------------------------------------------- camera


@dataclass
class _Camera:
    tilt: float  # radians from straight down
    dist: float  # camera distance in mm (perspective strength)
    ppm: float  # pixels per mm at the focus point

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World mm (x right, y toward the camera, z up) -> image pixels relative to the focus."""
        ct, st = np.cos(self.tilt), np.sin(self.tilt)
        x = pts[..., 0]
        y = pts[..., 1] * ct - pts[..., 2] * st
        depth = pts[..., 1] * st + pts[..., 2] * ct  # toward the camera
        k = self.ppm * self.dist / (self.dist - depth)
        return np.stack([x * k, y * k], -1)

    @property
    def towards(self) -> np.ndarray:
        return np.array([0.0, np.sin(self.tilt), np.cos(self.tilt)])


def _rotz(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _rotx(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


# --------------------------------------------------------------------------- plastic


def _value_noise(rng, n: int, cells: int) -> np.ndarray:
    small = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(small, (n, n), interpolation=cv2.INTER_CUBIC)


@lru_cache(maxsize=1)
def _marble_pool() -> np.ndarray:
    """64 marble fields (128 x 128, values 0..1): swirled blotches by domain-warped noise."""
    rng = np.random.default_rng(20261126)
    out = np.empty((64, 128, 128), np.float32)
    yy, xx = np.mgrid[0:128, 0:128].astype(np.float32) / 128
    for k in range(64):
        w1, w2 = _value_noise(rng, 128, 4), _value_noise(rng, 128, 7)
        a = rng.uniform(0, np.pi)
        f = rng.uniform(1.5, 5)
        t = np.sin(((xx * np.cos(a) + yy * np.sin(a)) * f + w1 * rng.uniform(2, 5) + w2 * 1.5) * np.pi)
        blot = _value_noise(rng, 128, int(rng.integers(3, 7)))
        m = np.clip((t * 0.6 + (blot - 0.5) * 2.2) * rng.uniform(1.5, 4) + 0.5, 0, 1)
        if k % 2:  # thin swirled veins of the second colour through the first
            b = rng.uniform(0, np.pi)
            t2 = np.sin(
                ((xx * np.cos(b) + yy * np.sin(b)) * rng.uniform(2, 6) + w2 * rng.uniform(3, 7)) * np.pi
            )
            m = np.maximum(m, np.clip(1 - np.abs(t2) * rng.uniform(4, 9), 0, 1))
        out[k] = cv2.GaussianBlur(m, (0, 0), 1.0)
    return out


def _marble(rng, px: int, c1, c2, amount: float) -> np.ndarray:
    """A ``px`` x ``px`` float32 BGR patch of marbled plastic (``amount`` = share of the second colour)."""
    pool = _marble_pool()
    f = pool[int(rng.integers(len(pool)))]
    ox, oy = (int(v) for v in rng.integers(0, 64, 2))
    f = f[oy : oy + 64, ox : ox + 64]
    if rng.random() < 0.5:
        f = f.T
    f = cv2.resize(f, (px, px), interpolation=cv2.INTER_LINEAR)
    m = np.clip((f - (1 - amount)) * 3.5 + 0.5, 0, 1)[..., None]
    return np.asarray(c1, np.float32) * (1 - m) + np.asarray(c2, np.float32) * m


def _lum(bgr) -> float:
    b, g, r = (float(v) for v in bgr)
    return 0.114 * b + 0.587 * g + 0.299 * r


@dataclass
class DieLook:
    """What a die body looks like: plastic colours, ink colour, kind and size."""

    kind: str
    mm: float
    plastic: tuple[tuple[float, float, float], tuple[float, float, float]]
    marble: float  # share of the second plastic colour (0 = plain)
    ink: tuple[int, int, int]
    gloss: float  # 0 (matt) .. 1 (glossy)
    opacity: float = 1.0  # below 1: translucent plastic (the table shows through)
    wear: float = 0.0  # 0 (fresh ink) .. 0.5 (worn in patches)


def die_look(family: int, die, rng: np.random.Generator) -> DieLook:
    """Body of a catalogue die in art family ``family``: the species' two colours (or ivory)
    marbled, and an ink that contrasts with the plastic."""
    style = art.family_style(family)
    kind = FACES_TO_KIND[len(die.faces)]
    mm = float(SIZE_MM.get(die.size or "", 18) if kind == "d6" else KIND_MM.get(kind, 24))
    mats = _die_materials(die)
    ivory = style.ivory and die.kind in (DieKind.UNIT, DieKind.MONSTER)
    if ivory:
        mats = ("Ivory",)
    cols = [np.array(PLASTIC_BGR.get(m, (128, 128, 128)), np.float32) for m in mats]
    jit = rng.uniform(0.8, 1.15, 3).astype(np.float32)
    c1 = np.clip(cols[0] * jit, 0, 255)
    if len(cols) > 1:
        c2 = np.clip(cols[1] * rng.uniform(0.8, 1.15, 3), 0, 255)
        amount = float(rng.uniform(0.3, 0.5))
    else:  # one colour: marbled with a lighter or darker shade of itself
        c2 = np.clip(c1 * rng.uniform(0.55, 0.8) if _lum(c1) > 110 else c1 * 1.6 + 25, 0, 255)
        amount = float(rng.uniform(0.15, 0.45))
    if die.kind is DieKind.DRAGON:
        amount *= 0.3
    if rng.random() < 0.5:
        c1, c2 = c2, c1
        amount = 1 - amount if amount > 0.5 else amount
    inks = [np.array(c, np.float32) for c in art.INK_COLOURS.values()]

    def contrast(ink) -> float:  # the ink must stand out on both plastic colours (where there is marble)
        lums = [_lum(c1)] + ([_lum(c2)] if amount > 0.12 else [])
        return min(abs(_lum(ink) - v) for v in lums)

    ink = np.array(art.INK_COLOURS[style.ink], np.float32)
    if contrast(ink) < 70:  # the family's ink would vanish on this plastic: the best-contrast ink
        ink = max(inks, key=contrast)
    ink = np.clip(ink * rng.uniform(0.9, 1.05, 3), 0, 255)
    wear = float(rng.uniform(0, 0.5)) if rng.random() < 0.3 else 0.0
    return DieLook(
        kind,
        mm,
        (tuple(c1.tolist()), tuple(c2.tolist())),
        amount,
        tuple(int(v) for v in ink),
        float(rng.uniform(0.2, 1.0)),
        1.0,
        wear,
    )


# --------------------------------------------------------------------------- drawing a die


@lru_cache(maxsize=4096)
def _ink(family: int, die_name: str, face_index: int, px: int) -> np.ndarray:
    """The ink of a face (uint8 mask, ``px`` square), cached (at most 4096 x 16 kB)."""
    m = art.face_mask(family, die_name, face_index, 128)
    if px != 128:
        m = cv2.resize(m, (px, px), interpolation=cv2.INTER_AREA)
    m.setflags(write=False)
    return m


@dataclass
class _Placed:
    """A die put on the table: its body, look, pose and the art of each visible face."""

    look: DieLook
    art: list  # per solid face: (ink alpha float32 px x px) or BGR float32 picture or None
    pose: np.ndarray  # 3x3 rotation
    pos: np.ndarray  # world mm of the body's base centre


def _world(p: _Placed) -> np.ndarray:
    s = solid(p.look.kind)
    return (s.verts * p.look.mm) @ p.pose.T + p.pos


def _blend_patch(canvas: np.ndarray, patch: np.ndarray, alpha: np.ndarray, x: int, y: int) -> None:
    H, W = canvas.shape[:2]
    h, w = alpha.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x1 <= x0 or y1 <= y0:
        return
    a = alpha[y0 - y : y1 - y, x0 - x : x1 - x, None]
    region = canvas[y0:y1, x0:x1]
    region *= 1 - a
    region += patch[y0 - y : y1 - y, x0 - x : x1 - x] * a


def _draw_shadow(
    canvas, p: _Placed, cam: _Camera, light: np.ndarray, origin: np.ndarray, strength: float
) -> None:
    w = _world(p)
    flat = w - light[None, :] * (w[:, 2:3] / light[2])
    flat[:, 2] = 0
    pts = cam.project(flat) + origin
    hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
    x, y, bw, bh = cv2.boundingRect(hull.astype(np.int32))
    pad = int(p.look.mm * cam.ppm * 0.25) + 2
    x, y, bw, bh = x - pad, y - pad, bw + 2 * pad, bh + 2 * pad
    m = np.zeros((bh, bw), np.float32)
    cv2.fillPoly(m, [((hull - [x, y]) * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
    m = cv2.GaussianBlur(m, (0, 0), max(0.8, p.look.mm * cam.ppm * 0.08)) * strength
    _blend_patch(canvas, np.zeros((bh, bw, 3), np.float32), m, x, y)


def _draw_body(canvas, p: _Placed, cam: _Camera, light: np.ndarray, origin: np.ndarray, rng) -> np.ndarray:
    """Paint one die; returns its outline (image pixels)."""
    s = solid(p.look.kind)
    w = _world(p)
    img = cam.project(w) + origin
    normals = s.normals @ p.pose.T
    hull = cv2.convexHull(img.astype(np.float32)).reshape(-1, 2)
    x, y, bw, bh = cv2.boundingRect(hull.astype(np.int32))
    x, y, bw, bh = x - 2, y - 2, bw + 4, bh + 4
    size_px = p.look.mm * cam.ppm
    c1, c2 = p.look.plastic
    # one sheet of marbled plastic per die: faces are windows of it, the body a scaled copy
    tpx = int(np.clip(size_px * 1.2, 16, 128))
    sheet = _marble(rng, 2 * tpx, c1, c2, p.look.marble)
    # the body (bevels and anything between faces): plastic a little darker than the faces
    body = cv2.resize(sheet, (max(bw, bh), max(bw, bh)), interpolation=cv2.INTER_LINEAR)[:bh, :bw] * 0.7
    alpha = np.zeros((bh, bw), np.float32)
    cv2.fillPoly(alpha, [((hull - [x, y]) * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
    layer = body
    towards = cam.towards
    frames = face_frames(p.look.kind)
    edges = []
    for fi, loop in enumerate(s.faces):
        n = normals[fi]
        facing = float(n @ towards)
        if facing <= 0.02:
            continue
        pts3 = w[loop]
        poly = cam.project(pts3) + origin - [x, y]
        edges.append(poly)
        shade = 0.55 + 0.45 * max(0.0, float(n @ light)) + 0.1 * facing
        # texture square on the face plane
        fc, fu, fv, half = frames[fi]
        c3 = (fc * p.look.mm) @ p.pose.T + p.pos
        u, v = p.pose @ fu, p.pose @ fv
        sq3 = c3 + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) @ np.stack([u, v]) * half * p.look.mm
        sq = (cam.project(sq3) + origin - [x, y]).astype(np.float32)
        ox, oy = (int(v) for v in rng.integers(0, tpx + 1, 2))
        tex = sheet[oy : oy + tpx, ox : ox + tpx].copy()
        a = p.art[fi] if fi < len(p.art) else None
        if a is not None:
            if a.ndim == 2:
                ia = cv2.resize(a, (tpx, tpx), interpolation=cv2.INTER_AREA)
                if ia.dtype == np.uint8:
                    ia = ia.astype(np.float32) / 255
                if p.look.wear > 0:  # worn paint: the ink thins in patches
                    pool = _marble_pool()
                    ia = ia * (1 - p.look.wear * cv2.resize(pool[int(rng.integers(len(pool)))], (tpx, tpx)))
                tex = tex * (1 - ia[..., None]) + np.asarray(p.look.ink, np.float32) * ia[..., None]
            else:
                tex = cv2.resize(a, (tpx, tpx), interpolation=cv2.INTER_AREA)
        tex *= shade
        src = np.array([[0, 0], [tpx, 0], [tpx, tpx], [0, tpx]], np.float32)
        Hm = cv2.getPerspectiveTransform(src, sq)
        # plain plastic beyond the art square: a big marble canvas under the face polygon
        fm = np.zeros((bh, bw), np.float32)
        cv2.fillPoly(fm, [(poly * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
        plain = cv2.warpPerspective(tex, Hm, (bw, bh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        # the warp is read only where the face is (fm > 0) and where it is defined: a face seen nearly
        # edge-on has its plane's vanishing line inside the box, and at a pixel centre on that line
        # cv2.warpPerspective returns NaN or inf (0 * inf is NaN), which the blurs below spread into the
        # crop; a face exactly edge-on is a sliver on that line.  Elsewhere the layer stays as it is
        # (as multiplying by fm = 0 left it: renders without such a pixel are unchanged to the byte)
        on = (fm > 0) & np.isfinite(plain).all(2)
        f = fm[on][:, None]
        layer[on] = layer[on] * (1 - f) + plain[on] * f
    # rounded edges: along every edge the two faces blend (a bevel), the edges of the face turned to
    # the camera catch a rim of light, and the outline's corners are rounded
    bevel = max(1.0, size_px * 0.06)
    band = np.zeros((bh, bw), np.float32)
    cv2.polylines(
        band,
        [(e * 4).astype(np.int32) for e in edges],
        True,
        1.0,
        max(1, int(round(bevel))),
        cv2.LINE_AA,
        shift=2,
    )
    band = cv2.GaussianBlur(band, (0, 0), bevel * 0.5)[..., None]
    layer = layer * (1 - band) + cv2.GaussianBlur(layer, (0, 0), bevel * 0.8) * band
    if edges:
        rim = np.zeros((bh, bw), np.float32)
        front = edges[
            int(
                np.argmax(
                    [
                        float(normals[i] @ towards)
                        for i in range(len(s.faces))
                        if float(normals[i] @ towards) > 0.02
                    ]
                )
            )
        ]
        cv2.polylines(
            rim,
            [(front * 4).astype(np.int32)],
            True,
            1.0,
            max(1, int(round(bevel * 0.6))),
            cv2.LINE_AA,
            shift=2,
        )
        rim = (
            cv2.GaussianBlur(rim, (0, 0), bevel * 0.4) * (40 + 60 * p.look.gloss) * float(rng.uniform(0.3, 1))
        )
        layer = layer + rim[..., None]
    alpha = cv2.GaussianBlur(alpha, (0, 0), max(0.5, bevel * 0.35))
    if p.look.opacity < 1:  # translucent: the table shows through, light gathers inside
        glow = cv2.GaussianBlur(alpha, (0, 0), size_px * 0.15)
        layer = layer * (0.85 + 0.4 * glow[..., None])
        alpha = alpha * p.look.opacity
    # gloss: a specular spot on a face turned toward the light, and bright bevel rims
    if p.look.gloss > 0.3 and rng.random() < 0.7:
        top = s.faces[int(np.argmax(normals @ towards))]
        cpt = cam.project(w[top].mean(0)) + origin - [x, y]
        off = rng.normal(0, 0.25, 2) * size_px
        spot = np.zeros((bh, bw), np.float32)
        ax = (max(1, int(size_px * rng.uniform(0.05, 0.2))), max(1, int(size_px * rng.uniform(0.03, 0.1))))
        cv2.ellipse(
            spot,
            (int(cpt[0] + off[0]), int(cpt[1] + off[1])),
            ax,
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
            cv2.LINE_AA,
        )
        spot = cv2.GaussianBlur(spot, (0, 0), max(0.7, size_px * 0.04)) * p.look.gloss * rng.uniform(0.3, 0.8)
        layer = layer + spot[..., None] * 255
    np.clip(layer, 0, 255, out=layer)
    _blend_patch(canvas, layer, alpha, x, y)
    return hull


def _photo(rng, img: np.ndarray) -> np.ndarray:
    """Camera effects on a float canvas: exposure, colour cast, blur, noise, JPEG; returns uint8 BGR."""
    f = img * float(rng.uniform(0.75, 1.2)) * rng.uniform(0.88, 1.12, 3).astype(np.float32)
    sigma = float(rng.uniform(0, 1.0))
    if sigma > 0.3:
        f = cv2.GaussianBlur(f, (0, 0), sigma)
    if rng.random() < 0.12:  # a shaken camera or a die still rolling: motion blur along a line
        n = int(rng.integers(3, 7))
        k = np.zeros((n, n), np.float32)
        a = rng.uniform(0, np.pi)
        c = (n - 1) / 2
        cv2.line(
            k,
            (int(round(c - np.cos(a) * c)), int(round(c - np.sin(a) * c))),
            (int(round(c + np.cos(a) * c)), int(round(c + np.sin(a) * c))),
            1.0,
            1,
        )
        f = cv2.filter2D(f, -1, k / k.sum())
    f += rng.standard_normal(f.shape, dtype=np.float32) * float(rng.uniform(0, 6))
    out = np.clip(f, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 96))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _light(rng) -> np.ndarray:
    a = rng.uniform(0, 2 * np.pi)
    el = rng.uniform(np.radians(35), np.radians(75))
    return np.array([np.cos(a) * np.cos(el), np.sin(a) * np.cos(el), np.sin(el)])


def _pose(rng, cocked: bool) -> np.ndarray:
    R = _rotz(float(rng.uniform(0, 2 * np.pi)))
    if cocked:  # resting on an edge / against another die: the read face tilted 20-40 degrees
        R = R @ _rotx(float(rng.uniform(np.radians(20), np.radians(40))) * float(rng.choice([-1, 1])))
        R = _rotz(float(rng.uniform(0, 2 * np.pi))) @ R
    else:  # a flat die on a real table (a card edge, a warped mat) sits up to 3 degrees off level
        R = R @ _rotx(float(np.clip(rng.normal(0, np.radians(1.2)), -np.radians(3), np.radians(3))))
    return R


def _placed(family: int, die, face_index: int, rng, cocked: bool, ppm: float) -> _Placed:
    look = die_look(family, die, rng)
    s = solid(look.kind)
    px = int(np.clip(look.mm * ppm * 1.2, 16, 128))
    px = 1 << int(np.ceil(np.log2(px)))  # a few texture sizes only, so the art cache stays small
    arts: list = [None] * len(s.faces)
    arts[s.top] = _ink(family, die.name, int(face_index), min(px, 128))
    others = [j for j in range(len(die.faces)) if j != face_index]
    order = rng.permutation(len(others))
    for k, fi in enumerate(i for i in range(len(s.faces)) if i != s.top):
        arts[fi] = _ink(family, die.name, others[order[k % len(others)]], min(px, 128)) if others else None
    pose = _pose(rng, cocked)
    return _Placed(look, arts, pose, np.zeros(3))


def _settle(p: _Placed) -> None:
    """Put the lowest point of the body on the table."""
    w = _world(p)
    p.pos = p.pos - [0, 0, w[:, 2].min()]


def _extent(p: _Placed) -> float:
    """Half-width of a die on the table (the farthest point of its body from its centre line)."""
    w = _world(p) - p.pos
    return float(np.linalg.norm(w[:, :2], axis=1).max())


def _overlap(a: _Placed, b: _Placed) -> bool:
    return float(np.linalg.norm((a.pos - b.pos)[:2])) < 0.72 * (_extent(a) + _extent(b))


def _clash(centre, p: _Placed, other: list, ppm: float, tilt: float) -> bool:
    """Whether die ``p`` drawn at image point ``centre`` would pass through ``other`` (a placed
    ``[die, image centre, ...]``), judged on the table as ``_overlap`` judges (the image offset taken
    back to the table: y was foreshortened by the tilt)."""
    dx, dy = np.asarray(centre, float) - np.asarray(other[1], float)
    apart = np.hypot(dx / ppm, dy / (ppm * np.cos(np.radians(tilt))))
    return bool(apart < 0.72 * (_extent(p) + _extent(other[0])))


def _touch(main: _Placed, q: _Placed, rng, gap: float) -> None:
    """Move ``q`` so that it touches ``main`` (``gap`` = a fraction of the dice's size between them).
    Two flat cubes meet face to face (``q`` turned like ``main``); other bodies meet at their
    widest points, so that they never pass through each other."""
    cubes = main.look.kind == q.look.kind == "d6" and main.pose[2, 2] > 0.99 and q.pose[2, 2] > 0.99
    if cubes:
        yaw = float(np.arctan2(main.pose[1, 0], main.pose[0, 0])) + float(rng.normal(0, np.radians(4)))
        q.pose = _rotz(yaw) @ _rotz(float(rng.integers(4)) * np.pi / 2)
        side = float(rng.integers(4)) * np.pi / 2 + yaw
        d = np.array([np.cos(side), np.sin(side), 0.0])
        t = np.array([-d[1], d[0], 0.0])
        reach = (main.look.mm + q.look.mm) / 2 * (1.0 + gap)
        slide = float(rng.uniform(-0.35, 0.35)) * min(main.look.mm, q.look.mm)
        q.pos = main.pos * [1, 1, 0] + d * reach + t * slide
    else:
        a = rng.uniform(0, 2 * np.pi)
        reach = (_extent(main) + _extent(q)) * (0.92 + gap)
        q.pos = main.pos * [1, 1, 0] + np.array([np.cos(a), np.sin(a), 0.0]) * reach
    _settle(q)


def _catalogue_die(die_name: str, face_index: int):
    die, _ = art.die_face(die_name, face_index)
    return die


@lru_cache(maxsize=64)
def _species_dice(species: str | None) -> tuple:
    cat = art._catalogue()
    return cat.of_species(species) if species else cat.dice


def _random_neighbour(rng, species: str | None = None):
    """A die that might lie beside one of ``species``: most often one of the same army."""
    dice = _species_dice(species if species and rng.random() < 0.7 else None)
    return dice[int(rng.integers(len(dice)))]


def _scene_shot(
    rng,
    family: int,
    main: _Placed,
    size: int,
    neighbours: list[_Placed],
    cam: _Camera,
    light: np.ndarray,
    box_jitter: float = 0.03,
) -> tuple[np.ndarray, float]:
    """Draw ``main`` (at the world origin) and its neighbours on a table and crop like the reader: the
    crop, and the longest side (px) of the box it was cut from, in the frame."""
    w = _world(main)
    pts = cam.project(w)
    lo, hi = pts.min(0), pts.max(0)
    side = float(max(hi - lo)) * CROP_MARGIN * 1.25 + 8
    W = int(np.ceil(side))
    origin = np.array([W / 2, W / 2]) - (lo + hi) / 2
    surface = SURFACES[int(rng.integers(len(SURFACES)))]
    canvas = draw_surface(rng, W, W, surface, max(0.3, cam.ppm / 3)).astype(np.float32)
    everyone = neighbours + [main]
    strength = float(rng.uniform(0.35, 0.65))
    for q in everyone:
        _draw_shadow(canvas, q, cam, light, origin, strength)
    depth = [float((_world(q).mean(0)) @ cam.towards) for q in everyone]
    outline = None
    for i in np.argsort(depth):
        o = _draw_body(canvas, everyone[i], cam, light, origin, rng)
        if everyone[i] is main:
            outline = o
    img = _photo(rng, canvas)
    x1, y1 = outline.min(0)
    x2, y2 = outline.max(0)
    wh = np.array([x2 - x1, y2 - y1])
    box = np.array([x1, y1, x2, y2]) + rng.normal(0, box_jitter, 4) * np.tile(wh, 2)
    return crop_die(img, box, size, CROP_MARGIN), float(max(box[2] - box[0], box[3] - box[1]))


def _check_resolution(resolution: float) -> None:
    """A camera resolution against the 1280 px frame the renders' die sizes model, or ArtError."""
    if not (0.25 <= float(resolution) <= 8.0):
        raise art.ArtError(
            f"resolution {resolution!r} is outside 0.25-8 (the camera's pixels against 1280 px)"
        )


def _camera(rng, ppm: float) -> _Camera:
    return _Camera(np.radians(rng.uniform(*TILT_RANGE)), float(rng.uniform(250, 700)), ppm)


def render_die_crop(
    family: int,
    die_name: str,
    face_index: int,
    rng: np.random.Generator,
    size: int = 64,
    cocked: bool = False,
    *,
    box_jitter: float = 0.03,
    resolution: float = 1.0,
) -> np.ndarray:
    """One die of art family ``family`` showing face ``face_index`` up, as the reader crops it.

    Returns a ``size`` x ``size`` BGR uint8 crop framed like :func:`companion.vision.crops.crop_die`
    (box = the die body's outline in the frame, each side moved by a normal jitter of
    ``box_jitter`` x the box's size, as a detector's box; margin ``CROP_MARGIN``).  The die's
    pixel size in the camera frame varies (about 24-90 px across, log-uniform), then the crop is
    resized to ``size``, so detail is lost as on a real camera.  Camera tilt 30-60 degrees, random yaw, light, table, sometimes one or two touching
    neighbours; a flat die sits at most 3 degrees off level; ``cocked=True`` tips the die 20-40
    degrees onto an edge (its read face not up), most often leaning against another die under its
    raised side.
    Deterministic given ``rng``.  Raises :class:`companion.vision.synth.art.ArtError` naming a bad
    family, die name or face index.  ``resolution``: the camera's pixels against the 1280 px frame the
    die sizes model (2.0: the die twice as many pixels across), as for ``render_polyhedral_crop``.
    """
    _check_resolution(resolution)
    art.family_style(family)
    die = _catalogue_die(die_name, face_index)
    if int(size) < 8:
        raise art.ArtError(f"crop size {size} is too small (at least 8 pixels)")
    target_px = float(np.exp(rng.uniform(np.log(24), np.log(90)))) * float(resolution)
    kind = FACES_TO_KIND[len(die.faces)]
    mm = float(SIZE_MM.get(die.size or "", 18) if kind == "d6" else KIND_MM.get(kind, 24))
    ppm = target_px / mm
    cam = _camera(rng, ppm)
    light = _light(rng)
    main = _placed(family, die, face_index, rng, cocked, ppm)
    _settle(main)
    neighbours = []
    if cocked and rng.random() < 0.7:  # leaning against another die under its raised side
        up = main.pose @ solid(main.look.kind).normals[solid(main.look.kind).top]
        raised = -np.array([up[0], up[1], 0.0]) / (np.hypot(up[0], up[1]) + 1e-9)
        nd = _random_neighbour(rng, die.species)
        q = _placed(family, nd, int(rng.integers(len(nd.faces))), rng, False, ppm)
        q.pose = _rotz(float(np.arctan2(raised[1], raised[0])) + float(rng.normal(0, 0.1)))
        reach = float(((_world(main) - main.pos) @ raised).max())
        near = float(-((_world(q) - q.pos) @ raised).min())
        q.pos = main.pos * [1, 1, 0] + raised * (reach + near)
        _settle(q)
        neighbours.append(q)
    for _ in range(int(rng.choice([0, 0, 1, 1, 2])) - len(neighbours)):
        nd = _random_neighbour(rng, die.species)
        j = int(rng.integers(len(nd.faces)))
        q = _placed(family, nd, j, rng, bool(rng.random() < 0.15), ppm)
        _touch(main, q, rng, float(rng.uniform(0.0, 0.2)))
        if not any(_overlap(q, o) for o in neighbours):
            neighbours.append(q)
    return _scene_shot(rng, family, main, int(size), neighbours, cam, light, float(box_jitter))[0]


def render_table(
    family_by_species: dict[str, int],
    dice: list[tuple[str, int]],
    rng: np.random.Generator,
    width: int = BASE_WIDTH,
    height: int = 960,
    clutter: bool = False,
) -> tuple[np.ndarray, list[dict]]:
    """A camera frame of a table with ``dice`` (``(die_name, face_index)`` pairs) on it.

    ``family_by_species`` maps a species ("Dwarves"; for dice of no species the first part of the
    name: "Dragons", "Terrains", "Items") to its art family; a species missing from it is an error
    (:class:`ArtError`), so art is never mixed silently.  Dice are laid out on a jittered grid,
    about a third of them touching a neighbour; an entry with a truthy third element
    ``(name, face, True)`` is cocked.  Dice farther from the camera (higher in the frame) are a
    little smaller.  ``clutter``: cards and cloth banners lie on the table under the dice (as
    ``scene.draw_clutter`` draws them on the procedural scenes); without it the frame is drawn from the
    same random numbers as before the option existed.
    Returns ``(frame BGR uint8, labels)``; each label is ``{"box": [x1, y1, x2, y2], "die": name,
    "face_index": i, "cocked": bool}`` (the box of the die's body outline, in pixels).
    """
    entries = []
    for item in dice:
        name, face_index = item[0], item[1]
        cocked = bool(item[2]) if len(item) > 2 else False
        die = _catalogue_die(name, face_index)
        group = die.species or die.name.split("/", 1)[0]
        if group not in family_by_species:
            raise art.ArtError(f"no art family given for {group!r} (die {die.name!r})")
        entries.append((die, int(face_index), cocked, int(family_by_species[group])))

    def place(k: int, ppm: float, cam: _Camera) -> _Placed:
        die, j, cocked, fam = entries[k]
        return _placed(fam, die, j, rng, cocked, ppm)

    def label(k: int) -> dict:
        die, j, cocked, _ = entries[k]
        return {"die": die.name, "face_index": j, "cocked": cocked}

    return _table_frame(len(entries), place, label, rng, width, height, clutter)


def render_standard_table(
    dice: list[tuple],
    rng: np.random.Generator,
    width: int = BASE_WIDTH,
    height: int = 960,
    clutter: bool = False,
) -> tuple[np.ndarray, list[dict]]:
    """A camera frame of a table of standard dice, laid out as :func:`render_table` lays out Dragon Dice.

    ``dice``: ``(kind, value, style_seed)`` triples (``(kind, value, style_seed, True)``: cocked), the
    value as read, 1..sides (a d10's 10 is printed "0", as ``standard_styles.render_value_shot`` prints
    it), each die drawn as :func:`render_polyhedral_shot` draws it in the style of ``style_seed`` (its numeral
    upright as the camera sees it: the up face of a d20 is the one facing the top of the image).
    Returns ``(frame BGR uint8, labels)``; each label is ``{"box": [x1, y1, x2, y2], "kind": "d20",
    "value": 17, "style": seed, "cocked": bool}``.  A bad kind or a value the die does not have is an
    :class:`ArtError` naming it, before anything is drawn."""
    entries = []
    for item in dice:
        kind, value, style_seed = str(item[0]), int(item[1]), int(item[2])
        if kind in POLY_VALUES and not 1 <= value <= len(POLY_VALUES[kind]):
            raise art.ArtError(f"a {kind} has no value {value!r} (values 1..{len(POLY_VALUES[kind])})")
        _check_standard(kind, printed_value(kind, value))  # an unknown kind
        entries.append((kind, value, style_seed, bool(item[3]) if len(item) > 3 else False))

    def place(k: int, ppm: float, cam: _Camera) -> _Placed:
        kind, value, style_seed, cocked = entries[k]
        # the table's scale is the frame's; the die's own camera only sets its numeral upright
        return _standard_placed(kind, printed_value(kind, value), poly_style(style_seed), rng, cam, cocked)

    def label(k: int) -> dict:
        kind, value, style_seed, cocked = entries[k]
        return {"kind": kind, "value": value, "style": style_seed, "cocked": cocked}

    return _table_frame(len(entries), place, label, rng, width, height, clutter)


def _table_frame(
    n: int, place, label, rng, width: int, height: int, clutter: bool
) -> tuple[np.ndarray, list[dict]]:
    """The frame of :func:`render_table`: ``place(k, ppm, cam)`` puts die ``k`` of ``n`` on the table,
    ``label(k)`` says what it is (the box is added)."""
    tilt = float(rng.uniform(*TILT_RANGE))
    ppm = float(rng.uniform(2.2, 3.4)) * width / BASE_WIDTH
    cam = _Camera(np.radians(tilt), float(rng.uniform(500, 900)), ppm)
    light = _light(rng)
    surface = SURFACES[int(rng.integers(len(SURFACES)))]
    canvas = draw_surface(rng, height, width, surface, width / 640)
    if clutter:
        draw_clutter(rng, canvas, [], width / 640)
    canvas = canvas.astype(np.float32)
    cols = max(1, int(np.ceil(np.sqrt(n * width / height))))
    rows = max(1, int(np.ceil(n / cols)))
    cell = np.array([width / cols, height / rows])
    placed = []
    for k in range(n):
        p = place(k, ppm, cam)
        _settle(p)
        r, c = divmod(k, cols)
        centre = (np.array([c + 0.5, r + 0.5]) + rng.uniform(-0.2, 0.2, 2)) * cell
        placed.append([p, centre, k])
    # about a third of the dice are pushed against their left-hand neighbour so that they touch
    for k in range(n - 1):
        if rng.random() < 0.33 and (k + 1) % cols != 0:
            a, b = placed[k], placed[k + 1]
            a[0].pos = np.zeros(3)
            _settle(a[0])
            _touch(a[0], b[0], rng, 0.01)
            off = b[0].pos.copy()
            b[0].pos = np.array([0.0, 0.0, b[0].pos[2]])
            # world offset on the table -> image offset near a's centre (y foreshortened by the tilt)
            moved = a[1] + np.array([off[0], off[1] * np.cos(np.radians(tilt))]) * ppm
            # the side b meets a on is drawn at random, so in a row of touching dice b can land on a
            # die before a: then b keeps its own place (two bodies never pass through each other)
            if not any(
                _clash(moved, b[0], other, ppm, tilt) for m, other in enumerate(placed) if m not in (k, k + 1)
            ):
                b[1] = moved
    labels, outlines = [], []
    order = np.argsort([pc[1][1] for pc in placed])  # far (top of the frame) first
    strength = float(rng.uniform(0.35, 0.6))
    # perspective over the frame: dice near the top of the frame are farther, so smaller
    persp = 0.5 * np.sin(np.radians(tilt))

    def cam_at(centre) -> _Camera:
        return _Camera(cam.tilt, cam.dist, ppm * (1 + persp * (centre[1] / height - 0.5)))

    for p, centre, *_ in placed:
        _draw_shadow(canvas, p, cam_at(centre), light, centre, strength)
    for i in order:
        p, centre, _k = placed[i]
        outlines.append((i, _draw_body(canvas, p, cam_at(centre), light, centre, rng)))
    img = _photo(rng, canvas)
    by_index = dict(outlines)
    for i, (_p, _c, k) in enumerate(placed):
        o = by_index[i]
        x1, y1 = np.clip(o.min(0), 0, [width, height])
        x2, y2 = np.clip(o.max(0), 0, [width, height])
        if x2 - x1 < 2 or y2 - y1 < 2:
            continue
        labels.append({"box": [round(float(v), 2) for v in (x1, y1, x2, y2)], **label(k)})
    return img, labels


def place_face_picture(
    picture: np.ndarray,
    kind: str,
    rng: np.random.Generator,
    size: int = 64,
    *,
    plastic: tuple[int, int, int] | None = None,
) -> np.ndarray:
    """Put a player's picture of one face (a scan or photo of any size: BGR, BGRA or grey) onto a
    rendered die body of ``kind`` ("d4".."d12") seen obliquely, and crop it like the reader.

    The picture should show the face cropped to its edges.  The plastic colour is ``plastic`` (BGR)
    when given, else the median of the picture's border (the plastic around the printed art); it
    is marbled a little, side faces are plain plastic.  Returns a ``size`` x ``size`` BGR uint8 crop.
    Raises :class:`ArtError` for an empty picture or an unknown kind.
    """
    pic = np.asarray(picture)
    if pic.size == 0 or pic.ndim not in (2, 3) or min(pic.shape[:2]) < 4:
        raise art.ArtError(f"face picture of shape {pic.shape} is empty or too small")
    if pic.ndim == 2:
        pic = cv2.cvtColor(pic, cv2.COLOR_GRAY2BGR)
    elif pic.shape[2] == 4:
        a = pic[..., 3:4].astype(np.float32) / 255
        pic = (pic[..., :3] * a + 128 * (1 - a)).astype(np.uint8)
    pic = pic[..., :3].astype(np.float32)
    s = solid(kind)
    border = np.concatenate([pic[0], pic[-1], pic[:, 0], pic[:, -1]])
    c1 = np.median(border, 0) if plastic is None else np.asarray(plastic, np.float32)[:3]
    c2 = np.clip(c1 * rng.uniform(0.7, 0.9), 0, 255)
    mm = float(SIZE_MM["Medium"] if kind == "d6" else KIND_MM.get(kind, 24))
    ppm = float(rng.uniform(22, 80)) / mm
    look = DieLook(
        kind,
        mm,
        (tuple(c1.tolist()), tuple(c2.tolist())),
        float(rng.uniform(0.05, 0.25)),
        (255, 255, 255),
        float(rng.uniform(0.2, 1.0)),
    )
    px = int(np.clip(mm * ppm * 1.2, 16, 128))
    arts: list = [None] * len(s.faces)
    side = max(pic.shape[:2])
    square = cv2.copyMakeBorder(
        pic,
        (side - pic.shape[0]) // 2,
        (side - pic.shape[0] + 1) // 2,
        (side - pic.shape[1]) // 2,
        (side - pic.shape[1] + 1) // 2,
        cv2.BORDER_REPLICATE,
    )
    arts[s.top] = cv2.resize(square, (px, px), interpolation=cv2.INTER_AREA)
    p = _Placed(look, arts, _pose(rng, False), np.zeros(3))
    _settle(p)
    return _scene_shot(rng, 0, p, int(size), [], _camera(rng, ppm), _light(rng))[0]


# --------------------------------------------------------------------------- standard (polyhedral) dice

#: Values of the standard dice (a d10 shows 0-9; its "0" is read as 10 by most players).
POLY_VALUES = {
    "d4": tuple(range(1, 5)),
    "d6": tuple(range(1, 7)),
    "d8": tuple(range(1, 9)),
    "d10": tuple(range(0, 10)),
    "d12": tuple(range(1, 13)),
    "d20": tuple(range(1, 21)),
}
_PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


#: A standard die's size, mm (across its body).
STANDARD_MM = {"d4": 20.0, "d6": 16.0, "d8": 18.0, "d10": 18.0, "d12": 20.0, "d20": 21.0}


@dataclass(frozen=True)
class PolyStyle:
    """The look of one set of standard dice (from ``style_seed``)."""

    plastic: str  # "opaque", "marbled", "translucent"
    colours: tuple[tuple[float, float, float], tuple[float, float, float]]
    ink: tuple[int, int, int]
    font: int
    pips: bool  # a d6 with pips (else numerals)
    numeral_size: float


def poly_style(style_seed: int) -> PolyStyle:
    r = np.random.default_rng([int(style_seed), 20])
    plastic = str(r.choice(["opaque", "marbled", "translucent"]))
    c1 = r.uniform(20, 240, 3)
    c2 = np.clip(c1 * r.uniform(0.4, 1.6, 3) if r.random() < 0.6 else r.uniform(20, 240, 3), 0, 255)
    inks = [np.array(c, float) for c in art.INK_COLOURS.values()] + [np.array([20.0, 20.0, 20.0])]
    ink = max(inks, key=lambda c: abs(_lum(c) - _lum(c1)) + r.uniform(0, 30))
    return PolyStyle(
        plastic,
        (tuple(c1.tolist()), tuple(c2.tolist())),
        tuple(int(v) for v in ink),
        int(art.FONTS[int(r.integers(len(art.FONTS) - 1))]),
        bool(r.random() < 0.7),
        float(r.uniform(0.5, 0.7)),
    )


def _numeral_mask(
    value: int, kind: str, px: int, style: PolyStyle, turn: float, scale: float = 1.0
) -> np.ndarray:
    """Ink of one standard-die face: pips (d6 with pips) or the numeral, turned ``turn`` degrees."""
    m = np.zeros((px, px), np.uint8)
    if kind == "d6" and style.pips:
        r = max(1, int(px * 0.09))
        for dx, dy in _PIPS[int(value)]:
            cv2.circle(
                m, (int(px / 2 + dx * px * 0.26), int(px / 2 + dy * px * 0.26)), r, 255, -1, cv2.LINE_AA
            )
    else:
        text = str(int(value))
        h = px * style.numeral_size * scale * (0.8 if len(text) > 1 else 1.0)
        thick = max(1, int(round(h / 7)))
        fs = cv2.getFontScaleFromHeight(style.font, max(4, int(h)), thick)
        (tw, th), _ = cv2.getTextSize(text, style.font, fs, thick)
        org = (int(px / 2 - tw / 2), int(px / 2 + th / 2))
        cv2.putText(m, text, org, style.font, fs, 255, thick, cv2.LINE_AA)
        if text in ("6", "9"):  # the underline that tells 6 from 9
            y = int(px / 2 + th / 2 + max(2, thick * 1.5))
            cv2.line(m, (int(px / 2 - tw / 2), y), (int(px / 2 + tw / 2), y), 255, thick, cv2.LINE_AA)
    if turn:
        M = cv2.getRotationMatrix2D((px / 2, px / 2), -turn, 1.0)
        m = cv2.warpAffine(m, M, (px, px), flags=cv2.INTER_LINEAR)
    return m.astype(np.float32) / 255


def _upright_turn(cam: _Camera, pose: np.ndarray, frame) -> float:
    """Degrees to turn a face's art (in texture space) so that its top points to the image top."""
    _, u, v, _ = frame
    ju = cam.project((pose @ u)[None] * 1.0 + [0, 0, 0.0])[0] - cam.project(np.zeros((1, 3)))[0]
    jv = cam.project((pose @ v)[None] * 1.0)[0] - cam.project(np.zeros((1, 3)))[0]
    J = np.stack([ju, jv], 1)
    d = np.linalg.solve(J, np.array([0.0, -1.0]))  # texture direction that appears as "up" in the image
    return float(np.degrees(np.arctan2(d[0], -d[1])))


def render_polyhedral_crop(*args, **kwargs) -> np.ndarray:
    """:func:`render_polyhedral_shot`'s crop alone (the same arguments, the same draws)."""
    return render_polyhedral_shot(*args, **kwargs)[0]


def render_polyhedral_shot(
    kind: str,
    value: int,
    rng: np.random.Generator,
    style_seed: int = 0,
    size: int = 64,
    *,
    cocked: bool = False,
    resolution: float = 1.0,
) -> tuple[np.ndarray, float]:
    """A standard die (``kind`` "d4", "d6", "d8", "d10", "d12" or "d20") showing ``value``, as the
    reader crops it: seen obliquely (camera 30-60 degrees from straight down), on a table.

    The value is the face pointing straight up, and its numeral is printed upright as seen by the
    camera (turned up to +-25 degrees), so the up face of a d20 is the one whose numeral faces the
    top of the image; side faces show other values.  A d4 shows its value at the top corner of
    every face (as real d4s do).  ``style_seed`` picks the set's look: opaque, marbled or
    translucent plastic, ink colour, font, pips or numerals on the d6.  ``cocked=True`` then tips
    the die 20-40 degrees onto an edge, as ``render_die_crop`` does (the same draws as a flat die
    until then: a flat die renders as before).  Deterministic given ``rng``.  Raises
    :class:`ArtError` for an unknown kind or a value the die does not have.

    The die is 26-90 px across (log-uniform), as in a 1280 px frame of a whole table; ``resolution``
    is the camera's against that frame (2.0: a 2560 px frame of the same view, so the die is twice as
    many pixels across before the crop is resized to ``size``).  The draws up to the die's pose do not
    depend on it; the table under the die is drawn at the frame's scale, so later draws may.

    Returns the crop and the longest side in px of the box it was cut from in the frame (the size a
    reader knows of a die it boxed).
    """
    _check_resolution(resolution)
    _check_standard(kind, value)
    style = poly_style(style_seed)
    ppm = float(np.exp(rng.uniform(np.log(26), np.log(90)))) * float(resolution) / STANDARD_MM[kind]
    cam = _camera(rng, ppm)
    p = _standard_placed(kind, value, style, rng, cam, cocked)
    return _scene_shot(rng, 0, p, int(size), [], cam, _light(rng))


def printed_value(kind: str, value: int) -> int:
    """The number printed on the face that reads ``value`` (1..sides): a d10's 10 is printed "0"."""
    return 0 if kind == "d10" and int(value) == 10 else int(value)


def _check_standard(kind: str, value) -> None:
    """ArtError unless ``kind`` is a standard die kind that has ``value``."""
    if kind not in POLY_VALUES:
        raise art.ArtError(f"unknown standard die kind {kind!r} (known: {', '.join(POLY_VALUES)})")
    if int(value) not in POLY_VALUES[kind]:
        raise art.ArtError(
            f"a {kind} has no value {value!r} (values {POLY_VALUES[kind][0]}..{POLY_VALUES[kind][-1]})"
        )


def _standard_placed(kind: str, value: int, style: PolyStyle, rng, cam: _Camera, cocked: bool) -> _Placed:
    """A standard die of ``style`` showing ``value`` up (its numeral upright as ``cam`` sees it),
    settled on the table at the world origin; ``cocked`` tips it 20-40 degrees onto an edge."""
    s = solid(kind if kind != "d4" else "d4t")
    frames = face_frames(kind if kind != "d4" else "d4t")
    mm = STANDARD_MM[kind]
    c1, c2 = (np.array(c) * rng.uniform(0.9, 1.1, 3) for c in style.colours)
    amount = {"opaque": 0.0, "marbled": float(rng.uniform(0.3, 0.5)), "translucent": 0.1}[style.plastic]
    look = DieLook(
        kind,
        mm,
        (tuple(np.clip(c1, 0, 255).tolist()), tuple(np.clip(c2, 0, 255).tolist())),
        amount,
        style.ink,
        float(rng.uniform(0.4, 1.0)),
        float(rng.uniform(0.55, 0.8)) if style.plastic == "translucent" else 1.0,
    )
    pose = _rotz(float(rng.uniform(0, 2 * np.pi)))
    others = [v for v in POLY_VALUES[kind] if v != int(value)]
    rng.shuffle(others)
    px = 64
    arts: list = [None] * len(s.faces)
    if kind == "d4":  # values at the corners: the top vertex carries ``value`` on every face
        top_v = int(np.argmax(s.verts[:, 2]))
        corner_values = {top_v: int(value)}
        for k, vi in enumerate(i for i in range(len(s.verts)) if i != top_v):
            corner_values[vi] = others[k]
        for fi, loop in enumerate(s.faces):
            c, u, v, half = frames[fi]
            m = np.zeros((px, px), np.float32)
            for vi in loop:
                d = s.verts[vi] - c
                lx, ly = (d @ u) / half, (d @ v) / half
                ang = float(np.degrees(np.arctan2(lx, -ly)))  # numeral's top toward its corner
                g = _numeral_mask(corner_values[vi], kind, px // 2, style, ang, 0.9)
                cx, cy = px / 2 + lx * 0.42 * px / 2, px / 2 + ly * 0.42 * px / 2
                x0, y0 = int(cx - px / 4), int(cy - px / 4)
                xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + px // 2, px), min(y0 + px // 2, px)
                if xb > xa and yb > ya:
                    m[ya:yb, xa:xb] = np.maximum(m[ya:yb, xa:xb], g[ya - y0 : yb - y0, xa - x0 : xb - x0])
            arts[fi] = m
    else:
        turn = _upright_turn(cam, pose, frames[s.top]) + float(rng.uniform(-25, 25))
        arts[s.top] = _numeral_mask(int(value), kind, px, style, turn)
        for k, fi in enumerate(i for i in range(len(s.faces)) if i != s.top):
            arts[fi] = _numeral_mask(others[k % len(others)], kind, px, style, float(rng.uniform(0, 360)))
    if cocked:  # the art stays as printed; the body is tipped onto an edge
        pose = (
            _rotz(float(rng.uniform(0, 2 * np.pi)))
            @ _rotx(float(rng.uniform(np.radians(20), np.radians(40))) * float(rng.choice([-1, 1])))
            @ pose
        )
    p = _Placed(look, arts, pose, np.zeros(3))
    _settle(p)
    return p
