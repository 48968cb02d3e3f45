"""Dice sources beside the page: the camera and the smart-dice serial link.

Each source runs in its own thread, reports its state (``off``, ``connecting``, ``connected``,
``lost``) to the store as a notice so every page shows it, and when the device goes away keeps
trying to reconnect with a growing pause (1 s up to 10 s).  The game never waits on a source: when
one is lost, players go on by tapping faces.
"""

from __future__ import annotations

import logging
import threading
import time

from flask import Flask

from companion.vision import DEFAULT_STANDARD_MODEL

log = logging.getLogger("companion.web")

BACKOFF_S = (1.0, 2.0, 5.0, 10.0)


class Source:
    """Common state keeping and the reconnect loop; subclasses implement ``_open`` and ``_poll``."""

    kind = "source"

    def __init__(self, spec: str | None, store):
        self.spec = spec
        self.store = store
        self.state = "off" if spec is None else "connecting"
        self.message = "" if spec is not None else f"no {self.kind} configured: tap faces on the page"
        self.since = time.time()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def status(self) -> dict:
        return {
            "kind": self.kind,
            "spec": self.spec,
            "state": self.state,
            "message": self.message,
            "since": self.since,
        }

    def _set(self, state: str, message: str = "") -> None:
        if (state, message) == (self.state, self.message):
            return
        self.state, self.message, self.since = state, message, time.time()
        log.info("%s %s: %s %s", self.kind, self.spec, state, message)
        self.store.notice("source", self.status())

    def start(self) -> None:
        if self.spec is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name=f"{self.kind}-source", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                if self.state != "lost":  # while lost, keep saying so until it is back
                    self._set("connecting", f"opening {self.spec}")
                self._open()
                self._set("connected")
                failures = 0
                while not self._stop.is_set():
                    self._poll()
            except Exception as exc:  # a lost device must never stop the server
                failures += 1
                self._set("lost", f"{exc}; retrying (the game goes on by tapping faces)")
            finally:
                self._close()
            self._stop.wait(BACKOFF_S[min(failures, len(BACKOFF_S)) - 1] if failures else 0.2)

    def _open(self) -> None:
        raise NotImplementedError

    def _poll(self) -> None:
        raise NotImplementedError

    def _close(self) -> None:
        pass


class CameraSource(Source):
    """An OpenCV capture device (``--camera 0``) or a video file/URL; keeps the latest frame.

    Each frame goes through the vision package's settle detector (cheap frame differencing): when
    the table has been still for a moment after motion and a roll is pending, the frame is read
    once by the dice model (``companion.vision.roll_reading.read_roll``, each die assigned to a unit
    of the rolling army) and staged as the reading on the Roll panel.  A roll of standard dice
    (Battle Dice) is read with ``standard_model`` instead (``serve --standard-model``).  Without a
    shipped model the camera still shows its frames and players tap faces.
    """

    kind = "camera"

    def __init__(self, spec, store, model: str = "dragon-dice", standard_model: str = DEFAULT_STANDARD_MODEL):
        super().__init__(None if spec is None else str(spec), store)
        self._cap = None
        self._sized = False  # the frame size of this connection was reported
        self._frame = None
        self._frame_lock = threading.Lock()
        self.frames = 0
        self.model = model
        self.standard_model = standard_model  # standard dice (Battle Dice rolls)
        self._settle = None
        self.reads = 0
        self.read_error: str | None = None  # the last failed read's reason, until a read works
        self._read_failures = 0
        self._read_after = 0.0  # no read before this time (backing off after failed reads)
        self._clock = time.monotonic
        from companion.vision.camera_turn import SourceTurn

        self.turn = SourceTurn()  # ``serve --turn``: frames turned so that the table's far side is at the top
        self._turn_told: int | None = None  # the turn check's answer last told to the pages

    def status(self) -> dict:
        return {**super().status(), **self.turn.status()}

    def turn_changed(self) -> None:
        """A new turn was given (``POST /api/camera/turn``): what the old check said is gone."""
        self._turn_told = None
        if self.state == "connected" and "--turn" in self.message:
            self._set("connected")

    def _open(self) -> None:
        import cv2

        from companion.vision.sources import is_device, open_camera

        if self.spec and is_device(self.spec):  # a device, asked for its frame size
            self._cap = open_camera(self.spec)
        else:  # a video file or URL
            self._cap = cv2.VideoCapture(self.spec)
        if not self._cap.isOpened():
            raise OSError(f"camera {self.spec} cannot be opened")
        self._sized = False

    def _poll(self) -> None:
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise OSError(f"camera {self.spec} stopped sending frames")
        frame = self.turn.frame(frame)
        with self._frame_lock:
            self._frame = frame
            self.frames += 1
        if not self._sized:  # the size the device gave (it may not be the one asked for): the pages show it
            self._sized = True
            h, w = frame.shape[:2]
            self._set(
                "connected",
                f"{w}x{h} frames"
                + (
                    ""
                    if w >= 1280
                    else ": under 1280 px wide the dice are few pixels across and read less often"
                ),
            )
        self._maybe_read(frame)
        time.sleep(0.03)

    def _maybe_read(self, frame) -> None:
        """Read a settled frame for the pending roll.  A failed read (no model shipped, a frame it
        cannot read) never stops the camera: it is reported to the pages as a ``camera_problem``
        notice and the next read waits a growing pause (BACKOFF_S), reset by a read that works."""
        if self._settle is None:
            from companion.vision.settle import SettleDetector

            self._settle = SettleDetector()
        now = self._clock()
        if self._settle.update(now, frame) is None or now < self._read_after:
            return
        from . import play

        try:
            read = play.source_reading(self, frame)
            if read is not None:
                self.reads += 1
        except Exception as exc:
            self._read_failures += 1
            pause = BACKOFF_S[min(self._read_failures, len(BACKOFF_S)) - 1]
            self._read_after = now + pause
            self.read_error = str(exc)
            self.store.notice("camera_problem", {"problem": f"dice not read: {exc}", "retry_in_s": pause})
            self._set(
                "connected",
                f"showing frames only: dice not read ({exc}); trying again in {pause:g} s; tap faces",
            )
            return
        if self._read_failures:
            self._read_failures, self._read_after, self.read_error = 0, 0.0, None
            self._set("connected")
        needed = self.turn.needed()
        if needed != self._turn_told:  # the check changed its mind (more dice): the pages are told, and
            was, self._turn_told = self._turn_told, needed  # the status keeps saying it
            advice = self.turn.advice()
            if advice:
                self.store.notice("camera_turn", {"problem": advice, "needed": needed})
                self._set("connected", advice)
            elif was:  # the frames are the right way round after all
                self._set("connected")

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def latest_frame(self):
        with self._frame_lock:
            return None if self._frame is None else self._frame.copy()


