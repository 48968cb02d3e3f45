"""A phone as the table's camera: frames pushed over HTTP instead of pulled from an OpenCV device.

Most groups have no webcam rig over the table, but every player has a phone. The phone's page
(``/phone``, paired like a tablet) sends frames to ``POST /api/camera/frames``; this object treats
them as ``--camera`` treats a capture device's frames:

* **live frames** (the phone's video, a few per second) go through the same settle detector as a
  camera's; when the table has been still for a moment after motion and a roll is pending, the
  frame is read once and staged on the Roll panel (``web.play.camera_reading``);
* **photos** (one picture per roll, where the browser allows no live video) are read at once.

Each frame's answer lists the dice the die finder sees, so the phone can draw them over its view; a
frame that was read lists the dice of the reading instead (it searched the frame already: searching
it again would add a whole die search to the time from settling to the reading).  While the table
stays still (no motion since the frame last searched) the dice found then are listed again without
a new search: a phone streaming a quiet table between rolls costs the server no die searches.
It never invents a face: dice it cannot read stay unread, to be tapped.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np

from companion.vision import DEFAULT_STANDARD_MODEL
from companion.vision.die_pixels import small_dice_note

log = logging.getLogger("companion.web")

#: A phone that sent nothing for this long is shown as gone.
STALE_S = 10.0
#: Largest side kept of a live frame; bigger frames are scaled down before reading.
LIVE_MAX_SIDE = 1920
#: Largest side kept of a photo (one per roll): a phone's whole picture (4032 x 3024 on most), since a
#: die's numerals read far more surely with more pixels across it (models/polyhedral-oblique/MODEL_CARD.md).
PHOTO_MAX_SIDE = 4096
#: A still table's dice are searched for again after this long anyway (a change too slow to see as motion).
RESEARCH_S = 5.0


class FrameError(ValueError):
    """A pushed frame cannot be used (not an image, empty, or too small)."""


def decode_frame(data: bytes, max_side: int = LIVE_MAX_SIDE) -> np.ndarray:
    """JPEG/PNG bytes -> a BGR frame no larger than ``max_side``; FrameError naming what is wrong."""
    import cv2

    if not data:
        raise FrameError("the frame is empty: send the JPEG or PNG bytes as the request body")
    frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if frame is None:
        raise FrameError(f"the frame ({len(data)} bytes) is not a JPEG or PNG image")
    h, w = frame.shape[:2]
    if min(h, w) < 64:
        raise FrameError(f"the frame is {w}x{h}: at least 64 px on each side is needed")
    scale = max_side / max(h, w)
    if scale < 1 and min(h, w) * scale < 64:  # a strip: scaled down to max_side, under 64 px across
        raise FrameError(
            f"the frame is {w}x{h}: scaled to at most {max_side} px it is under 64 px on a side "
            "(send a photo of the table, not a strip)"
        )
    if scale < 1:
        frame = cv2.resize(frame, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    return frame


class PhoneCamera:
    """The latest frame from a phone, its settle detector, and the state the top bar shows."""

    kind = "camera"

    def __init__(
        self,
        store,
        model: str = "dragon-dice",
        reader=None,
        finder=None,
        standard_model: str = DEFAULT_STANDARD_MODEL,
    ):
        self.store = store
        self.model = model
        self.standard_model = standard_model  # standard dice (Battle Dice rolls), as the camera's
        self.frames = 0
        self.reads = 0
        self.last_frame_at: float | None = None
        self.device: str | None = None
        self.read_error: str | None = None
        self._frame: np.ndarray | None = None
        self._lock = threading.Lock()
        self._settle = None
        self._still_boxes: tuple[float, list] | None = None  # (when, the dice found) while nothing has moved
        # the reading and die-finding functions (tests may swap in their own)
        self._reader = reader
        self._finder = finder
        from companion.vision.camera_turn import SourceTurn

        self.turn = SourceTurn()  # ``serve --turn``: applied to the phone's frames as to the camera's

    # -- state ---------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.last_frame_at is not None and time.time() - self.last_frame_at < STALE_S

    def status(self) -> dict:
        if self.last_frame_at is None:
            state, message = "off", "no phone camera: open /phone on a paired phone to use it as the camera"
        elif self.active:
            state, message = "connected", f"phone camera ({self.device or 'phone'}): {self.frames} frames"
        else:
            ago = time.time() - self.last_frame_at
            state, message = (
                "lost",
                f"the phone camera sent nothing for {ago:.0f} s; tap faces or reopen /phone",
            )
        advice = self.turn.advice()
        if advice and state == "connected":
            message = f"{message}; {advice}"
        return {
            "kind": "phone",
            "spec": self.device,
            "state": state,
            "message": message,
            "since": self.last_frame_at,
            "frames": self.frames,
            "reads": self.reads,
            **self.turn.status(),
        }

    def latest_frame(self) -> np.ndarray | None:
        with self._lock:
            return None if self._frame is None else self._frame.copy()

    # -- frames --------------------------------------------------------------------------------
    def push(
        self, frame: np.ndarray, *, photo: bool = False, device: str | None = None, now: float | None = None
    ) -> dict:
        """Take one frame; read it when it settles a roll (live) or at once (photo).

        Returns ``{"frames", "settled", "read", "dice": [{"box": [...]}, ...], "message"}``.
        """
        t = time.monotonic() if now is None else now
        frame = self.turn.frame(frame)  # read (and shown on the tablets) with the table's far side at the top
        was_active = self.active
        with self._lock:
            self._frame = frame
            self.frames += 1
            self.last_frame_at = time.time()
            self.device = device or self.device
        if not was_active:
            self.store.notice("source", self.status())
        settled, still = photo, False
        if not photo:
            if self._settle is None:
                from companion.vision.settle import SettleDetector

                self._settle = SettleDetector()
            settled = self._settle.update(t, frame) is not None
            still = self._settle.last_motion <= self._settle.motion_fraction
        if not still or (self._still_boxes is not None and t - self._still_boxes[0] > RESEARCH_S):
            self._still_boxes = None  # the dice moved (or it is a while ago): search again
        out = {"frames": self.frames, "settled": settled, "read": False, "dice": [], "message": ""}
        read_boxes = None
        if settled:
            try:
                reading = self._read(frame)
            except Exception as exc:  # a frame that cannot be read is reported, never fatal
                self.read_error = str(exc)
                out["message"] = f"this frame could not be read ({exc}); tap faces on the page"
                log.warning("phone camera: frame not read: %s", exc)
            else:
                self.read_error = None
                if reading is None:
                    out["message"] = "no roll is waiting: the frame was not read"
                else:
                    self.reads += 1
                    out["read"] = True
                    unread = len(reading.get("problems") or [])
                    out["message"] = f"read {len(reading['faces'])} dice" + (
                        f"; {unread} to tap on the page" if unread else ""
                    )
                    read_boxes = list((reading.get("boxes") or {}).values())
        if read_boxes:  # a read frame: the phone draws the dice read (the reading searched the frame already)
            out["dice"] = [{"box": [round(float(v), 1) for v in box]} for box in read_boxes]
        elif self._still_boxes is not None:  # nothing moved since the last search: the same dice lie there
            out["dice"] = [dict(d) for d in self._still_boxes[1]]
        else:
            try:
                out["dice"] = [{"box": [round(float(v), 1) for v in box]} for box in self._find(frame)]
                if still:
                    self._still_boxes = (t, [dict(d) for d in out["dice"]])
            except Exception as exc:  # no model shipped: the phone still shows its view
                out["message"] = (
                    out["message"] or f"dice are not found on this server ({exc}); tap faces on the page"
                )
        if self.turn.turn and out["dice"]:  # the phone draws on the picture it sent, not the turned one
            from companion.vision.camera_turn import unturn_boxes

            back = unturn_boxes([d["box"] for d in out["dice"]], self.turn.turn, frame.shape)
            out["dice"] = [
                dict(d, box=[round(float(v), 1) for v in b]) for d, b in zip(out["dice"], back, strict=True)
            ]
        note = small_dice_note([d["box"] for d in out["dice"]])
        if note:  # the player placing the phone should know the dice are few pixels across
            out["message"] = f"{out['message']}; {note}" if out["message"] else note[0].upper() + note[1:]
        return out

    def _find(self, frame: np.ndarray):
        if self._finder is not None:
            return self._finder(frame)
        from companion.vision.reader import load_model

        return load_model(self.model).detect(frame).xyxy

    def _read(self, frame: np.ndarray) -> dict | None:
        if self._reader is not None:
            return self._reader(self.store, frame)
        from .play import source_reading

        return source_reading(self, frame)
