"""The codec against the protocol text (shared/protocol/smart-dice-serial.md)."""

from __future__ import annotations

import pytest

from firmware_bridge.protocol import (
    BRIDGE_TYPES,
    HOST_TYPES,
    Battery,
    Blink,
    DieState,
    DropReason,
    Fault,
    FrameError,
    Hello,
    ListDice,
    Ping,
    RollState,
    checksum,
    format_line,
    next_seq,
    parse_line,
)


def frame(body: str, *, cs: int | None = None) -> bytes:
    value = checksum(body.encode()) if cs is None else cs
    return f"${body}*{value:02X}\n".encode()


def reason(line: bytes | str, accept=BRIDGE_TYPES) -> DropReason:
    with pytest.raises(FrameError) as info:
        parse_line(line, accept)
    return info.value.reason


def test_the_spec_examples_decode():
    assert parse_line(b"$DDH,0,tablebridge,1.0.0,1*19\n") == Hello(0, "tablebridge", "1.0.0", 1)
    assert parse_line(b"$DDR,1,pxA7F3,rolling,-1*09\n") == DieState(1, "pxA7F3", RollState.ROLLING, -1)
    assert parse_line(b"$DDR,2,pxA7F3,rolled,4*43\n") == DieState(2, "pxA7F3", RollState.ROLLED, 4)


def test_the_spec_examples_encode_byte_for_byte():
    assert format_line(Hello(0, "tablebridge", "1.0.0", 1)) == b"$DDH,0,tablebridge,1.0.0,1*19\n"
    assert format_line(DieState(2, "pxA7F3", RollState.ROLLED, 4)) == b"$DDR,2,pxA7F3,rolled,4*43\n"


@pytest.mark.parametrize(
    "message",
    [
        Hello(65535, "b-1", "2.3.4-rc1", 1),
        DieState(7, "A" * 16, RollState.CROOKED, -1),
        DieState(8, "x_y-z", RollState.ONFACE, 19),
        DieState(9, "d", RollState.HANDLING, -1),
        Battery(10, "pxA7F3", 100, True),
        Battery(11, "pxA7F3", 0, False),
        Fault(12, "E_RADIO", "scan failed twice"),
        Fault(13, "7", ""),
        Ping(),
        ListDice(),
        Blink("pxA7F3", 5, "00ff00"),
    ],
)
def test_every_message_type_round_trips(message):
    assert parse_line(format_line(message)) == message


def test_a_roll_whose_face_is_unknown_is_in_range():
    assert parse_line(frame("DDR,3,pxA7F3,rolled,-1")) == DieState(3, "pxA7F3", RollState.ROLLED, -1)


def test_line_ends_and_checksum_case():
    assert parse_line(b"$DDR,1,pxA7F3,rolling,-1*09\r\n") == parse_line(b"$DDR,1,pxA7F3,rolling,-1*09")
    body, cs = b"DDE,4,E1,abc", checksum(b"DDE,4,E1,abc")
    assert parse_line(b"$" + body + b"*" + f"{cs:02x}".encode()) == Fault(4, "E1", "abc")
    assert parse_line(b"$" + body + b"*" + f"{cs:02X}".encode()) == Fault(4, "E1", "abc")
    # the body is case-sensitive: a changed letter no longer matches its checksum
    assert reason(b"$DDR,1,pxa7F3,rolling,-1*09\n") is DropReason.BAD_CHECKSUM


def test_length_limit_is_120_bytes_before_the_line_end():
    # build a valid DDE whose line is exactly 120 bytes, then one byte more
    base = "DDE,1,E,"
    text = "t" * (120 - len("$" + base + "*hh"))
    line = frame(base + text)
    assert len(line.rstrip(b"\n")) == 120
    assert parse_line(line + b"").text == text
    assert parse_line(line.replace(b"\n", b"\r\n")).text == text  # the '\r' is part of the line end
    assert reason(frame(base + text + "t")) is DropReason.TOO_LONG


