"""The link on real ports: pty pairs, loop:// and socket:// on 127.0.0.1, with real pyserial."""

from __future__ import annotations

import os
import queue
import select
import socket
import threading
import time
import tty

import pytest

from firmware_bridge.link import Backoff, BridgeLink, LinkClosed
from firmware_bridge.protocol import (
    HOST_TYPES,
    Blink,
    DieState,
    Hello,
    ListDice,
    Ping,
    RollState,
    format_line,
    parse_line,
)

HELLO = b"$DDH,0,tablebridge,1.0.0,1*19\n"
ROLLING = b"$DDR,1,pxA7F3,rolling,-1*09\n"
ROLLED = b"$DDR,2,pxA7F3,rolled,4*43\n"


def wait_for(predicate, timeout=3.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def messages(link, n, timeout=3.0):
    return [link.events.get(timeout=timeout).message for _ in range(n)]


class Pty:
    """A pty pair; the test plays the bridge on the master side."""

    def __init__(self):
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        os.close(slave)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def read_line(self, timeout=2.0) -> bytes:
        buf = b""
        deadline = time.monotonic() + timeout
        while not buf.endswith(b"\n") and time.monotonic() < deadline:
            if select.select([self.master], [], [], 0.05)[0]:
                buf += os.read(self.master, 1)
        return buf

    def close(self) -> None:
        os.close(self.master)


@pytest.fixture
def pty_pair():
    pair = Pty()
    yield pair
    try:
        pair.close()
    except OSError:
        pass


def test_pty_lines_become_events(pty_pair):
    with BridgeLink(pty_pair.path) as link:
        assert link.wait_connected(3)
        pty_pair.write(HELLO + ROLLING)
        pty_pair.write(ROLLED[:10])  # a line split over two writes
        time.sleep(0.05)
        pty_pair.write(ROLLED[10:].replace(b"\n", b"\r\n"))
        got = messages(link, 3)
        assert got == [
            Hello(0, "tablebridge", "1.0.0", 1),
            DieState(1, "pxA7F3", RollState.ROLLING, -1),
            DieState(2, "pxA7F3", RollState.ROLLED, 4),
        ]
        assert link.stats().bridge_name == "tablebridge"


def test_pty_garbage_is_counted_and_reading_goes_on(pty_pair):
    with BridgeLink(pty_pair.path) as link:
        assert link.wait_connected(3)
        pty_pair.write(b"R,17,px0000,rol\n")  # partial line from a bridge restart
        pty_pair.write(b"$" + b"X" * 600)  # over-long, no line end yet
        time.sleep(0.05)
        pty_pair.write(b"XXXX\n")
        pty_pair.write(b"\xff\xfe\n" + ROLLED.replace(b"*43", b"*44") + ROLLED + ROLLED)
        assert messages(link, 1) == [DieState(2, "pxA7F3", RollState.ROLLED, 4)]
        assert wait_for(lambda: link.stats().counts.lines == 6)
        counts = link.stats().counts
        assert counts.dropped == {
            "no_start": 1,
            "too_long": 1,
            "not_ascii": 1,
            "bad_checksum": 1,
            "duplicate": 1,
        }
        assert counts.accepted == {"DDR": 1}
        assert link.events.empty()


def test_host_commands_reach_the_bridge(pty_pair):
    with BridgeLink(pty_pair.path) as link:
        assert link.wait_connected(3)
        link.ping()
        link.blink("pxA7F3", 4, "FF0000")
        link.list_dice()
        assert parse_line(pty_pair.read_line(), HOST_TYPES) == Ping()
        assert parse_line(pty_pair.read_line(), HOST_TYPES) == Blink("pxA7F3", 4, "FF0000")
        assert parse_line(pty_pair.read_line(), HOST_TYPES) == ListDice()


def test_loop_url_and_command_direction():
    with BridgeLink("loop://") as link:
        assert link.wait_connected(3)
        link.serial.write(HELLO + ROLLED)
        assert messages(link, 2)[1] == DieState(2, "pxA7F3", RollState.ROLLED, 4)
        link.ping()  # loops back to the host, where a DDC is not a bridge message
        assert wait_for(lambda: link.stats().counts.dropped.get("unknown_type") == 1)


def test_socket_url_on_localhost():
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    received = queue.Queue()
    host_ready = threading.Event()

    def bridge():
        conn, _ = server.accept()
        with conn:
            # pyserial discards what is already waiting when it opens a socket:// port
            host_ready.wait(3)
            conn.sendall(HELLO + ROLLED)
            received.put(conn.recv(100))

    thread = threading.Thread(target=bridge, daemon=True)
    thread.start()
    with BridgeLink(f"socket://127.0.0.1:{port}") as link:
        assert link.wait_connected(3)
        host_ready.set()
        assert messages(link, 2)[1].face_index == 4
        link.blink("pxA7F3")
        assert parse_line(received.get(timeout=3), HOST_TYPES) == Blink("pxA7F3", 3, "FFFFFF")
    thread.join(3)
    server.close()


def test_reconnects_when_the_port_disappears_and_resumes(tmp_path):
    link_path = tmp_path / "ttyBRIDGE"
    with BridgeLink(str(link_path), backoff=Backoff(0.01, 0.1)) as link:
        # the port is not there yet: the link keeps trying
        assert wait_for(lambda: link.failed_opens >= 2)
        assert not link.connected
        first = Pty()
        link_path.symlink_to(first.path)
        assert link.wait_connected(3)
        first.write(HELLO + ROLLING)
        assert len(messages(link, 2)) == 2
        # unplug: the pty goes away with its symlink
        link_path.unlink()
        first.close()
        assert wait_for(lambda: link.disconnects == 1 and not link.connected)
        with pytest.raises(LinkClosed):
            link.ping()
        # replug: a new pty behind the same name; the bridge repeats its last line, then goes on
        second = Pty()
        link_path.symlink_to(second.path)
        assert wait_for(lambda: link.connected)
        second.write(ROLLING + ROLLED)
        assert messages(link, 1) == [DieState(2, "pxA7F3", RollState.ROLLED, 4)]
        stats = link.stats()
        assert (stats.connects, stats.disconnects) == (2, 1)
        assert stats.counts.dropped == {"duplicate": 1}
        second.close()


def test_backoff_doubles_up_to_its_cap():
    backoff = Backoff(0.05, 0.3)
    assert [backoff.next_delay() for _ in range(5)] == [0.05, 0.1, 0.2, 0.3, 0.3]
    backoff.reset()
    assert backoff.next_delay() == 0.05


def test_bad_url_without_reconnect_gives_up():
    link = BridgeLink("nosuchscheme://x", reconnect=False).start()
    assert wait_for(lambda: link.failed_opens == 1)
    link.close()
    assert not link.connected
    assert "nosuchscheme" in (link.last_error or "")


def test_duplicate_window_is_reset_by_hello_only(pty_pair):
    with BridgeLink(pty_pair.path) as link:
        assert link.wait_connected(3)
        lines = [format_line(DieState(s, "d1", RollState.ROLLED, s % 6)) for s in range(1, 70)]
        pty_pair.write(b"".join(lines))
        assert len(messages(link, 69)) == 69
        pty_pair.write(lines[4])  # seq 5: older than the last 64 (6..69) -> accepted again
        pty_pair.write(lines[10])  # seq 11: inside the window -> duplicate
        assert messages(link, 1)[0].seq == 5
        pty_pair.write(HELLO + lines[-1])  # after a hello the old numbers no longer count
        got = messages(link, 2)
        assert isinstance(got[0], Hello) and got[1].seq == 69
        assert link.stats().counts.dropped == {"duplicate": 1}


def test_hang_up_right_after_data_is_noticed_every_time():
    """pyserial's reader asks the port for in_waiting between reads; on a pty that has just hung up
    (or a USB adapter just pulled) that raises EIO outside its error handling.  The link must still
    see the loss and reconnect, every time."""
    for _ in range(15):
        pair = Pty()
        link = BridgeLink(pair.path, backoff=Backoff(0.01, 0.05)).start()
        try:
            assert link.wait_connected(3)
            pair.write(ROLLED)
            pair.close()
            assert wait_for(lambda link=link: link.disconnects == 1, timeout=3), "hang-up not noticed"
        finally:
            link.close()
