"""Run a :class:`~firmware_bridge.simulator.BridgeSimulator` in real time on a port a host can open.

Two kinds of port, both opened by the host with ``serial_for_url`` like a real bridge:

* :class:`PtyEndpoint`: a pseudo-terminal pair it creates; the host opens the slave path (or a
  symlink to it, like ``/dev/serial/by-id/...``).  ``unplug()`` closes the pair, so the host's reads
  fail as on a USB unplug, and removes the symlink; ``replug()`` makes a new pair behind the same
  symlink.
* :class:`TcpEndpoint`: a TCP server on 127.0.0.1; the host opens ``socket://127.0.0.1:PORT``.

The bridge only writes while a host has the port open (what it writes before that would be flushed
when the host opens the port).  Lines due while no host is there wait in an outbox.  After a
reconnect it sends its last ``resend`` lines again (none from before its last hello), because it
cannot know whether the host read them before the link broke; the host drops those as duplicates
by ``seq``.  Nothing is lost and
nothing is counted twice.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import socket
import threading
import time
from collections import deque
from pathlib import Path

from firmware_bridge.simulator import BridgeSimulator

HOST_SETTLE_S = 0.1  # let the host finish opening (pyserial flushes input while it opens)


class PtyEndpoint:
    def __init__(self, link_path: str | os.PathLike | None = None):
        self.link_path = Path(link_path) if link_path is not None else None
        if self.link_path is not None:
            _check_link_path(self.link_path)
        self.master: int | None = None
        self.slave_name = ""
        self.replug()

    @property
    def url(self) -> str:
        return str(self.link_path) if self.link_path is not None else self.slave_name

    def replug(self) -> None:
        if self.master is not None:
            return
        import tty

        master, slave = os.openpty()
        tty.setraw(slave)
        self.slave_name = os.ttyname(slave)
        os.close(slave)
        os.set_blocking(master, False)
        self.master = master
        if self.link_path is not None:
            tmp = self.link_path.with_name(self.link_path.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(self.slave_name)
            os.replace(tmp, self.link_path)

    def unplug(self) -> None:
        if self.master is None:
            return
        if self.link_path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.link_path.unlink()
        os.close(self.master)
        self.master = None

    close = unplug

    def host_present(self) -> bool:
        if self.master is None:
            return False
        poller = select.poll()
        poller.register(self.master, select.POLLIN)
        return not any(ev & select.POLLHUP for _, ev in poller.poll(0))

    def read_available(self, timeout: float) -> bytes:
        if self.master is None or not self.host_present():
            time.sleep(timeout)
            return b""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(self.master, 4096)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError as exc:
            if exc.errno == errno.EIO:  # host closed its side
                return b""
            raise

    def write(self, data: bytes) -> bool:
        view = memoryview(data)
        deadline = time.monotonic() + 1.0
        while view:
            if self.master is None:
                return False
            try:
                n = os.write(self.master, view)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return False
                select.select([], [self.master], [], 0.05)
                continue
            except OSError:
                return False
            view = view[n:]
        return True


def _check_link_path(path: Path) -> None:
    """A pty's symlink path the simulator may take: in a folder that exists, and nothing there but a
    symlink (one a simulator left, replaced); a file or folder of another kind is never replaced."""
    if not path.parent.is_dir():
        raise ValueError(f"{path}: the folder {path.parent} does not exist")
    if path.exists() and not path.is_symlink():
        kind = "folder" if path.is_dir() else "file"
        raise ValueError(f"{path} is a {kind}, not a link to a pty: choose a new path (it is left as it is)")


class TcpEndpoint:
    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.host = host
        self.port = port
        self.server: socket.socket | None = None
        self.client: socket.socket | None = None
        self.replug()

    @property
    def url(self) -> str:
        return f"socket://{self.host}:{self.port}"

    def replug(self) -> None:
        if self.server is not None:
            return
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind((self.host, self.port))
        server.listen(1)
        server.setblocking(False)
        self.port = server.getsockname()[1]
        self.server = server

    def unplug(self) -> None:
        self._drop_client()
        if self.server is not None:
            self.server.close()
            self.server = None

    close = unplug

    def _drop_client(self) -> None:
        if self.client is not None:
            with contextlib.suppress(OSError):
                self.client.shutdown(socket.SHUT_RDWR)
            self.client.close()
            self.client = None

    def host_present(self) -> bool:
        if self.client is None and self.server is not None:
            try:
                client, _ = self.server.accept()
            except (BlockingIOError, InterruptedError):
                return False
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.client = client
        return self.client is not None

    def read_available(self, timeout: float) -> bytes:
        if self.client is None:
            time.sleep(timeout)
            return b""
        ready, _, _ = select.select([self.client], [], [], timeout)
        if not ready:
            return b""
        try:
            data = self.client.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._drop_client()
        return data

    def write(self, data: bytes) -> bool:
        if self.client is None:
            return False
        try:
            self.client.sendall(data)
        except OSError:
            self._drop_client()
            return False
        return True


Endpoint = PtyEndpoint | TcpEndpoint


def open_endpoint(port: str) -> Endpoint:
    """``pty`` (a new pty, path chosen by the system), ``pty:PATH`` or a plain PATH (a new pty behind a
    symlink at PATH), or ``socket://HOST:PORT`` (a TCP server; port 0 picks a free one)."""
    if port.startswith("socket://"):
        hostport = port[len("socket://") :]
        host, sep, num = hostport.rpartition(":")
        if not sep or not num.isdigit():
            raise ValueError(f"{port!r}: expected socket://HOST:PORT")
        if not 0 <= int(num) <= 65535:
            raise ValueError(f"{port!r}: {int(num)} is not a port (0 to 65535; 0 picks a free one)")
        return TcpEndpoint(host or "127.0.0.1", int(num))
    if port == "pty":
        return PtyEndpoint()
    if port.startswith("pty:"):
        return PtyEndpoint(port[4:])
    if "://" in port:
        raise ValueError(f"{port!r}: the simulator serves 'pty', 'pty:PATH', PATH or socket://HOST:PORT")
    return PtyEndpoint(port)


