"""A simulated smart-dice bridge: the lines a real bridge with Pixels-like dice would send.

:class:`BridgeSimulator` is a deterministic state machine driven by the times it is given (no clock
of its own) and a seeded :class:`random.Random`.  Each die goes through the roll states of Pixels
dice with realistic timing:

* a roll: (often) ``handling`` while picked up, ``rolling`` while it tumbles (0.6-1.6 s), then, after
  it has been still for the bridge's settle time, ``rolled`` with its face, or now and then
  ``crooked`` (cocked: needs a reroll);
* a hand move that is not a roll: ``handling`` then ``onface``.

Now and then it sends garbage (junk, a corrupted or truncated line, non-ASCII bytes, an over-long
line) and repeats a line verbatim, as a flaky radio or USB link would; it also reports batteries.
It answers the host commands PING (``DDH``), LIST (one ``DDR`` per die) and BLINK (recorded; a
``DDE`` for an unknown die).

``emitted`` records every message it sent once (the ground truth tests compare against).
:mod:`firmware_bridge.sim_ports` runs it in real time over a pty or a TCP socket.
"""

from __future__ import annotations

import heapq
import itertools
import random
from dataclasses import dataclass, field

from firmware_bridge.protocol import (
    HOST_TYPES,
    MAX_LINE_BYTES,
    UNKNOWN_FACE,
    Battery,
    Blink,
    BridgeMessage,
    DieState,
    Fault,
    FrameError,
    Hello,
    ListDice,
    Ping,
    RollState,
    format_line,
    next_seq,
    parse_line,
)

SETTLE_S = 0.3  # still this long before the bridge reports rolled (as the reference firmware does)
BATTERY_PERIOD_S = 30.0
FIRMWARE_VERSION = "0.1.0-sim"


@dataclass
class SimDie:
    die_id: str
    faces: int
    face: int
    battery: int
    charging: bool = False
    state: RollState = RollState.ONFACE
    busy_until: float = 0.0


@dataclass
class NoiseRates:
    """Probabilities per message sent: a garbage line before it, a verbatim repeat after it."""

    garbage: float = 0.03
    duplicate: float = 0.03

    @classmethod
    def none(cls) -> NoiseRates:
        return cls(0.0, 0.0)