class SerialSource(Source):
    """The smart-dice bridge on a pyserial URL (device path, pty, ``socket://``, ``loop://``).

    The link itself (``firmware_bridge.rolls.open_feed``) reconnects by itself with backoff; this
    source reports its state to the pages and hands each finished roll to the store, where it
    fills the face of the matching die of the pending roll (``web.play.serial_reading``).
    """

    kind = "serial"

    def __init__(self, spec, store, registry_path: str | None = None):
        super().__init__(spec, store)
        self.registry_path = registry_path
        self.feed = None
        self.last_contact: float | None = None  # wall-clock time the bridge was last connected

    def _run(self) -> None:
        from firmware_bridge.registry import DieRegistry
        from firmware_bridge.rolls import open_feed

        try:
            registry = DieRegistry.load_or_empty(self.registry_path) if self.registry_path else DieRegistry()
        except ValueError as exc:
            self._set("lost", f"die registry {self.registry_path}: {exc}")
            return
        self.feed = open_feed(self.spec, registry, on_reading=self._on_reading)
        seen = False
        while not self._stop.is_set():
            link = self.feed.link
            if link.connected:
                seen = True
                self._set("connected", f"{len(registry)} registered dice")
            else:
                why = link.last_error or "waiting for the bridge"
                self._set(
                    "lost" if seen or link.failed_opens else "connecting",
                    f"{why}; reconnecting by itself (the game goes on by tapping faces)",
                )
            self._stop.wait(0.5)
        self.feed.close()

    def _on_reading(self, reading) -> None:
        from .play import serial_reading

        try:
            serial_reading(self.store, reading)
        except Exception as exc:  # a reading that does not fit the game is reported, never fatal
            self.store.notice("serial_problem", {"die": reading.die_id, "problem": str(exc)})

    def _set(self, state: str, message: str = "") -> None:
        if state == "connected" or self.state == "connected":
            self.last_contact = time.time()  # connected now, or the moment it was lost
        super()._set(state, message)

    def status(self) -> dict:
        """The bridge's state with its dice; while it is not connected the dice listed are what it
        last said (``stale``: true), each with the time of its last message (``last_contact``)."""
        out = super().status()
        out["last_contact"] = time.time() if self.state == "connected" else self.last_contact
        if self.feed is not None:
            stale = self.state != "connected"
            out["dice"] = [dict(d.as_dict(), stale=stale) for d in self.feed.dice()]
        return out


class Sources:
    """The camera and the serial link of one server (``init_app`` starts them)."""

    def __init__(self, store, camera=None, serial=None, registry=None):
        from .phone_camera import PhoneCamera

        self.camera = CameraSource(camera, store)
        self.serial = SerialSource(serial, store, registry)
        self.phone = PhoneCamera(store)  # a phone on a stand, sending frames to /api/camera/frames

    def init_app(self, app: Flask) -> None:
        app.extensions["sources"] = self
        if app.config.get("START_SOURCES", True):
            self.start()

    def start(self) -> None:
        self.camera.start()
        self.serial.start()

    def stop(self) -> None:
        self.camera.stop()
        self.serial.stop()

    def status(self) -> list[dict]:
        return [self.camera_status(), self.serial.status()]

    def camera_status(self) -> dict:
        """The camera's state; without ``--camera``, a phone that sends frames is the camera."""
        if self.camera.spec is None and self.phone.last_frame_at is not None:
            return dict(self.phone.status(), kind="camera", via="phone")
        return self.camera.status()

    def latest_frame(self):
        """The newest frame of the camera, or of the phone camera when it is the camera."""
        frame = self.camera.latest_frame()
        return frame if frame is not None else self.phone.latest_frame()

    def latest_turn(self):
        """The turn (``camera_turn.SourceTurn``) of the source ``latest_frame`` takes its frame from."""
        return self.camera.turn if self.camera.latest_frame() is not None else self.phone.turn