class SimulatorRunner:
    """Drives a simulator in real time (times ``speed`` faster) on an endpoint, in its own thread."""

    def __init__(self, sim: BridgeSimulator, endpoint: Endpoint, *, speed: float = 1.0, resend: int = 16):
        self.sim = sim
        self.endpoint = endpoint
        self.speed = speed
        self.outbox: deque[bytes] = deque()
        self.history: deque[bytes] = deque(maxlen=resend)
        self.lines_written = 0
        self.connections = 0
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()
        self._present_since: float | None = None
        self._inbuf = bytearray()

    @property
    def url(self) -> str:
        return self.endpoint.url

    def sim_time(self) -> float:
        return (time.monotonic() - self._t0) * self.speed

    def start(self) -> SimulatorRunner:
        with self._lock:
            self._t0 = time.monotonic()
            self.outbox.extend(self.sim.start(0.0))
        self._thread = threading.Thread(target=self._run, name="bridge-simulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self.endpoint.close()

    def __enter__(self) -> SimulatorRunner:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- control (any thread) -----------------------------------------------------------------

    def roll(self, die_id: str, handled: bool | None = None) -> float:
        """Roll one die now; returns the simulated time at which it will have settled."""
        with self._lock:
            return self.sim.roll(die_id, self.sim_time(), handled=handled)

    def unplug(self) -> None:
        with self._lock:
            self.endpoint.unplug()
            self._present_since = None

    def replug(self) -> None:
        with self._lock:
            self.endpoint.replug()

    def idle(self) -> bool:
        """True when every line due so far has been written."""
        with self._lock:
            return not self.outbox

    # --- loop ---------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                now = self.sim_time()
                self.outbox.extend(self.sim.advance(now))
                self._flush()
                due = self.sim.next_due()
            wait = 0.02 if due is None else min(0.02, max(0.0, (due - now) / self.speed))
            with self._lock:  # unplug() must not close the port under a read
                data = self.endpoint.read_available(wait)
            if data:
                self._commands(data)

    def _flush(self) -> None:
        if not self.endpoint.host_present():
            self._present_since = None
            return
        mono = time.monotonic()
        if self._present_since is None:
            self._present_since = mono
            self.connections += 1
            if self.connections > 1:  # it may have missed what was in flight when the link broke
                self.outbox.extendleft(reversed(self.history))
            self._inbuf.clear()
        if mono - self._present_since < HOST_SETTLE_S:
            return
        while self.outbox:
            line = self.outbox[0]
            if not self.endpoint.write(line):
                self._present_since = None
                return
            self.outbox.popleft()
            if line.startswith(b"$DDH,"):
                # A hello starts a new duplicate window at the host: lines sent before it must never
                # be sent again, and the hello itself is never repeated (it would announce a restart).
                self.history.clear()
            else:
                self.history.append(line)
            self.lines_written += 1

    def _commands(self, data: bytes) -> None:
        self._inbuf.extend(data)
        while b"\n" in self._inbuf:
            line, _, rest = bytes(self._inbuf).partition(b"\n")
            self._inbuf[:] = rest
            with self._lock:
                self.outbox.extend(self.sim.command(line, self.sim_time()))
                self._flush()
        if len(self._inbuf) > 4096:
            self._inbuf.clear()
