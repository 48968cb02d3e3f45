"""The host side of the serial link to one smart-dice bridge.

Transport and framing are kept apart, in the manner of pyserial's ``serial.threaded``: the port is
opened with :func:`serial.serial_for_url` (device paths, pty paths, ``socket://``, ``loop://``), a
:class:`serial.threaded.ReaderThread` reads it, and :class:`LineFramer` (a ``Packetizer``) cuts the
byte stream into lines and hands each to a :class:`~firmware_bridge.intake.LineIntake`.

:class:`BridgeLink` adds a supervisor thread: when the port disappears (USB unplug, pty closed,
socket reset) it reopens it with exponential backoff and carries on with the same duplicate window,
so lines the bridge sends again after a reconnect are suppressed by ``seq``.

Accepted messages reach the caller as :class:`LinkEvent` values, through a callback and/or a queue.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import serial
import serial.threaded

from firmware_bridge.intake import Accepted, IntakeCounts, LineIntake
from firmware_bridge.protocol import (
    BAUDRATE,
    MAX_LINE_BYTES,
    Blink,
    BridgeMessage,
    DropReason,
    HostCommand,
    ListDice,
    Ping,
    format_line,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LinkEvent:
    """One accepted message, with the monotonic time its line end was read."""

    message: BridgeMessage
    received_at: float


class LineFramer(serial.threaded.Packetizer):
    """Cuts the byte stream into ``\\n``-terminated lines.

    A line that grows past the limit without a line end is counted once as ``too_long`` and its
    bytes are skipped up to the next ``\\n``, so the buffer stays bounded whatever arrives.
    """

    TERMINATOR = b"\n"
    LIMIT = MAX_LINE_BYTES + 1  # room for the optional '\r'

    def __init__(
        self,
        intake: LineIntake,
        deliver: Callable[[BridgeMessage, float], None],
        on_lost: Callable[[BaseException | None], None],
    ):
        super().__init__()
        self.intake = intake
        self.deliver = deliver
        self.on_lost = on_lost
        self.skipping = False

    def connection_made(self, transport: serial.threaded.ReaderThread) -> None:
        super().connection_made(transport)
        if not hasattr(transport.serial, "cancel_read"):
            # socket:// cannot cancel a blocking read; a short timeout keeps close() prompt.
            transport.serial.timeout = 0.05

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        self.buffer.extend(data)
        while True:
            end = self.buffer.find(b"\n")
            if end < 0:
                if len(self.buffer) > self.LIMIT:
                    if not self.skipping:
                        self.intake.note_dropped(
                            DropReason.TOO_LONG, "no line end within the limit", bytes(self.buffer[:40])
                        )
                    self.skipping = True
                    del self.buffer[:]
                return
            packet = bytes(self.buffer[:end])
            del self.buffer[: end + 1]
            if self.skipping:
                self.skipping = False  # tail of a line already counted as too long
                continue
            self.handle_packet(packet, now)

    def handle_packet(self, packet: bytes, now: float | None = None) -> None:
        result = self.intake.feed(packet)
        if isinstance(result, Accepted):
            self.deliver(result.message, time.monotonic() if now is None else now)

    def connection_lost(self, exc: BaseException | None) -> None:
        # Unlike the base class, never re-raise in the reader thread: the link reconnects instead.
        self.transport = None
        del self.buffer[:]
        self.skipping = False
        self.on_lost(exc)


class ReaderThread(serial.threaded.ReaderThread):
    """pyserial's reader thread, except that a port failing outside its read (``in_waiting`` raises
    ``OSError`` EIO when a USB adapter is unplugged or a pty hangs up) ends the connection through
    ``connection_lost`` like any read error, instead of killing the thread without a word."""

    def run(self) -> None:
        try:
            super().run()
        except (OSError, serial.SerialException) as exc:
            self.alive = False
            protocol = self.protocol
            if protocol is not None:
                protocol.connection_lost(exc)
                self.protocol = None


@dataclass
class Backoff:
    """Exponential reconnection delay: ``initial``, doubled per failure, capped at ``maximum``."""

    initial: float = 0.05
    maximum: float = 2.0
    factor: float = 2.0

    def __post_init__(self) -> None:
        self._next = self.initial

    def next_delay(self) -> float:
        delay = self._next
        self._next = min(self.maximum, self._next * self.factor)
        return delay

    def reset(self) -> None:
        self._next = self.initial


@dataclass(frozen=True)
class LinkStats:
    counts: IntakeCounts
    connects: int
    disconnects: int
    failed_opens: int
    connected: bool
    bridge_name: str | None

    def as_dict(self) -> dict:
        return {
            **self.counts.as_dict(),
            "connects": self.connects,
            "disconnects": self.disconnects,
            "failed_opens": self.failed_opens,
            "connected": self.connected,
            "bridge": self.bridge_name,
        }


class LinkClosed(RuntimeError):
    """A command was sent while the port is not open."""


def url_problem(url: str) -> str | None:
    """Why pyserial can never open ``url`` (a protocol it does not know, such as ``foo://``), or None.
    A device path that is missing now is no problem here: the bridge may be plugged in later, and the
    link waits for it."""
    try:
        serial.serial_for_url(url, do_not_open=True)
    except (ValueError, serial.SerialException) as exc:
        return str(exc)
    return None


class BridgeLink:
    """A supervised, reconnecting link to one bridge.

    ``on_event`` is called in the reader thread for every accepted message (keep it short); the same
    events also go to :attr:`events` (a :class:`queue.Queue`) unless ``use_queue`` is false.
    """

    def __init__(
        self,
        url: str,
        *,
        on_event: Callable[[LinkEvent], None] | None = None,
        use_queue: bool = True,
        baudrate: int = BAUDRATE,
        backoff: Backoff | None = None,
        reconnect: bool = True,
    ):
        self.url = url
        self.baudrate = baudrate
        self.on_event = on_event
        self.events: queue.Queue[LinkEvent] | None = queue.Queue() if use_queue else None
        self.backoff = backoff or Backoff()
        self.reconnect = reconnect
        self.intake = LineIntake()
        self._reader: ReaderThread | None = None
        self._stop = threading.Event()
        self._lost = threading.Event()
        self._connected = threading.Event()
        self._lock = threading.Lock()
        self._supervisor: threading.Thread | None = None
        self.connects = 0
        self.disconnects = 0
        self.failed_opens = 0
        self.last_error: str | None = None

    # --- life cycle ---------------------------------------------------------------------------

    def start(self) -> BridgeLink:
        if self._supervisor is not None:
            raise RuntimeError("link already started")
        self._supervisor = threading.Thread(
            target=self._supervise, name=f"bridge-link {self.url}", daemon=True
        )
        self._supervisor.start()
        return self

    def wait_connected(self, timeout: float | None = None) -> bool:
        return self._connected.wait(timeout)

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def close(self) -> None:
        self._stop.set()
        self._lost.set()  # the supervisor wakes, closes the port and returns
        if self._supervisor is not None:
            self._supervisor.join(5)

    def __enter__(self) -> BridgeLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def serial(self) -> serial.SerialBase | None:
        """The open port (for ``loop://`` tests that write bridge lines into it), or ``None``."""
        reader = self._reader
        return reader.serial if reader is not None else None

    # --- commands -----------------------------------------------------------------------------

    def send(self, command: HostCommand) -> None:
        line = format_line(command)
        with self._lock:
            reader = self._reader
        if reader is None or not self._connected.is_set():
            raise LinkClosed(f"cannot send {line.strip().decode()}: {self.url} is not connected")
        try:
            reader.write(line)
        except (serial.SerialException, OSError) as exc:
            raise LinkClosed(f"cannot send to {self.url}: {exc}") from exc

    def ping(self) -> None:
        self.send(Ping())

    def blink(self, die_id: str, count: int = 3, color: str = "FFFFFF") -> None:
        self.send(Blink(die_id, count, color))

    def list_dice(self) -> None:
        self.send(ListDice())

    # --- figures ------------------------------------------------------------------------------

    def stats(self) -> LinkStats:
        return LinkStats(
            self.intake.counts(),
            self.connects,
            self.disconnects,
            self.failed_opens,
            self.connected,
            self.intake.bridge_name,
        )

    # --- internals ----------------------------------------------------------------------------

    def _deliver(self, message: BridgeMessage, received_at: float) -> None:
        event = LinkEvent(message, received_at)
        if self.events is not None:
            self.events.put(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # a consumer's bug must not kill the reader
                log.exception("on_event callback failed")

    def _on_lost(self, exc: BaseException | None) -> None:
        if exc is not None and not self._stop.is_set():
            self.last_error = str(exc)
            log.warning("bridge port %s lost: %s", self.url, exc)
        self._lost.set()

    def _open(self) -> serial.SerialBase | None:
        try:
            # A device or pty path is locked (flock) so that a second reader cannot steal lines.
            exclusive = True if "://" not in self.url else None
            return serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=None, exclusive=exclusive)
        except (serial.SerialException, OSError, ValueError) as exc:
            self.failed_opens += 1
            self.last_error = str(exc)
            log.debug("cannot open %s: %s", self.url, exc)
            return None

    def _supervise(self) -> None:
        while not self._stop.is_set():
            port = self._open()
            if port is None:
                if not self.reconnect:
                    log.error("cannot open %s: %s", self.url, self.last_error)
                    return
                self._stop.wait(self.backoff.next_delay())
                continue
            self._lost.clear()
            reader = ReaderThread(port, lambda: LineFramer(self.intake, self._deliver, self._on_lost))
            with self._lock:
                self._reader = reader
            reader.start()
            try:
                reader.connect()
            except RuntimeError:
                pass
            else:
                self.connects += 1
                self.backoff.reset()
                self._connected.set()
                log.info("bridge port %s open", self.url)
            while not self._lost.wait(0.2) and not self._stop.is_set():
                pass  # (a close() racing with the clear() above is still seen through _stop)
            self._connected.clear()
            with self._lock:
                self._reader = None
            reader.close()
            if self._stop.is_set():
                return
            self.disconnects += 1
            if not self.reconnect:
                return
            self._stop.wait(self.backoff.next_delay())
