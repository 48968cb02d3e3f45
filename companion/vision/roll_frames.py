"""Rendered rolls for the demo and the benches: frames of given dice and faces, read back.

``render_roll`` draws chosen dice showing chosen faces; ``read_roll`` reads a frame with the
shipped pipeline and assigns it to the army's units; ``annotate`` draws boxes, readings and
matched units for the tablet's roll panel; ``roll_video`` makes a clip in which dice tumble
in, settle and stay still (for settle detection).
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from companion.vision.detections import Detections
from companion.vision.synth.scene import Scene, die_spec, render_scene


@lru_cache(maxsize=1)
def _catalogue():
    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415

    return load_catalogue()


def _vocabulary(catalogue) -> tuple[str, ...]:
    from companion.vision.synth.dataset import face_vocabulary  # noqa: PLC0415

    return face_vocabulary(catalogue)


def render_roll(dice: list[tuple[str, int]], seed: int = 0, *, size: int = 640, cocked: tuple[int, ...] = (),
                positions=None, clutter: bool = True, photo: bool = True, catalogue=None, tilt_deg: float | None = None,
                profile: str = "train", ppm: float | None = None) -> Scene:
    """A frame of ``dice`` (catalogue name, face index) on a table; ``cocked`` lists dice to lean."""
    catalogue = catalogue or _catalogue()
    specs = []
    for k, (name, face_index) in enumerate(dice):
        die = catalogue.get(name)
        if not 0 <= face_index < len(die.faces):
            raise ValueError(f"{name} has faces 0..{len(die.faces) - 1}, not {face_index}")
        specs.append(die_spec(die, face_index, cocked=k in cocked))
    rng = np.random.default_rng(seed)
    return render_scene(rng, specs, _vocabulary(catalogue), size=size, positions=positions, clutter=clutter,
                        photo=photo, tilt_deg=tilt_deg, profile=profile, ppm=ppm)


def read_roll(image: np.ndarray, roster: list[str], model="dragon-dice") -> dict:
    """Read a frame and assign it to the rolling units: ``{"units": [...], "dice": [...], "unassigned": [...]}``.

    ``model``: a model name or folder, or a loaded ``DiceModel`` (e.g. one carrying a table profile)."""
    from companion.vision.assign import assign, roster_dice  # noqa: PLC0415
    from companion.vision.reader import load_model  # noqa: PLC0415

    m = model if hasattr(model, "readings") else load_model(model)  # a name, or a loaded model
    det = m.detect(image)
    readings = m.readings(image, det)
    units, unassigned = assign(roster_dice(roster, _catalogue()), det, [r.colour for r in readings],
                               [r.kind for r in readings], m.heads, profile=getattr(m, "profile", None))
    return {"units": [u.to_dict() for u in units], "dice": [r.to_dict() for r in readings],
            "unassigned": unassigned, "detections": det}


def annotate(frame: np.ndarray, detections, units: list[dict] | None = None) -> np.ndarray:
    """A copy of ``frame`` with each die's box and label (its reading, and its unit when matched).

    ``detections``: a list of reading dicts / ``DieReading`` objects, or a ``Detections``.
    """
    out = frame.copy()
    if isinstance(detections, Detections):
        items = [{"box": list(b), "reading": None, "cocked": False, "unreadable": False} for b in detections.xyxy]
    else:
        items = [d if isinstance(d, dict) else d.to_dict() for d in detections]
    unit_of = {}
    for u in units or []:
        if u.get("detection") is not None:
            unit_of[u["detection"]] = u["unit"].split("/")[-1]
    scale = max(0.35, min(out.shape[:2]) / 1400)
    for i, d in enumerate(items):
        x1, y1, x2, y2 = (int(round(v)) for v in d["box"])
        if d.get("cocked"):
            colour, text = (0, 140, 255), "COCKED: reroll"
        elif d.get("unreadable"):
            colour, text = (0, 0, 230), "unreadable"
        else:
            colour, text = (60, 200, 60), d.get("reading") or ""
        if i in unit_of:
            text = f"{unit_of[i]}: {text}"
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 2, cv2.LINE_AA)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        ty = y1 - 4 if y1 - th - 6 > 0 else y2 + th + 4
        cv2.rectangle(out, (x1, ty - th - 3), (x1 + tw + 4, ty + 3), colour, -1)
        cv2.putText(out, text, (x1 + 2, ty), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def roll_video(dice: list[tuple[str, int]], seed: int = 0, *, rolls: int = 1, size: int = 640, fps: float = 30.0,
               move_s: float = 1.0, still_s: float = 1.0, noise: float = 2.0) -> tuple[list[np.ndarray], list[dict]]:
    """Frames of ``rolls`` rolls: dice tumble in for ``move_s`` then lie still for ``still_s``.

    Returns (frames, rolls) where each roll is ``{"moving": (first, last), "still": (first, last)}``
    frame indices; frames carry a little sensor noise, as a camera's do.
    """
    rng = np.random.default_rng(seed)
    frames, spans = [], []
    n_move, n_still = int(round(move_s * fps)), int(round(still_s * fps))
    ppm = 2.5 * size / 640
    for r in range(rolls):
        final = rng.uniform(0.22, 0.78, (len(dice), 2)) * size
        start = np.array([[-0.1 * size, rng.uniform(0.2, 0.8) * size] for _ in dice])
        start_idx = len(frames)
        for f in range(n_move + n_still):
            a = min(1.0, f / max(1, n_move - 1))
            wobble = (1 - a) * 0.08 * size * np.sin(f * 1.7 + np.arange(len(dice)))[:, None]
            pos = start + (final - start) * (1 - (1 - a) ** 3) + wobble
            scene = render_roll(dice, seed * 1000 + r, size=size, positions=[tuple(p) for p in pos], photo=False,
                                clutter=False, tilt_deg=0.0, ppm=ppm)
            img = scene.image.astype(np.float32) + rng.normal(0, noise, scene.image.shape)
            frames.append(np.clip(img, 0, 255).astype(np.uint8))
        spans.append({"moving": (start_idx, start_idx + n_move - 1),
                      "still": (start_idx + n_move, start_idx + n_move + n_still - 1)})
    return frames, spans
