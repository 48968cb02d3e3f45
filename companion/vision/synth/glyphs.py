"""Face art: procedural glyphs for every icon kind, or the user's own scans.

Each icon kind (``face.name``: ``"Melee"``, ``"ID"``, ``"Trample"``...) gets a distinct
procedural glyph: an outer shape (one of 10) with an inner mark (one of 11) cut out of it,
chosen by the icon's position in the sorted vocabulary, so 110 kinds never share a glyph.
The face's count is printed under the glyph with an underline (so 6 and 9 differ).

User override: a folder holding ``<Species>/<icon>.png`` or ``<icon>.png`` (for example
``my_glyphs/Dwarves/Melee.png`` or ``my_glyphs/Trample.png``; spaces allowed).  A scan found
there replaces the procedural glyph; an alpha channel, if any, is respected.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

SHAPES = ("circle", "triangle", "square", "pentagon", "hexagon", "star", "diamond", "cross", "ring", "moon")
MARKS = ("none", "dot", "hbar", "vbar", "x", "ring", "two_dots", "slash", "square", "chevron", "three_dots")


def glyph_code(icon: str, vocabulary: list[str]) -> tuple[str, str]:
    """(shape, mark) of an icon kind: by its index in ``vocabulary``, else by a stable hash."""
    if icon in vocabulary:
        i = vocabulary.index(icon)
    else:
        i = int(hashlib.sha1(icon.encode()).hexdigest(), 16) % (len(SHAPES) * len(MARKS))
    return SHAPES[i % len(SHAPES)], MARKS[(i // len(SHAPES)) % len(MARKS)]


def _poly(n: int, r: float, c: float, rot: float = -np.pi / 2) -> np.ndarray:
    a = rot + np.arange(n) * 2 * np.pi / n
    return np.stack([c + r * np.cos(a), c + r * np.sin(a)], 1).astype(np.int32)


# Shapes whose middle is empty: a mark cut out of them would cut nothing (8 of the 11 ring glyphs
# were one and the same picture, and the moon's marks all but vanished), so their mark is drawn
# inverted against the shape instead: filled where the middle is empty, cut where the shape is.
HOLLOW_SHAPES = frozenset({"ring", "moon"})


def draw_glyph(size: int, shape: str, mark: str) -> np.ndarray:
    """A ``size`` x ``size`` mask (uint8 0/255) of the glyph: ``shape`` with ``mark`` cut out of it
    (inverted against it for the hollow shapes, so that no two glyphs are the same picture)."""
    m = _draw_shape(size, shape)
    if shape not in HOLLOW_SHAPES:
        _draw_mark(m, size, mark, 0)
        return m
    mark_mask = np.zeros_like(m)
    _draw_mark(mark_mask, size, mark, 255)
    return np.abs(m.astype(np.int16) - mark_mask.astype(np.int16)).astype(np.uint8)


def _draw_shape(size: int, shape: str) -> np.ndarray:
    m = np.zeros((size, size), np.uint8)
    c, r = size / 2, size * 0.46
    if shape == "circle":
        cv2.circle(m, (int(c), int(c)), int(r), 255, -1, cv2.LINE_AA)
    elif shape == "triangle":
        cv2.fillPoly(m, [_poly(3, r * 1.05, c)], 255, cv2.LINE_AA)
    elif shape == "square":
        cv2.fillPoly(m, [_poly(4, r * 1.1, c, np.pi / 4)], 255, cv2.LINE_AA)
    elif shape == "pentagon":
        cv2.fillPoly(m, [_poly(5, r, c)], 255, cv2.LINE_AA)
    elif shape == "hexagon":
        cv2.fillPoly(m, [_poly(6, r, c, 0)], 255, cv2.LINE_AA)
    elif shape == "star":
        outer, inner = _poly(5, r * 1.05, c), _poly(5, r * 0.45, c, -np.pi / 2 + np.pi / 5)
        pts = np.empty((10, 2), np.int32)
        pts[0::2], pts[1::2] = outer, inner
        cv2.fillPoly(m, [pts], 255, cv2.LINE_AA)
    elif shape == "diamond":
        pts = np.array([[c, c - r], [c + r * 0.7, c], [c, c + r], [c - r * 0.7, c]], np.int32)
        cv2.fillPoly(m, [pts], 255, cv2.LINE_AA)
    elif shape == "cross":
        t = r * 0.38
        cv2.rectangle(m, (int(c - t), int(c - r)), (int(c + t), int(c + r)), 255, -1)
        cv2.rectangle(m, (int(c - r), int(c - t)), (int(c + r), int(c + t)), 255, -1)
    elif shape == "ring":
        cv2.circle(m, (int(c), int(c)), int(r), 255, -1, cv2.LINE_AA)
        cv2.circle(m, (int(c), int(c)), int(r * 0.55), 0, -1, cv2.LINE_AA)
    elif shape == "moon":
        cv2.circle(m, (int(c), int(c)), int(r), 255, -1, cv2.LINE_AA)
        cv2.circle(m, (int(c + r * 0.55), int(c - r * 0.25)), int(r * 0.8), 0, -1, cv2.LINE_AA)
    return m


def _draw_mark(m: np.ndarray, size: int, mark: str, k: int) -> None:
    """Draws ``mark`` in the middle of ``m`` with value ``k`` (in place)."""
    c, r = size / 2, size * 0.46
    lw = max(2, size // 9)
    s = r * 0.42
    if mark == "dot":
        cv2.circle(m, (int(c), int(c)), int(s * 0.6), k, -1, cv2.LINE_AA)
    elif mark == "hbar":
        cv2.rectangle(m, (int(c - s), int(c - lw / 2)), (int(c + s), int(c + lw / 2)), k, -1)
    elif mark == "vbar":
        cv2.rectangle(m, (int(c - lw / 2), int(c - s)), (int(c + lw / 2), int(c + s)), k, -1)
    elif mark == "x":
        cv2.line(m, (int(c - s), int(c - s)), (int(c + s), int(c + s)), k, lw, cv2.LINE_AA)
        cv2.line(m, (int(c - s), int(c + s)), (int(c + s), int(c - s)), k, lw, cv2.LINE_AA)
    elif mark == "ring":
        cv2.circle(m, (int(c), int(c)), int(s * 0.8), k, lw, cv2.LINE_AA)
    elif mark == "two_dots":
        for dx in (-s * 0.6, s * 0.6):
            cv2.circle(m, (int(c + dx), int(c)), int(s * 0.35), k, -1, cv2.LINE_AA)
    elif mark == "slash":
        cv2.line(m, (int(c - s), int(c + s)), (int(c + s), int(c - s)), k, lw, cv2.LINE_AA)
    elif mark == "square":
        cv2.rectangle(m, (int(c - s * 0.6), int(c - s * 0.6)), (int(c + s * 0.6), int(c + s * 0.6)), k, -1)
    elif mark == "chevron":
        pts = np.array([[c - s, c + s * 0.4], [c, c - s * 0.5], [c + s, c + s * 0.4]], np.int32)
        cv2.polylines(m, [pts], False, k, lw, cv2.LINE_AA)
    elif mark == "three_dots":
        for dx, dy in ((0, -s * 0.6), (-s * 0.6, s * 0.45), (s * 0.6, s * 0.45)):
            cv2.circle(m, (int(c + dx), int(c + dy)), int(s * 0.3), k, -1, cv2.LINE_AA)


@lru_cache(maxsize=4096)
def procedural_glyph(icon: str, size: int, vocabulary: tuple[str, ...]) -> np.ndarray:
    shape, mark = glyph_code(icon, list(vocabulary))
    return draw_glyph(size, shape, mark)


def _safe(name: str) -> str:
    return name.replace("/", "_")


@lru_cache(maxsize=1024)
def _user_glyph(folder: str, species: str, icon: str) -> np.ndarray | None:
    root = Path(folder)
    for candidate in (root / _safe(species) / f"{_safe(icon)}.png", root / f"{_safe(icon)}.png"):
        if candidate.is_file():
            img = cv2.imread(str(candidate), cv2.IMREAD_UNCHANGED)
            if img is None:
                raise ValueError(f"glyph file {candidate} is not a readable image")
            return img
    return None


def face_texture(
    icon: str,
    count: int,
    size: int,
    face_bgr: tuple[int, int, int],
    ink_bgr: tuple[int, int, int],
    vocabulary: tuple[str, ...],
    species: str = "",
    glyph_dir: str | None = None,
    show_count: bool = True,
) -> np.ndarray:
    """The art of one face on a ``size`` x ``size`` BGR square (face colour background)."""
    tex = np.empty((size, size, 3), np.uint8)
    tex[:] = face_bgr
    gsize = int(size * (0.5 if show_count else 0.72))
    gx, gy = (size - gsize) // 2, int(size * (0.1 if show_count else 0.14))
    user = _user_glyph(glyph_dir, species, icon) if glyph_dir else None
    if user is not None:
        g = cv2.resize(user, (gsize, gsize), interpolation=cv2.INTER_AREA)
        region = tex[gy : gy + gsize, gx : gx + gsize]
        if g.ndim == 2:
            g = cv2.cvtColor(g, cv2.COLOR_GRAY2BGR)
        if g.shape[2] == 4:
            a = g[:, :, 3:4].astype(np.float32) / 255
            region[:] = (region * (1 - a) + g[:, :, :3] * a).astype(np.uint8)
        else:
            region[:] = g[:, :, :3]
    else:
        mask = procedural_glyph(icon, gsize, vocabulary)
        region = tex[gy : gy + gsize, gx : gx + gsize]
        a = (mask.astype(np.float32) / 255)[:, :, None]
        region[:] = (region * (1 - a) + np.array(ink_bgr, np.float32) * a).astype(np.uint8)
    if show_count:
        text = str(count)
        scale = size / 64 * (0.95 if len(text) == 1 else 0.75)
        thick = max(1, int(round(size / 28)))
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        org = ((size - tw) // 2, int(size * 0.8))
        cv2.putText(tex, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, ink_bgr, thick, cv2.LINE_AA)
        y = int(size * 0.87)
        cv2.line(tex, ((size - tw) // 2, y), ((size + tw) // 2, y), ink_bgr, thick, cv2.LINE_AA)
    return tex
