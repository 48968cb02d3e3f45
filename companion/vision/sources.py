"""Frame sources for the camera loop: ``camera:N``, a video file, or a folder of images.

Each yields ``(t, frame)`` with ``t`` in seconds: the camera's clock for a live camera, the
video's timestamps for a file, and ``index / fps`` for a folder (sorted by file name).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from companion.rules import is_whole_number
from companion.vision.yolo_dataset import IMAGE_SUFFIXES


class SourceError(ValueError):
    """A frame source cannot be opened."""


#: The frame size asked of a camera unless the source names one.  OpenCV opens most webcams at
#: 640 x 480, where a d20 on a whole table is a few pixels across; every figure of the readers is for
#: 1280 px frames or larger (models/polyhedral-oblique/MODEL_CARD.md: numerals read far more surely
#: with more pixels across each die).  The driver gives the nearest size it has.
CAMERA_SIZE = (1920, 1080)


def is_device(text: str) -> bool:
    """Whether a camera source names a device (``0``, ``0@1280x720``) rather than a video file or URL."""
    return is_whole_number(str(text).partition("@")[0])


def parse_camera(text: str) -> tuple[int, tuple[int, int]]:
    """``"0"`` or ``"0@1280x720"`` -> (device index, (width, height) asked); SourceError naming the text."""
    index, _, size = str(text).partition("@")
    if not is_whole_number(index):
        raise SourceError(
            f"a camera is a device number, optionally @WIDTHxHEIGHT (0, 0@1280x720), not {text!r}"
        )
    if not size:
        return int(index), CAMERA_SIZE
    w, _, h = size.lower().partition("x")
    if not (is_whole_number(w) and is_whole_number(h)) or not (
        160 <= int(w) <= 8192 and 120 <= int(h) <= 8192
    ):
        raise SourceError(
            f"camera size {size!r} in {text!r}: expected WIDTHxHEIGHT in pixels, such as 1920x1080"
        )
    return int(index), (int(w), int(h))


def open_camera(text: str):
    """An OpenCV capture of camera ``text`` (``parse_camera``), asked for its frame size; the driver may
    give another (read ``CAP_PROP_FRAME_WIDTH`` / ``HEIGHT`` back)."""
    index, (w, h) = parse_camera(text)
    cap = cv2.VideoCapture(index)
    if cap.isOpened():
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, w)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, h)
    return cap


def open_source(spec: str, fps: float = 30.0) -> Iterator[tuple[float, np.ndarray]]:
    if spec.startswith("camera:"):
        try:
            cap = open_camera(spec.split(":", 1)[1])
        except SourceError as exc:
            raise SourceError(
                f"camera source must be camera:<number>[@WIDTHxHEIGHT], not {spec!r}: {exc}"
            ) from None
        return _capture(cap, spec, live=True)
    path = Path(spec)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise SourceError(f"folder {path} holds no images")
        return _folder(files, fps)
    if path.is_file():
        cap = cv2.VideoCapture(str(path))
        if not cap.isOpened():
            raise SourceError(f"{path} is not a readable video")
        return _capture(cap, spec, live=False)
    raise SourceError(f"no such source {spec!r} (camera:N, a video file or a folder of images)")


def _capture(cap, spec: str, live: bool) -> Iterator[tuple[float, np.ndarray]]:
    if not cap.isOpened():
        raise SourceError(f"cannot open {spec}")
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    t0 = time.monotonic()
    k = 0
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                return
            yield (time.monotonic() - t0 if live else k / fps), frame
            k += 1
    finally:
        cap.release()


def _folder(files: list[Path], fps: float) -> Iterator[tuple[float, np.ndarray]]:
    for k, f in enumerate(files):
        frame = cv2.imread(str(f))
        if frame is None:
            raise SourceError(f"{f} is not a readable image")
        yield k / fps, frame