@pytest.mark.parametrize(
    "line,expected",
    [
        (b"DDR,1,pxA7F3,rolling,-1*09\n", DropReason.NO_START),
        (b"\n", DropReason.NO_START),
        (b" $DDR,1,pxA7F3,rolling,-1*09\n", DropReason.NO_START),
        (b"R,17,px0000,rol\n", DropReason.NO_START),
        (b"$DDR,1,pxA7F3,rolling,-1*08\n", DropReason.BAD_CHECKSUM),
        (b"$DDR,1,pxA7F3,rolling,-1\n", DropReason.BAD_CHECKSUM),
        (b"$DDR,1,pxA7F3,rolling,-1*9\n", DropReason.BAD_CHECKSUM),
        (b"$DDR,1,pxA7F3,rolling,-1*0G\n", DropReason.BAD_CHECKSUM),
        (b"$DDR,1,pxA7F3,rolling,-1*091\n", DropReason.BAD_CHECKSUM),
        (b"$DDR,1,p\xe9A7F3,rolling,-1*09\n", DropReason.NOT_ASCII),
        (b"$DDR,1,p\x07A7F3,rolling,-1*09\n", DropReason.NOT_ASCII),
        (b"$DDR,1,pxA7F3,rolling,-1*09" + b" " * 100 + b"\n", DropReason.TOO_LONG),
        (frame("DDX,1,pxA7F3,rolling,-1"), DropReason.UNKNOWN_TYPE),
        (frame("ddr,1,pxA7F3,rolling,-1"), DropReason.UNKNOWN_TYPE),
        (frame("DDC,PING"), DropReason.UNKNOWN_TYPE),  # a host command arriving at the host
        (frame("DDR,1,pxA7F3,rolling"), DropReason.FIELD_COUNT),
        (frame("DDR,1,pxA7F3,rolling,-1,0"), DropReason.FIELD_COUNT),
        (frame("DDH,0,b,1.0"), DropReason.FIELD_COUNT),
        (frame("DDB,1,px,50"), DropReason.FIELD_COUNT),
        (frame("DDE,1,E"), DropReason.FIELD_COUNT),
        (frame("DDR,65536,pxA7F3,rolling,-1"), DropReason.FIELD_RANGE),
        (frame("DDR,-1,pxA7F3,rolling,-1"), DropReason.FIELD_RANGE),
        (frame("DDR,01,pxA7F3,rolling,-1"), DropReason.FIELD_RANGE),
        (frame("DDR,1,,rolling,-1"), DropReason.FIELD_RANGE),
        (frame("DDR,1,ABCDEFGHIJKLMNOPQ,rolling,-1"), DropReason.FIELD_RANGE),
        (frame("DDR,1,px A7,rolling,-1"), DropReason.FIELD_RANGE),
        (frame("DDR,1,pxA7F3,Rolled,4"), DropReason.FIELD_RANGE),
        (frame("DDR,1,pxA7F3,rolled,20"), DropReason.FIELD_RANGE),
        (frame("DDR,1,pxA7F3,rolled,-2"), DropReason.FIELD_RANGE),
        (frame("DDB,1,pxA7F3,101,0"), DropReason.FIELD_RANGE),
        (frame("DDB,1,pxA7F3,50,2"), DropReason.FIELD_RANGE),
        (frame("DDH,0,,1.0.0,1"), DropReason.FIELD_RANGE),
        (frame("DDH,0,b,1.0.0,x"), DropReason.FIELD_RANGE),
        (frame("DDE,1,,text"), DropReason.FIELD_RANGE),
        (frame("DDE,1,E,a$b"), DropReason.FIELD_RANGE),
        (frame("DDE,1,E,a*b"), DropReason.FIELD_RANGE),
    ],
)
def test_every_drop_reason(line, expected):
    assert reason(line) is expected


@pytest.mark.parametrize(
    "line,expected",
    [
        (frame("DDC,PING"), Ping()),
        (frame("DDC,LIST"), ListDice()),
        (frame("DDC,BLINK,pxA7F3,3,FF8800"), Blink("pxA7F3", 3, "FF8800")),
    ],
)
def test_host_commands_decode_on_the_bridge_side(line, expected):
    assert parse_line(line, HOST_TYPES) == expected


@pytest.mark.parametrize(
    "line,expected",
    [
        (frame("DDC"), DropReason.FIELD_COUNT),
        (frame("DDC,PING,1"), DropReason.FIELD_COUNT),
        (frame("DDC,BLINK,pxA7F3,3"), DropReason.FIELD_COUNT),
        (frame("DDC,BLINK,pxA7F3,0,FF8800"), DropReason.FIELD_RANGE),
        (frame("DDC,BLINK,pxA7F3,3,FF880"), DropReason.FIELD_RANGE),
        (frame("DDC,BLINK,px!,3,FF8800"), DropReason.FIELD_RANGE),
        (frame("DDC,RESET"), DropReason.FIELD_RANGE),
        (frame("DDR,1,pxA7F3,rolling,-1"), DropReason.UNKNOWN_TYPE),  # bridge message at the bridge
    ],
)
def test_bad_host_commands(line, expected):
    assert reason(line, HOST_TYPES) is expected


def test_messages_that_cannot_be_sent_are_refused():
    with pytest.raises(FrameError) as info:
        format_line(Fault(1, "E", "a,b"))
    assert info.value.reason is DropReason.FIELD_RANGE
    with pytest.raises(FrameError):
        format_line(Fault(1, "E", "x" * 200))
    with pytest.raises(FrameError):
        Blink("bad id!", 3, "FFFFFF")
    with pytest.raises(FrameError):
        Blink("px", 3, "red")


def test_sequence_wraps():
    assert next_seq(0) == 1
    assert next_seq(65535) == 0