@dataclass
class BridgeSimulator:
    dice: list[SimDie]
    seed: int | None = None
    bridge_name: str = "simbridge"
    noise: NoiseRates = field(default_factory=NoiseRates)
    crooked_rate: float = 0.04
    handle_only_rate: float = 0.15
    mean_gap_s: float = 2.5  # mean pause between turns in auto mode
    auto: bool = True

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.seq = 0
        self._queue: list[tuple[float, int, str, str, int]] = []
        self._tie = itertools.count()
        self.emitted: list[BridgeMessage] = []
        self.blinks: list[Blink] = []
        self.bad_commands = 0
        self._by_id = {d.die_id: d for d in self.dice}

    @classmethod
    def with_dice(cls, count: int, seed: int | None = None, faces: int = 6, **kwargs) -> BridgeSimulator:
        rng = random.Random(seed)
        dice = [
            SimDie(
                f"px{i + 1:02d}{rng.randrange(16**4):04X}",
                faces,
                rng.randrange(faces),
                rng.randrange(40, 101),
            )
            for i in range(count)
        ]
        return cls(dice, seed=seed, **kwargs)

    # --- scheduling ---------------------------------------------------------------------------

    def _at(self, when: float, die_id: str, action: str, face: int = UNKNOWN_FACE) -> None:
        heapq.heappush(self._queue, (when, next(self._tie), die_id, action, face))

    def next_due(self) -> float | None:
        return self._queue[0][0] if self._queue else None

    def start(self, now: float) -> list[bytes]:
        """Power-up: a partial line left from before the restart, the hello, a battery report per die."""
        out = [b"R,17,px0000,rol\n"]  # tail of a line cut off by the restart
        self.seq = 0
        out += self._emit(Hello(self.seq, self.bridge_name, FIRMWARE_VERSION, 1), noisy=False)
        for die in self.dice:
            out += self._emit(self._battery(die))
        if self.auto:
            self._at(now + self.rng.uniform(0.2, 1.0), "", "turn")
        for die in self.dice:
            self._at(now + BATTERY_PERIOD_S * self.rng.uniform(0.5, 1.5), die.die_id, "battery")
        return out

    def roll(self, die_id: str, now: float, *, handled: bool | None = None) -> float:
        """Schedule a full roll of one die starting at ``now``; returns when it will have finished."""
        die = self._by_id[die_id]
        t = max(now, die.busy_until)
        if handled if handled is not None else self.rng.random() < 0.6:
            self._at(t, die_id, RollState.HANDLING.value)
            t += self.rng.uniform(0.3, 1.2)
        self._at(t, die_id, RollState.ROLLING.value)
        t += self.rng.uniform(0.6, 1.6) + SETTLE_S
        if self.rng.random() < self.crooked_rate:
            self._at(t, die_id, RollState.CROOKED.value)
        else:
            self._at(t, die_id, RollState.ROLLED.value, self.rng.randrange(die.faces))
        die.busy_until = t + 0.05
        return die.busy_until

    def handle(self, die_id: str, now: float) -> float:
        """Pick a die up and put it down by hand (not a roll)."""
        die = self._by_id[die_id]
        t = max(now, die.busy_until)
        self._at(t, die_id, RollState.HANDLING.value)
        t += self.rng.uniform(0.5, 2.0)
        self._at(t, die_id, RollState.ONFACE.value, self.rng.randrange(die.faces))
        die.busy_until = t + 0.05
        return die.busy_until

    def _turn(self, now: float) -> None:
        idle = [d for d in self.dice if d.busy_until <= now]
        end = now
        if idle:
            if self.rng.random() < self.handle_only_rate:
                end = self.handle(self.rng.choice(idle).die_id, now)
            else:
                for die in self.rng.sample(idle, self.rng.randint(1, len(idle))):
                    end = max(end, self.roll(die.die_id, now + self.rng.uniform(0.0, 0.2)))
        self._at(end + self.rng.expovariate(1.0 / self.mean_gap_s), "", "turn")

    # --- output -------------------------------------------------------------------------------

    def advance(self, now: float) -> list[bytes]:
        """The lines due up to ``now``."""
        out: list[bytes] = []
        while self._queue and self._queue[0][0] <= now:
            when, _, die_id, action, face = heapq.heappop(self._queue)
            if action == "turn":
                if self.auto:  # switching auto off ends the random turns
                    self._turn(when)
            elif action == "battery":
                die = self._by_id[die_id]
                die.battery = max(0, die.battery - self.rng.choice((0, 0, 1)))
                out += self._emit(self._battery(die))
                self._at(when + BATTERY_PERIOD_S, die_id, "battery")
            else:
                die = self._by_id[die_id]
                die.state = RollState(action)
                if face != UNKNOWN_FACE:
                    die.face = face
                out += self._emit(self._die_state(die, face))
        return out

    def _next_seq(self) -> int:
        self.seq = next_seq(self.seq)
        return self.seq

    def _die_state(self, die: SimDie, face: int) -> DieState:
        return DieState(self._next_seq(), die.die_id, die.state, face)

    def _battery(self, die: SimDie) -> Battery:
        return Battery(self._next_seq(), die.die_id, die.battery, die.charging)

    def _emit(self, message: BridgeMessage, noisy: bool = True) -> list[bytes]:
        self.emitted.append(message)
        line = format_line(message)
        out = []
        if noisy and self.rng.random() < self.noise.garbage:
            out.append(self.garbage(line))
        out.append(line)
        if noisy and self.rng.random() < self.noise.duplicate:
            out.append(line)
        return out

    def garbage(self, line: bytes) -> bytes:
        """One bad line, of a kind chosen at random, derived from the good ``line``."""
        kind = self.rng.randrange(5)
        body = bytearray(line.rstrip(b"\n"))
        if kind == 0:  # corrupted byte in the body: checksum no longer matches
            i = self.rng.randrange(1, body.index(b"*"))
            body[i] = (body[i] - 0x20 + self.rng.randrange(1, 94)) % 95 + 0x20
            if body[i] in b"$*\n":
                body[i] = ord("#")
        elif kind == 1:  # truncated
            body = body[: self.rng.randrange(1, len(body) - 1)]
        elif kind == 2:  # non-ASCII noise
            body = bytearray(self.rng.randrange(0x80, 0x100) for _ in range(self.rng.randrange(1, 12)))
        elif kind == 3:  # over-long
            body = bytearray(b"$" + b"X" * (MAX_LINE_BYTES + self.rng.randrange(1, 200)))
        else:  # printable junk without a start
            body = bytearray(self.rng.randrange(0x20, 0x7F) for _ in range(self.rng.randrange(0, 30)))
            body = body.replace(b"$", b"")
        return bytes(body) + b"\n"

    # --- host commands ------------------------------------------------------------------------

    def command(self, raw: bytes, now: float) -> list[bytes]:
        try:
            cmd = parse_line(raw, HOST_TYPES)
        except FrameError:
            self.bad_commands += 1
            return []
        if isinstance(cmd, Ping):
            return self._emit(Hello(self._next_seq(), self.bridge_name, FIRMWARE_VERSION, 1), noisy=False)
        if isinstance(cmd, ListDice):
            out: list[bytes] = []
            for die in self.dice:
                face = die.face if die.state not in (RollState.ROLLING, RollState.HANDLING) else UNKNOWN_FACE
                if die.state is RollState.CROOKED:
                    face = UNKNOWN_FACE
                out += self._emit(self._die_state(die, face), noisy=False)
            return out
        assert isinstance(cmd, Blink)
        self.blinks.append(cmd)
        if cmd.die_id not in self._by_id:
            return self._emit(Fault(self._next_seq(), "E_NODIE", f"no die {cmd.die_id}"), noisy=False)
        return []

    # --- ground truth -------------------------------------------------------------------------

    def finished_rolls(self) -> list[DieState]:
        """Every rolled/crooked message sent (once each, whatever the noise did)."""
        return [
            m
            for m in self.emitted
            if isinstance(m, DieState) and m.state in (RollState.ROLLED, RollState.CROOKED)
        ]
