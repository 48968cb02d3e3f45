"""Splits of standard-dice styles (plastic, colours, ink, font) and crops rendered from them.

A *style* is one set of standard dice as a player owns it: ``real_dice.poly_style(seed)`` picks
opaque, marbled or translucent plastic, two colours, an ink, a font, pips or numerals on the d6,
and the numeral size.  Like the art families of Dragon Dice (``art.TRAIN_FAMILIES`` ...), the style
seeds are split three ways, disjoint:

* ``TRAIN_STYLES``: what a network may be trained on; none of them uses ``HELDOUT_FONT``;
* ``CALIBRATION_STYLES``: never trained on; the only place where epochs, thresholds and other
  settings may be chosen;
* ``TEST_STYLES``: never trained on and never used for any choice: the strict figures.

Calibration and test styles draw every font, so about one in five of them prints its numerals in a
font no training style uses (``HELDOUT_FONT``, Hershey Triplex), as a player's own dice would.

Values follow ``companion.vision.numerals.SIDES``: 1..n, a d10's "0" counted as 10.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.numerals import KINDS, SIDES

#: A font printed only by calibration and test styles.
HELDOUT_FONT = cv2.FONT_HERSHEY_TRIPLEX


def _style_font(seed: int) -> int:
    from companion.vision.synth.real_dice import poly_style  # noqa: PLC0415

    return poly_style(seed).font


def _train_styles(n: int) -> tuple[int, ...]:
    out, s = [], 0
    while len(out) < n:
        if _style_font(s) != HELDOUT_FONT:
            out.append(s)
        s += 1
    return tuple(out)


#: Style seeds a network may train on (the first 400 seeds from 0 whose font is not HELDOUT_FONT).
TRAIN_STYLES: tuple[int, ...] = _train_styles(400)
#: Style seeds for choosing epochs and thresholds; never trained on.
CALIBRATION_STYLES: tuple[int, ...] = tuple(range(100_000, 100_040))
#: Strict held-out style seeds: never trained on, never used for any choice.
TEST_STYLES: tuple[int, ...] = tuple(range(200_000, 200_060))
SPLITS = {"train": TRAIN_STYLES, "calibration": CALIBRATION_STYLES, "test": TEST_STYLES}


def render_value(*args, **kwargs) -> np.ndarray:
    """:func:`render_value_shot`'s crop alone (the same arguments, the same draws)."""
    return render_value_shot(*args, **kwargs)[0]


def render_value_shot(
    kind: str, value: int, rng: np.random.Generator, style: int, size: int = 64, resolution: float = 1.0
) -> tuple[np.ndarray, float]:
    """One die of ``kind`` showing ``value`` (1..sides; a d10's 10 is printed "0") in ``style``, and the
    longest side in px of its box in the frame; ``resolution``: the camera's pixels against a 1280 px
    frame (``render_polyhedral_shot``)."""
    from companion.vision.synth.real_dice import printed_value, render_polyhedral_shot  # noqa: PLC0415

    return render_polyhedral_shot(
        kind, printed_value(kind, value), rng, style_seed=int(style), size=size, resolution=resolution
    )


def render_crops(
    n: int, styles, seed: int, kind_weights: dict[str, float] | None = None, size: int = 64, progress=None
) -> dict[str, np.ndarray]:
    """``n`` crops of random dice in random ``styles``: {"crops" (n, size, size, 3) uint8,
    "kind" index into ``KINDS``, "value" 1..sides, "style"}.  Deterministic given ``seed``."""
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    w = np.array([(kind_weights or {}).get(k, 1.0) for k in KINDS], float)
    w /= w.sum()
    styles = np.asarray(styles)
    crops = np.zeros((n, size, size, 3), np.uint8)
    kind, value, style = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    for i in range(n):
        k = int(rng.choice(len(KINDS), p=w))
        v = int(rng.integers(1, SIDES[KINDS[k]] + 1))
        s = int(styles[int(rng.integers(len(styles)))])
        crops[i] = render_value(KINDS[k], v, rng, s, size)
        kind[i], value[i], style[i] = k, v, s
        if progress and (i + 1) % 1000 == 0:
            progress(i + 1, n)
    return {"crops": crops, "kind": kind, "value": value, "style": style}


def write_mosaic(
    folder, style: int, kind: str = "d20", per_value: int = 4, seed: int = 0, cols: int = 10
) -> dict:
    """Committed test fixtures: ``per_value`` renders of every value of ``kind`` in ``style``, as one
    PNG mosaic of 64 px tiles (``mosaic.png``) + ``labels.json`` (tile order: value by value)."""
    from pathlib import Path  # noqa: PLC0415

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    values = [v for v in range(1, SIDES[kind] + 1) for _ in range(per_value)]
    tiles = [render_value(kind, v, rng, style) for v in values]
    rows = (len(tiles) + cols - 1) // cols
    mosaic = np.zeros((rows * 64, cols * 64, 3), np.uint8)
    for i, t in enumerate(tiles):
        mosaic[(i // cols) * 64 : (i // cols + 1) * 64, (i % cols) * 64 : (i % cols + 1) * 64] = t
    cv2.imwrite(str(folder / "mosaic.png"), mosaic)
    labels = {
        "kind": kind,
        "style": int(style),
        "per_value": per_value,
        "values": values,
        "tile": 64,
        "cols": cols,
        "made_by": f"companion.vision.synth.standard_styles.write_mosaic(folder, {style}, {kind!r}, "
        f"{per_value}, {seed})",
    }
    (folder / "labels.json").write_text(__import__("json").dumps(labels, indent=1))
    return labels


def read_mosaic(folder) -> tuple[np.ndarray, dict]:
    """(tiles (N, 64, 64, 3) uint8, labels) of a ``write_mosaic`` folder."""
    import json  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    folder = Path(folder)
    labels = json.loads((folder / "labels.json").read_text())
    img = cv2.imread(str(folder / "mosaic.png"), cv2.IMREAD_COLOR)
    t, cols = labels["tile"], labels["cols"]
    tiles = np.stack(
        [
            img[(i // cols) * t : (i // cols + 1) * t, (i % cols) * t : (i % cols + 1) * t]
            for i in range(len(labels["values"]))
        ]
    )
    return tiles, labels


def mosaic_table(folder, every: int = 10, count: int = 8, scale: int = 2, gap: int = 40) -> np.ndarray:
    """A plain table (the tiles' median colour) with ``count`` dice of a ``write_mosaic`` folder (every
    ``every``-th tile) laid ``scale`` times their size in rows of four: oblique crops as a frame a box
    finder and the readers can read (the tests' frame of held-out dice)."""
    tiles, _ = read_mosaic(folder)
    tiles = np.stack(
        [
            cv2.resize(t, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
            for t in tiles[::every][:count]
        ]
    )
    side, rows = tiles.shape[1], -(-len(tiles) // 4)
    table = np.empty((rows * side + (rows + 1) * gap, 4 * side + 5 * gap, 3), np.uint8)
    table[:] = np.median(tiles.reshape(-1, 3), 0)
    for i, tile in enumerate(tiles):
        y, x = gap + (i // 4) * (side + gap), gap + (i % 4) * (side + gap)
        table[y : y + side, x : x + side] = tile
    return table
