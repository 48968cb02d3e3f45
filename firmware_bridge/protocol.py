"""Codec for the smart-dice serial protocol, version 1 (shared/protocol/smart-dice-serial.md).

One message per line, NMEA-style: ``$<body>*<hh>`` where ``<hh>`` is the XOR of every body byte in
hexadecimal.  :func:`parse_line` turns one received line into a message value or raises
:class:`FrameError` naming the drop reason; :func:`format_line` is its inverse.  Parsing is strict and
canonical (decimal integers without sign or leading zeros, except ``-1`` for an unknown face), so
``format_line(parse_line(x))`` equals ``x`` for every accepted ``x`` up to the case of the checksum
digits and the optional ``\\r``.

Style follows python-chess: immutable values, ``parse_*``/``format_*``/``is_*`` verb families and a
typed error.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from functools import reduce

PROTOCOL_VERSION = 1
BAUDRATE = 115200
MAX_LINE_BYTES = 120  # before the line end (protocol spec, "Framing")
SEQ_MODULUS = 65536  # seq is 0..65535 and wraps to 0 (spec, "Bridge to host")
MAX_FACE_INDEX = 19
UNKNOWN_FACE = -1


class DropReason(enum.StrEnum):
    """Why a received line was not accepted (every case the spec names, plus duplicates)."""

    TOO_LONG = "too_long"  # more than 120 bytes before the line end
    NOT_ASCII = "not_ascii"  # a byte outside printable ASCII
    NO_START = "no_start"  # the line does not begin with '$' (includes blank lines, partial lines)
    BAD_CHECKSUM = "bad_checksum"  # no '*hh' trailer, hh not hexadecimal, or XOR mismatch
    UNKNOWN_TYPE = "unknown_type"  # first field is not a message type this side accepts
    FIELD_COUNT = "field_count"  # wrong number of fields for the type
    FIELD_RANGE = "field_range"  # a field is malformed or out of its range
    DUPLICATE = "duplicate"  # seq seen among the last 64 from this bridge (link level, not codec)


class FrameError(ValueError):
    """A line that must be dropped; ``reason`` says which rule it broke."""

    def __init__(self, reason: DropReason, detail: str):
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason
        self.detail = detail


class RollState(enum.StrEnum):
    """Roll states of Pixels dice, as the bridge forwards them."""

    ROLLING = "rolling"
    HANDLING = "handling"
    ROLLED = "rolled"  # the only finished roll
    CROOKED = "crooked"  # cocked die: needs a reroll or a ruling
    ONFACE = "onface"  # put down by hand or powered up: not a roll


# --- message values -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """``DDH``: the bridge says hello (at start and in answer to PING)."""

    seq: int
    bridge_name: str
    firmware_version: str
    protocol_version: int

    TYPE = "DDH"

    def fields(self) -> list[str]:
        return [str(self.seq), self.bridge_name, self.firmware_version, str(self.protocol_version)]


@dataclass(frozen=True, slots=True)
class DieState:
    """``DDR``: a die changed roll state."""

    seq: int
    die_id: str
    state: RollState
    face_index: int

    TYPE = "DDR"

    def fields(self) -> list[str]:
        return [str(self.seq), self.die_id, self.state.value, str(self.face_index)]

    def is_finished_roll(self) -> bool:
        return self.state is RollState.ROLLED


@dataclass(frozen=True, slots=True)
class Battery:
    """``DDB``: a die's battery level."""

    seq: int
    die_id: str
    percent: int
    charging: bool

    TYPE = "DDB"

    def fields(self) -> list[str]:
        return [str(self.seq), self.die_id, str(self.percent), "1" if self.charging else "0"]


@dataclass(frozen=True, slots=True)
class Fault:
    """``DDE``: the bridge reports a fault (lost die, radio error)."""

    seq: int
    code: str
    text: str

    TYPE = "DDE"

    def fields(self) -> list[str]:
        return [str(self.seq), self.code, self.text]


@dataclass(frozen=True, slots=True)
class Ping:
    """``DDC,PING``: ask the bridge for a DDH."""

    TYPE = "DDC"

    def fields(self) -> list[str]:
        return ["PING"]


