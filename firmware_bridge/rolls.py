"""Smart-dice readings for the game: the API the game session and the web page use.

A :class:`DiceFeed` sits on a :class:`~firmware_bridge.link.BridgeLink` and a
:class:`~firmware_bridge.registry.DieRegistry` and turns accepted messages into:

* :class:`Reading` values, one per finished roll (``rolled``) or cocked die (``crooked``) (the game takes
  each as a ``companion.readings.DieReading``: :meth:`Reading.die_reading`): the die,
  and for a registered die what its face means (catalogue unit/monster/terrain/dragon and face, or a
  standard die's value).  A crooked die is a reading with ``needs_reroll``; a die that is not
  registered, or a face index its registered die does not have, is a reading with ``problem`` set
  and no meaning: it is reported, never guessed.  Readings go to ``on_reading`` (called in the
  reader thread) and to the :attr:`DiceFeed.readings` queue.
* the latest battery report per die (:meth:`DiceFeed.batteries`) and roll state per die
  (:meth:`DiceFeed.dice`), for the tablet;
* :meth:`DiceFeed.blink` to find a die on the table.

Typical use (``companion serve --serial URL``)::

    feed = open_feed(url, DieRegistry.load(path), on_reading=session_callback)
    ...
    feed.blink("pxA7F3")
    feed.close()

:func:`simulated_feed` does the same with a simulated bridge (in-process, over a real pty or TCP
socket, through the real link code): ``companion demo --dice simulated``.
"""

from __future__ import annotations

import logging
import os
import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from companion.readings import DieReading, Source, State
from firmware_bridge.link import Backoff, BridgeLink, LinkEvent, LinkStats
from firmware_bridge.protocol import UNKNOWN_FACE, Battery, DieState, Fault, Hello, RollState
from firmware_bridge.registry import CatalogueEntry, DieRegistry, FaceMeaning, RegistryError

if TYPE_CHECKING:
    from firmware_bridge.sim_ports import SimulatorRunner

log = logging.getLogger(__name__)

FINAL_STATES = (RollState.ROLLED, RollState.CROOKED)
LIST_WINDOW_S = 2.0  # how long after a LIST an unchanged state is taken as its answer


@dataclass(frozen=True)
class Reading:
    """A finished roll (or a cocked die) of one physical die."""

    die_id: str
    seq: int
    state: RollState
    face_index: int
    registered: bool | None = None  # None when read without a registry
    meaning: FaceMeaning | None = None
    problem: str | None = None
    bridge: str | None = None
    received_at: float = 0.0  # time.monotonic() when the line arrived

    @property
    def needs_reroll(self) -> bool:
        return self.state is RollState.CROOKED

    def is_usable(self) -> bool:
        """A roll the game can take as it is: rolled, registered, face known."""
        return self.state is RollState.ROLLED and self.meaning is not None

    def die_reading(self) -> DieReading:
        """This roll as the value every dice source gives (``companion.readings.DieReading``): the face
        as the catalogue writes it, sure (a smart die knows its face), ``cocked`` for a crooked die and
        ``unreadable`` (with the ``problem``) for a die the registry cannot interpret."""
        name = self.meaning.name if self.meaning is not None else None
        common = {"source": Source.SMART_DIE, "name": name, "device": self.die_id, "problem": self.problem}
        if self.needs_reroll:
            return DieReading(self.die_id, None, 1.0, state=State.COCKED, **common)
        if not self.is_usable():
            return DieReading(self.die_id, None, 0.0, state=State.UNREADABLE, **common)
        assert self.meaning is not None
        return DieReading(
            self.die_id, self.meaning.face_text, 1.0, face_index=self.meaning.face_number - 1, **common
        )

    def as_dict(self) -> dict:
        out: dict = {
            "die": self.die_id,
            "state": self.state.value,
            "face_index": self.face_index,
            "seq": self.seq,
        }
        if self.bridge is not None:
            out["bridge"] = self.bridge
        if self.registered is not None:
            out["registered"] = self.registered
        if self.meaning is not None:
            out.update(self.meaning.as_dict())
        if self.needs_reroll:
            out["needs_reroll"] = True
        if self.problem is not None:
            out["problem"] = self.problem
        return out


