"""The reference firmware's C: built by gcc, its unit and random tests run, and checked line for line
against the Python side."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

import firmware_bridge
from firmware_bridge.intake import Accepted, LineIntake
from firmware_bridge.protocol import (
    BRIDGE_TYPES,
    HOST_TYPES,
    Battery,
    Blink,
    DieState,
    Fault,
    FrameError,
    Hello,
    RollState,
    checksum,
    format_line,
    parse_line,
)

FIRMWARE = Path(firmware_bridge.__file__).parent / "firmware"


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None or shutil.which("make") is None:
        pytest.fail("gcc and make are needed to build the firmware tests (apt-get install gcc make)")
    out = tmp_path_factory.mktemp("firmware-build")
    args = ["make", "-C", str(FIRMWARE), "CC=gcc", f"BUILD={out}", "all"]
    if not sanitizers_work(out):  # a toolchain without libasan/libubsan still builds and runs every test
        args.append("SAN=")
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def sanitizers_work(folder: Path) -> bool:
    probe = folder / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    exe = folder / "probe"
    built = subprocess.run(
        ["gcc", "-fsanitize=address,undefined", str(probe), "-o", str(exe)], capture_output=True, timeout=60
    )
    return (
        built.returncode == 0 and subprocess.run([str(exe)], capture_output=True, timeout=30).returncode == 0
    )


@pytest.fixture(autouse=True)
def _no_leak_checker(monkeypatch):
    # the C code allocates nothing; LeakSanitizer needs ptrace, which containers often forbid
    monkeypatch.setenv("ASAN_OPTIONS", "detect_leaks=0")


@pytest.mark.parametrize("name", ["test_protocol", "test_roll", "test_pixels", "test_bridge", "test_fuzz"])
def test_c_unit_tests_pass(build, name):
    proc = subprocess.run([str(build / name)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ", 0 failed" in proc.stdout


def test_build_leaves_the_source_folder_clean(build):
    assert not (FIRMWARE / "build").exists()


def corpus(seed: int, count: int) -> list[bytes]:
    """Valid lines of both directions, their one-byte mutations, truncations, and token soups."""
    rnd = random.Random(seed)
    states = list(RollState)
    tokens = [
        "0",
        "1",
        "-1",
        "19",
        "20",
        "100",
        "101",
        "65535",
        "65536",
        "01",
        "rolled",
        "rolling",
        "crooked",
        "onface",
        "handling",
        "PING",
        "BLINK",
        "LIST",
        "FF00aa",
        "FF00a",
        "",
        "x y",
        "1.0.0",
    ]
    lines: list[bytes] = []
    while len(lines) < count:
        kind = rnd.randrange(5)
        state = rnd.choice(states)
        message = rnd.choice(
            [
                Hello(rnd.randrange(65536), "tb", "1.2.3", 1),
                DieState(
                    rnd.randrange(65536),
                    f"px{rnd.randrange(99999)}",
                    state,
                    rnd.randrange(20) if state is RollState.ROLLED else rnd.randrange(-1, 20),
                ),
                Battery(rnd.randrange(65536), "d-1", rnd.randrange(101), rnd.random() < 0.5),
                Fault(rnd.randrange(65536), "E_LOST", "lost die px1"),
                Blink("pxA", rnd.randrange(1, 256), "00ff00"),
            ]
        )
        line = format_line(message).rstrip(b"\n")
        if kind == 0:
            lines.append(line)
        elif kind == 1:
            b = bytearray(line)
            b[rnd.randrange(len(b))] = rnd.choice([rnd.randrange(256), ord(rnd.choice("$*,0-9aAF"))])
            lines.append(bytes(b).replace(b"\n", b"#"))
        elif kind == 2:
            lines.append(line[: rnd.randrange(len(line))])
        elif kind == 3:
            body = ",".join(
                [rnd.choice(["DDH", "DDR", "DDB", "DDE", "DDC", "DDZ"])]
                + [rnd.choice(tokens) for _ in range(rnd.randrange(7))]
            ).encode()
            hh = f"{checksum(body):02x}" if rnd.random() < 0.5 else f"{checksum(body):02X}"
            lines.append(b"$" + body + b"*" + hh.encode() + (b"\r" if rnd.random() < 0.2 else b""))
        else:
            lines.append(bytes(rnd.randrange(256) for _ in range(rnd.randrange(140))).replace(b"\n", b""))
    return lines


def python_verdict(line: bytes, accept) -> str:
    try:
        return "OK " + format_line(parse_line(line, accept)).decode().rstrip("\n")
    except FrameError as exc:
        return "DROP " + exc.reason.value


@pytest.mark.parametrize("side,accept", [("host", BRIDGE_TYPES), ("bridge", HOST_TYPES)])
def test_c_and_python_decoders_agree_line_for_line(build, side, accept):
    lines = corpus(seed=66 if side == "host" else 67, count=5000)
    proc = subprocess.run(
        [str(build / "dd_decode_lines"), side],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    c_verdicts = proc.stdout.decode().splitlines()
    assert len(c_verdicts) == len(lines)
    py_verdicts = [python_verdict(line, accept) for line in lines]
    mismatches = [(line, c, p) for line, c, p in zip(lines, c_verdicts, py_verdicts, strict=True) if c != p]
    assert mismatches == []
    assert sum(v.startswith("OK") for v in py_verdicts) > 150  # the corpus reaches both outcomes
    assert len({v for v in py_verdicts if v.startswith("DROP")}) == 7  # and every drop reason


def test_host_accepts_everything_the_bridge_core_sends(build):
    # a die powers up on face 2, is rolled to 5, picked up and put down on 1, rolled crooked;
    # a second die appears; the host pings, lists, blinks a die and a die that is not there
    script = """ADV 0 A7F3 5 2 90 0