@dataclass(frozen=True, slots=True)
class Blink:
    """``DDC,BLINK,die_id,count,rrggbb``: blink a die to find it on the table."""

    die_id: str
    count: int = 3
    color: str = "FFFFFF"

    TYPE = "DDC"

    def __post_init__(self) -> None:
        check_die_id(self.die_id)
        if not 1 <= self.count <= MAX_BLINK_COUNT:
            raise FrameError(DropReason.FIELD_RANGE, f"blink count {self.count} not in 1..{MAX_BLINK_COUNT}")
        if not _COLOR_RE.fullmatch(self.color):
            raise FrameError(DropReason.FIELD_RANGE, f"blink colour {self.color!r} is not rrggbb hex")

    def fields(self) -> list[str]:
        return ["BLINK", self.die_id, str(self.count), self.color]


@dataclass(frozen=True, slots=True)
class ListDice:
    """``DDC,LIST``: ask for one DDR per known die."""

    TYPE = "DDC"

    def fields(self) -> list[str]:
        return ["LIST"]


BridgeMessage = Hello | DieState | Battery | Fault
HostCommand = Ping | Blink | ListDice
Message = BridgeMessage | HostCommand

BRIDGE_TYPES = frozenset({"DDH", "DDR", "DDB", "DDE"})  # spec, "Bridge to host"
HOST_TYPES = frozenset({"DDC"})  # spec, "Host to bridge"
ALL_TYPES = BRIDGE_TYPES | HOST_TYPES
MAX_BLINK_COUNT = 255  # our bound; the spec gives no maximum

# --- field rules ----------------------------------------------------------------------------------

_DIE_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,16}")  # spec, "Bridge to host", die_id
_UINT_RE = re.compile(r"0|[1-9][0-9]{0,4}")
_COLOR_RE = re.compile(r"[0-9A-Fa-f]{6}")
_HEX2_RE = re.compile(rb"[0-9A-Fa-f]{2}")
_FORBIDDEN_IN_FIELD = frozenset("$*,")


def checksum(body: bytes) -> int:
    """XOR of every byte of ``body``."""
    return reduce(lambda acc, b: acc ^ b, body, 0)


def _uint(text: str, name: str, hi: int) -> int:
    if not _UINT_RE.fullmatch(text) or int(text) > hi:
        raise FrameError(DropReason.FIELD_RANGE, f"{name} {text!r} is not an integer in 0..{hi}")
    return int(text)


def _seq(text: str) -> int:
    return _uint(text, "seq", SEQ_MODULUS - 1)


def check_die_id(text: str) -> str:
    if not _DIE_ID_RE.fullmatch(text):
        raise FrameError(DropReason.FIELD_RANGE, f"die_id {text!r} is not 1..16 of A-Z a-z 0-9 _ -")
    return text


def _token(text: str, name: str) -> str:
    if not text:
        raise FrameError(DropReason.FIELD_RANGE, f"{name} is empty")
    return text


def _face_index(text: str) -> int:
    # -1 is in range for every state, "rolled" included: the spec gives one range, and a roll whose
    # face the die could not tell is reported to the players (firmware_bridge.rolls), not dropped.
    if text == "-1":
        return UNKNOWN_FACE
    return _uint(text, "face_index", MAX_FACE_INDEX)


def _expect(fields: list[str], count: int, what: str) -> None:
    if len(fields) != count:
        raise FrameError(DropReason.FIELD_COUNT, f"{what} takes {count} fields, got {len(fields)}")


def _parse_ddh(f: list[str]) -> Hello:
    _expect(f, 4, "DDH")
    version = _uint(f[3], "protocol_version", SEQ_MODULUS - 1)
    return Hello(_seq(f[0]), _token(f[1], "bridge_name"), _token(f[2], "firmware_version"), version)


def _parse_ddr(f: list[str]) -> DieState:
    _expect(f, 4, "DDR")
    seq, die_id = _seq(f[0]), check_die_id(f[1])
    try:
        state = RollState(f[2])
    except ValueError:
        raise FrameError(DropReason.FIELD_RANGE, f"state {f[2]!r} is not a roll state") from None
    return DieState(seq, die_id, state, _face_index(f[3]))


def _parse_ddb(f: list[str]) -> Battery:
    _expect(f, 4, "DDB")
    seq, die_id, percent = _seq(f[0]), check_die_id(f[1]), _uint(f[2], "battery_percent", 100)
    if f[3] not in ("0", "1"):
        raise FrameError(DropReason.FIELD_RANGE, f"charging {f[3]!r} is not 0 or 1")
    return Battery(seq, die_id, percent, f[3] == "1")


def _parse_dde(f: list[str]) -> Fault:
    _expect(f, 3, "DDE")
    return Fault(_seq(f[0]), _token(f[1], "code"), f[2])


