"""Rendered rolls for the demo and the benches (they need the renderer, ``companion.vision.synth``).

``render_roll`` draws chosen dice showing chosen faces; ``roll_video`` makes a clip in which dice
tumble in, settle and stay still (for settle detection).  Reading a frame (``read_roll``) and
drawing a roll's boxes (``annotate``) are run time: ``companion.vision.roll_reading``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.vision.synth.scene import Scene, die_spec, render_scene


@lru_cache(maxsize=1)
def _catalogue():
    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415

    return load_catalogue()


def _vocabulary(catalogue) -> tuple[str, ...]:
    from companion.vision.synth.dataset import face_vocabulary  # noqa: PLC0415

    return face_vocabulary(catalogue)


def render_roll(
    dice: list[tuple[str, int]],
    seed: int = 0,
    *,
    size: int = 640,
    cocked: tuple[int, ...] = (),
    positions=None,
    clutter: bool = True,
    photo: bool = True,
    catalogue=None,
    tilt_deg: float | None = None,
    profile: str = "train",
    ppm: float | None = None,
) -> Scene:
    """A frame of ``dice`` (catalogue name, face index) on a table; ``cocked`` lists dice to lean."""
    catalogue = catalogue or _catalogue()
    specs = []
    for k, (name, face_index) in enumerate(dice):
        die = catalogue.get(name)
        if not 0 <= face_index < len(die.faces):
            raise ValueError(f"{name} has faces 0..{len(die.faces) - 1}, not {face_index}")
        specs.append(die_spec(die, face_index, cocked=k in cocked))
    rng = np.random.default_rng(seed)
    return render_scene(
        rng,
        specs,
        _vocabulary(catalogue),
        size=size,
        positions=positions,
        clutter=clutter,
        photo=photo,
        tilt_deg=tilt_deg,
        profile=profile,
        ppm=ppm,
    )


def roll_video(
    dice: list[tuple[str, int]],
    seed: int = 0,
    *,
    rolls: int = 1,
    size: int = 640,
    fps: float = 30.0,
    move_s: float = 1.0,
    still_s: float = 1.0,
    noise: float = 2.0,
) -> tuple[list[np.ndarray], list[dict]]:
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
            scene = render_roll(
                dice,
                seed * 1000 + r,
                size=size,
                positions=[tuple(p) for p in pos],
                photo=False,
                clutter=False,
                tilt_deg=0.0,
                ppm=ppm,
            )
            img = scene.image.astype(np.float32) + rng.normal(0, noise, scene.image.shape)
            frames.append(np.clip(img, 0, 255).astype(np.uint8))
        spans.append(
            {
                "moving": (start_idx, start_idx + n_move - 1),
                "still": (start_idx + n_move, start_idx + n_move + n_still - 1),
            }
        )
    return frames, spans
