"""What the host does with each received line, apart from any transport: decode, suppress
duplicates by ``seq``, count accepted and dropped lines.

:class:`LineIntake` is single-threaded state owned by one link (one bridge); the link calls
:meth:`LineIntake.feed` from its reader thread.  ``lines == sum(accepted) + sum(dropped)`` always.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, deque
from dataclasses import dataclass, field

from firmware_bridge.protocol import (
    BRIDGE_TYPES,
    BridgeMessage,
    DropReason,
    FrameError,
    Hello,
    parse_line,
)

log = logging.getLogger(__name__)

DUPLICATE_WINDOW = 64  # spec, "Bridge to host", seq: the last 64 from one bridge since its last DDH


class SeqWindow:
    """The last ``size`` sequence numbers seen from one bridge since its last hello.

    A ``DDH`` opens a new window holding only its own ``seq`` and is never itself a duplicate: a
    bridge that restarts says hello with ``seq`` 0 again, and judging that hello against the
    numbers of its previous run would drop the hello and every message after it until the
    counter passed the old values.  Any other message whose ``seq`` is in the window is a duplicate.
    """

    def __init__(self, size: int = DUPLICATE_WINDOW):
        self.size = size
        self._order: deque[int] = deque()
        self._members: set[int] = set()

    def __contains__(self, seq: int) -> bool:
        return seq in self._members

    def __len__(self) -> int:
        return len(self._order)

    def add(self, seq: int) -> None:
        self._order.append(seq)
        self._members.add(seq)
        if len(self._order) > self.size:
            self._members.discard(self._order.popleft())

    def reset(self) -> None:
        self._order.clear()
        self._members.clear()


@dataclass(frozen=True)
class Accepted:
    message: BridgeMessage


@dataclass(frozen=True)
class Dropped:
    reason: DropReason
    detail: str


@dataclass(frozen=True)
class IntakeCounts:
    """A snapshot of the counters (safe to hand to another thread or print)."""

    lines: int
    accepted: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def accepted_total(self) -> int:
        return sum(self.accepted.values())

    @property
    def dropped_total(self) -> int:
        return sum(self.dropped.values())

    def as_dict(self) -> dict:
        return {
            "lines": self.lines,
            "accepted": dict(sorted(self.accepted.items())),
            "accepted_total": self.accepted_total,
            "dropped": dict(sorted(self.dropped.items())),
            "dropped_total": self.dropped_total,
        }


class LineIntake:
    """Decode and de-duplicate the lines of one bridge, counting every outcome."""

    def __init__(self, window: int = DUPLICATE_WINDOW):
        self._window = SeqWindow(window)
        self._lines = 0
        self._accepted: Counter[str] = Counter()
        self._dropped: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.bridge_name: str | None = None

    def feed(self, raw: bytes) -> Accepted | Dropped:
        """Judge one received line (its line end may be present or not)."""
        with self._lock:
            self._lines += 1
            try:
                message = parse_line(raw, BRIDGE_TYPES)
            except FrameError as exc:
                return self._drop(exc.reason, exc.detail, raw)
            if isinstance(message, Hello):
                self._window.reset()
                self.bridge_name = message.bridge_name
            elif message.seq in self._window:
                return self._drop(DropReason.DUPLICATE, f"seq {message.seq} seen already", raw)
            self._window.add(message.seq)
            self._accepted[message.TYPE] += 1
            return Accepted(message)

    def note_dropped(self, reason: DropReason, detail: str, raw: bytes = b"") -> Dropped:
        """Count a line the framing layer dropped before it could be fed (an over-long line)."""
        with self._lock:
            self._lines += 1
            return self._drop(reason, detail, raw)

    def _drop(self, reason: DropReason, detail: str, raw: bytes) -> Dropped:
        self._dropped[reason.value] += 1
        log.debug("dropped line (%s): %s: %r", reason.value, detail, bytes(raw[:40]))
        return Dropped(reason, detail)

    def counts(self) -> IntakeCounts:
        with self._lock:
            return IntakeCounts(self._lines, dict(self._accepted), dict(self._dropped))