def reading_from(
    message: DieState, registry: DieRegistry | None, *, bridge: str | None = None, received_at: float = 0.0
) -> Reading | None:
    """The reading for one accepted ``DDR``, or ``None`` when it is not a finished state.

    With no registry, readings carry the raw face index only.  With one, an unregistered die and a
    face index the registered die does not have are reported in ``problem``.
    """
    if message.state not in FINAL_STATES:
        return None
    meaning = None
    problem = None
    registered = None if registry is None else message.die_id in registry
    if registered is False:
        problem = f"die {message.die_id} is not registered"
    elif message.state is RollState.CROOKED:
        problem = "die is cocked (crooked): reroll it or rule on it"
    elif message.face_index == UNKNOWN_FACE:
        problem = "the die rolled but could not tell its face: read it by hand or reroll"
    elif registry is not None:
        try:
            meaning = registry.interpret(message.die_id, message.face_index)
        except RegistryError as exc:
            problem = str(exc)
    return Reading(
        message.die_id,
        message.seq,
        message.state,
        message.face_index,
        registered,
        meaning,
        problem,
        bridge,
        received_at,
    )


@dataclass(frozen=True)
class BatteryStatus:
    die_id: str
    percent: int
    charging: bool
    received_at: float


@dataclass
class DieStatus:
    """What the tablet shows for one die seen on the bridge."""

    die_id: str
    state: RollState | None = None
    face_index: int = -1
    battery: BatteryStatus | None = None
    name: str | None = None  # registered catalogue name or "d20"; None if unregistered
    last_contact: float | None = None  # wall-clock time (time.time()) of the die's last message

    def as_dict(self) -> dict:
        return {
            "die": self.die_id,
            "state": self.state.value if self.state is not None else None,
            "face_index": self.face_index,
            "name": self.name,
            "battery_percent": self.battery.percent if self.battery else None,
            "charging": self.battery.charging if self.battery else None,
            "last_contact": self.last_contact,
        }


@dataclass
class DiceFeed:
    """Readings, batteries and blink for one bridge.  Thread-safe to read from any thread."""

    link: BridgeLink
    registry: DieRegistry | None = None
    on_reading: Callable[[Reading], None] | None = None
    readings: queue.Queue[Reading] = field(default_factory=queue.Queue)
    faults: list[Fault] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._dice: dict[str, DieStatus] = {}
        self._list_until = 0.0
        self._told_unregistered: set[str] = set()  # dice whose "not registered" was logged (once each)
        self.link.on_event = self._on_event

    # --- queries ------------------------------------------------------------------------------

    def batteries(self) -> dict[str, BatteryStatus]:
        with self._lock:
            return {d: s.battery for d, s in self._dice.items() if s.battery is not None}

    def dice(self) -> list[DieStatus]:
        """Every die seen so far, registered ones included even before they report."""
        with self._lock:
            known = {k: replace(v) for k, v in self._dice.items()}  # copies: the reader updates ours
        if self.registry is not None:
            for die_id in self.registry:
                known.setdefault(die_id, DieStatus(die_id))
        for status in known.values():
            status.name = self._name(status.die_id)
        return [known[k] for k in sorted(known)]

    def stats(self) -> LinkStats:
        return self.link.stats()

    def list_dice(self) -> None:
        """Ask the bridge for the current state of every die (refreshes :meth:`dice`).  Its answers
        repeat states already reported; for LIST_WINDOW_S they are not taken as new rolls."""
        self._list_until = time.monotonic() + LIST_WINDOW_S
        self.link.list_dice()

    def blink(self, die_id: str, count: int = 3, color: str = "FFFFFF") -> None:
        """Ask the bridge to blink a die; raises ``LinkClosed`` when the bridge is not connected and
        ``FrameError`` (a ``ValueError``) for an impossible die id, count or colour."""
        self.link.blink(die_id, count, color)

    # --- life cycle ---------------------------------------------------------------------------

    def start(self) -> DiceFeed:
        self.link.start()
        return self

    def close(self) -> None:
        self.link.close()

    def __enter__(self) -> DiceFeed:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- internals ----------------------------------------------------------------------------

    def _name(self, die_id: str) -> str | None:
        entry = self.registry.get(die_id) if self.registry is not None else None
        return entry.name if entry is not None else None

    def _on_event(self, event: LinkEvent) -> None:
        message = event.message
        if isinstance(message, Battery):
            with self._lock:
                status = self._dice.setdefault(message.die_id, DieStatus(message.die_id))
                status.battery = BatteryStatus(
                    message.die_id, message.percent, message.charging, event.received_at
                )
                status.last_contact = time.time()
            return
        if isinstance(message, Fault):
            log.warning("bridge fault %s: %s", message.code, message.text)
            with self._lock:
                self.faults.append(message)
            return
        if isinstance(message, Hello):
            log.info(
                "bridge %s (firmware %s, protocol %d)",
                message.bridge_name,
                message.firmware_version,
                message.protocol_version,
            )
            return
        with self._lock:
            status = self._dice.setdefault(message.die_id, DieStatus(message.die_id))
            repeat = (status.state, status.face_index) == (message.state, message.face_index)
            status.state, status.face_index = message.state, message.face_index
            status.last_contact = time.time()
        if repeat and event.received_at <= self._list_until:
            return  # the bridge answering LIST with a state it reported already: not a new roll
        reading = reading_from(
            message, self.registry, bridge=self.link.intake.bridge_name, received_at=event.received_at
        )
        if reading is None:
            return
        if reading.registered is False:
            if reading.die_id not in self._told_unregistered:  # once per die, not on every roll
                self._told_unregistered.add(reading.die_id)
                log.warning(
                    "die %s is not registered: its rolls are reported but not read; register it with "
                    "`companion dice pair --port URL --registry FILE` and start with that --registry",
                    reading.die_id,
                )
        elif reading.problem is not None:
            log.info("die %s: %s", reading.die_id, reading.problem)
        self.readings.put(reading)
        if self.on_reading is not None:
            self.on_reading(reading)


