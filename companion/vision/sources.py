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


def open_source(spec: str, fps: float = 30.0) -> Iterator[tuple[float, np.ndarray]]:
    if spec.startswith("camera:"):
        index = spec.split(":", 1)[1]
        if not is_whole_number(index):
            raise SourceError(f"camera source must be camera:<number>, not {spec!r}")
        return _capture(cv2.VideoCapture(int(index)), spec, live=True)
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
