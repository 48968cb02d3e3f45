"""Random and mutated lines into the intake and the framer: no crash, only valid frames accepted,
every line counted exactly once."""

from __future__ import annotations

import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.intake import Accepted, Dropped, LineIntake
from firmware_bridge.link import LineFramer
from firmware_bridge.protocol import (
    Battery,
    DieState,
    DropReason,
    Fault,
    Hello,
    RollState,
    checksum,
    format_line,
)

EXAMPLES = 400
MIN_LINES = 25  # 400 examples x at least 25 lines = at least 10,000 lines

ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
TEXT_CHARS = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) not in "$*,")
die_ids = st.text(ID_CHARS, min_size=1, max_size=16)
seqs = st.integers(0, 65535)
tokens = st.text(ID_CHARS + ".", min_size=1, max_size=12)
texts = st.text(TEXT_CHARS, max_size=30)


@st.composite
def die_states(draw):
    return DieState(
        draw(seqs), draw(die_ids), draw(st.sampled_from(list(RollState))), draw(st.integers(-1, 19))
    )


messages = st.one_of(
    st.builds(Hello, seqs, tokens, tokens, st.integers(1, 9)),
    die_states(),
    st.builds(Battery, seqs, die_ids, st.integers(0, 100), st.booleans()),
    st.builds(Fault, seqs, tokens, texts),
)


@st.composite
def mutated(draw):
    """A valid line with one edit: a byte replaced, inserted or deleted, or the line cut short."""
    line = bytearray(format_line(draw(messages)).rstrip(b"\n"))
    kind = draw(st.sampled_from(["replace", "insert", "delete", "truncate"]))
    i = draw(st.integers(0, len(line) - 1))
    if kind == "replace":
        line[i] = draw(st.integers(0, 255).filter(lambda b, old=line[i]: b != old and b != 0x0A))
    elif kind == "insert":
        line.insert(i, draw(st.integers(0, 255).filter(lambda b: b != 0x0A)))
    elif kind == "delete":
        del line[i]
    else:
        line = line[:i]
    return bytes(line)


random_lines = st.binary(max_size=160).map(lambda b: b.replace(b"\n", b""))
lines = st.one_of(random_lines, mutated(), messages.map(lambda m: format_line(m).rstrip(b"\n")))

_FRAME = re.compile(rb"\$([ -~]*)\*([0-9A-Fa-f]{2})")


def independently_valid_frame(raw: bytes) -> bool:
    """The framing rules checked here without the codec: printable, <= 120 bytes, checksum matches."""
    raw = raw[:-1] if raw.endswith(b"\r") else raw
    m = _FRAME.fullmatch(raw)
    return bool(m) and len(raw) <= 120 and checksum(m.group(1)) == int(m.group(2), 16)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(lines, min_size=MIN_LINES, max_size=40))
def test_random_and_mutated_lines(batch):
    intake = LineIntake()
    accepted = dropped = 0
    for raw in batch:
        result = intake.feed(raw)
        if isinstance(result, Accepted):
            accepted += 1
            assert independently_valid_frame(raw), raw
            # canonical: re-encoding gives the same line up to the checksum's letter case
            assert format_line(result.message).rstrip(b"\n").upper() == raw.rstrip(b"\r").upper()
        else:
            assert isinstance(result, Dropped)
            dropped += 1
    counts = intake.counts()
    assert counts.lines == len(batch) == counts.accepted_total + counts.dropped_total
    assert (counts.accepted_total, counts.dropped_total) == (accepted, dropped)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages, st.integers(0, 200), st.integers(0, 255))
def test_one_changed_body_byte_is_never_accepted(message, position, value):
    line = bytearray(format_line(message).rstrip(b"\n"))
    star = line.rindex(b"*")
    i = 1 + position % (star - 1)  # a byte of the body
    if line[i] == value or value == 0x0A:
        return
    line[i] = value
    result = LineIntake().feed(bytes(line))
    assert isinstance(result, Dropped)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(lines, min_size=5, max_size=40), st.randoms(use_true_random=False))
def test_framer_counts_every_line_however_the_bytes_are_split(batch, rnd):
    intake = LineIntake()
    delivered = []
    framer = LineFramer(intake, lambda m, t: delivered.append(m), lambda exc: None)
    stream = b"".join(raw + b"\n" for raw in batch)
    pos = 0
    while pos < len(stream):
        step = rnd.randint(1, 64)
        framer.data_received(stream[pos : pos + step])
        pos += step
    counts = intake.counts()
    assert counts.accepted_total == len(delivered)
    # an over-long line is counted once, whether it was cut before or after its line end arrived
    assert counts.lines == len(batch)
    assert len(framer.buffer) == 0


def test_ten_thousand_seeded_lines_with_duplicates():
    """Deterministic companion to the property tests: 10,000 lines from a noisy bridge, checked
    against what was sent."""
    rnd = random.Random(6)
    intake = LineIntake()
    sent: list[bytes] = []
    fed = 0
    seq = 0
    expected_accepted = 0
    for _ in range(10_000):
        choice = rnd.random()
        if choice < 0.6 or not sent:
            seq = (seq + 1) % 65536
            line = format_line(DieState(seq, f"px{rnd.randrange(8)}", RollState.ROLLED, rnd.randrange(6)))
            sent.append(line)
            expected_accepted += 1
        elif choice < 0.75:
            line = rnd.choice(sent[-64:])  # a repeat inside the window
        else:
            line = bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 130))).replace(b"\n", b"") + b"\n"
        intake.feed(line)
        fed += 1
    counts = intake.counts()
    assert counts.lines == fed == 10_000
    assert counts.accepted_total == expected_accepted
    assert counts.dropped[DropReason.DUPLICATE.value] == fed - expected_accepted - sum(
        v for k, v in counts.dropped.items() if k != DropReason.DUPLICATE.value
    )