def open_feed(
    url: str, registry: DieRegistry | None = None, on_reading: Callable[[Reading], None] | None = None
) -> DiceFeed:
    """A started feed on the bridge at ``url`` (any pyserial URL); it reconnects by itself."""
    link = BridgeLink(url, use_queue=False)
    return DiceFeed(link, registry, on_reading).start()


@dataclass
class SimulatedFeed(DiceFeed):
    """A :class:`DiceFeed` whose bridge is a simulator running in this process."""

    runner: SimulatorRunner | None = None

    def roll(self, die_id: str) -> float:
        """Roll one simulated die now (it settles a second or two later)."""
        return self.runner.roll(die_id)

    def close(self) -> None:
        self.link.close()
        self.runner.stop()


def simulated_feed(
    registry: DieRegistry | None = None,
    *,
    dice: int = 0,
    seed: int | None = None,
    auto: bool = False,
    speed: float = 1.0,
    noise: bool = True,
    on_reading: Callable[[Reading], None] | None = None,
) -> SimulatedFeed:
    """Start a simulated bridge and a feed on it, through a real pty (or TCP socket where there are no
    ptys) and the real link code.

    The simulated dice are the registry's dice (with their number of faces), plus ``dice`` extra
    unregistered ones.  With ``auto`` they are rolled at random by themselves; otherwise call
    :meth:`SimulatedFeed.roll`.
    """
    from firmware_bridge.sim_ports import PtyEndpoint, SimulatorRunner, TcpEndpoint
    from firmware_bridge.simulator import BridgeSimulator, NoiseRates, SimDie

    rng = random.Random(seed)
    sim_dice = []
    for die_id in registry or ():
        entry = registry.get(die_id)
        faces = len(entry.face_map) if isinstance(entry, CatalogueEntry) else entry.sides
        sim_dice.append(SimDie(die_id, faces, rng.randrange(faces), rng.randrange(50, 101)))
    extra = BridgeSimulator.with_dice(dice, seed=seed).dice if dice else []
    sim = BridgeSimulator(
        sim_dice + extra, seed=seed, auto=auto, noise=NoiseRates() if noise else NoiseRates.none()
    )
    endpoint = PtyEndpoint() if hasattr(os, "openpty") else TcpEndpoint()
    runner = SimulatorRunner(sim, endpoint, speed=speed).start()
    link = BridgeLink(runner.url, use_queue=False, backoff=Backoff(0.02, 0.5))
    feed = SimulatedFeed(link, registry, on_reading, runner=runner)
    return feed.start()