def _parse_ddc(f: list[str]) -> HostCommand:
    if not f:
        raise FrameError(DropReason.FIELD_COUNT, "DDC without a command")
    name = f[0]
    if name == "PING":
        _expect(f, 1, "DDC,PING")
        return Ping()
    if name == "LIST":
        _expect(f, 1, "DDC,LIST")
        return ListDice()
    if name == "BLINK":
        _expect(f, 4, "DDC,BLINK")
        count = _uint(f[2], "blink count", MAX_BLINK_COUNT)
        return Blink(f[1], count, f[3])
    raise FrameError(DropReason.FIELD_RANGE, f"DDC command {name!r} is not PING, BLINK or LIST")


_PARSERS = {"DDH": _parse_ddh, "DDR": _parse_ddr, "DDB": _parse_ddb, "DDE": _parse_dde, "DDC": _parse_ddc}


# --- framing --------------------------------------------------------------------------------------


def strip_line_end(raw: bytes) -> bytes:
    """The line without its ``\\n`` and the optional ``\\r`` before it."""
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    return raw


def parse_line(raw: bytes | str, accept: frozenset[str] = ALL_TYPES) -> Message:
    """Decode one line (with or without its line end) into a message, or raise :class:`FrameError`.

    ``accept`` limits the message types: the host passes :data:`BRIDGE_TYPES` (a ``DDC`` arriving at
    the host is then an unknown type), the bridge side passes :data:`HOST_TYPES`.
    """
    if isinstance(raw, str):
        try:
            raw = raw.encode("ascii")
        except UnicodeEncodeError:
            raise FrameError(DropReason.NOT_ASCII, "line holds characters outside ASCII") from None
    line = strip_line_end(raw)
    if len(line) > MAX_LINE_BYTES:
        raise FrameError(DropReason.TOO_LONG, f"{len(line)} bytes before the line end (max {MAX_LINE_BYTES})")
    bad = next((b for b in line if not 0x20 <= b <= 0x7E), None)
    if bad is not None:
        raise FrameError(DropReason.NOT_ASCII, f"byte 0x{bad:02X} is not printable ASCII")
    if not line.startswith(b"$"):
        raise FrameError(DropReason.NO_START, "line does not start with '$'")
    star = line.rfind(b"*")
    if star < 0 or not _HEX2_RE.fullmatch(line[star + 1 :]):
        raise FrameError(DropReason.BAD_CHECKSUM, "line does not end in '*' and two hex digits")
    body = line[1:star]
    expected, got = checksum(body), int(line[star + 1 :], 16)
    if expected != got:
        raise FrameError(DropReason.BAD_CHECKSUM, f"checksum {got:02X} but body XOR is {expected:02X}")
    text = body.decode("ascii")
    kind, *fields = text.split(",")
    if kind not in accept or kind not in _PARSERS:
        raise FrameError(DropReason.UNKNOWN_TYPE, f"message type {kind!r} not accepted here")
    for field in fields:
        if _FORBIDDEN_IN_FIELD & set(field):
            raise FrameError(DropReason.FIELD_RANGE, f"field {field!r} holds '$' or '*'")
    return _PARSERS[kind](fields)


def is_valid_line(raw: bytes | str, accept: frozenset[str] = ALL_TYPES) -> bool:
    try:
        parse_line(raw, accept)
    except FrameError:
        return False
    return True


def format_line(message: Message) -> bytes:
    """Encode a message as one line ``$<body>*<HH>\\n``; raises :class:`FrameError` if it cannot be
    sent (a field with a separator or non-printable byte, or a line over 120 bytes)."""
    fields = message.fields()
    for field in fields:
        if _FORBIDDEN_IN_FIELD & set(field) or not all(" " <= c <= "~" for c in field):
            raise FrameError(DropReason.FIELD_RANGE, f"field {field!r} cannot be sent")
    body = ",".join([message.TYPE, *fields]).encode("ascii")
    line = b"$" + body + b"*" + f"{checksum(body):02X}".encode("ascii")
    if len(line) > MAX_LINE_BYTES:
        raise FrameError(DropReason.TOO_LONG, f"encoded line is {len(line)} bytes (max {MAX_LINE_BYTES})")
    return line + b"\n"


def next_seq(seq: int) -> int:
    """The sequence number after ``seq`` (wraps 65535 -> 0)."""
    return (seq + 1) % SEQ_MODULUS