TICK 400
ADV 1000 A7F3 3 0 90 0
ADV 1500 A7F3 1 3 90 0
ADV 1600 A7F3 1 5 90 0
TICK 1950
ADV 3000 A7F3 2 5 89 0
ADV 4000 A7F3 5 1 89 0
TICK 4400
ADV 5000 0B0B 5 0 40 1
ADV 5000 A7F3 3 0 89 0
ADV 5800 A7F3 4 7 89 0
TICK 6200
RX $DDC,PING*7F
RX $DDC,LIST*6D
RX {blink}
RX {blink_missing}
RX $DDC,BOGUS*00
TICK 30000
""".format(
        blink=format_line(Blink("px0000A7F3", 2, "FF0000")).decode().strip(),
        blink_missing=format_line(Blink("pxNOPE", 2, "FF0000")).decode().strip(),
    )
    proc = subprocess.run(
        [str(build / "dd_bridge_replay")], input=script, capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == ["blink 0000A7F3 2 FF0000"]
    intake = LineIntake()
    results = [intake.feed(line.encode()) for line in proc.stdout.splitlines()]
    assert all(isinstance(r, Accepted) for r in results), results
    states = [
        (m.die_id[-4:], m.state.value, m.face_index)
        for m in (r.message for r in results)
        if isinstance(m, DieState)
    ]
    assert states == [
        ("A7F3", "onface", 2),  # powered up: not a roll
        ("A7F3", "rolling", -1),
        ("A7F3", "rolled", 5),  # still 300 ms on face 5 (the wobble on 3 did not count)
        ("A7F3", "handling", -1),
        ("A7F3", "onface", 1),  # put down by hand: not a roll
        ("A7F3", "rolling", -1),
        ("A7F3", "crooked", -1),  # both settle on the same tick, in table order
        ("0B0B", "onface", 0),
        ("A7F3", "crooked", -1),  # LIST: the current state of each die
        ("0B0B", "onface", 0),
    ]
    messages = [r.message for r in results]
    assert [m.seq for m in messages] == list(range(len(messages)))
    faults = [m for m in messages if isinstance(m, Fault)]
    assert [f.code for f in faults] == ["E_NODIE", "E_LOST", "E_LOST"]
    assert sum(isinstance(m, Hello) for m in messages) == 2
