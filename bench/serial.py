"""Smart-dice serial link: line-to-event latency and lines per second (goal: p95 <= 20 ms).

    python bench/serial.py [--lines 2000] [--rate 200] [--burst 50000]

Latency: a bridge thread writes ``DDR`` lines, paced at ``--rate`` lines/s (a busy table sends a
few dozen; 115200 baud carries at most ~400 of these lines/s), into a real pty pair and into a
``socket://`` connection on 127.0.0.1; the time from just before the write to the link's event
callback (framing, checksum, field checks, duplicate window, callback) is recorded per line.

Throughput: ``--burst`` lines written as fast as possible into the pty, timed from the first
write to the last event; and the same lines fed to the line intake alone (decode + dedupe, no
transport).  Every line must arrive exactly once; the script fails loudly if any is lost.
"""

from __future__ import annotations

import os
import sys

# Run as a script, this file's folder comes first on sys.path and this file would hide pyserial's
# "serial" package from the link: take the folder off the path before importing it.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import argparse  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import tty  # noqa: E402

from tqdm import tqdm  # noqa: E402

from firmware_bridge.intake import LineIntake  # noqa: E402
from firmware_bridge.link import BridgeLink  # noqa: E402
from firmware_bridge.protocol import DieState, RollState, format_line  # noqa: E402

GOAL_P95_MS = 20.0
WIRE_LINES_PER_S = 115200 / 10 / 28  # 8N1 = 10 bits per byte; a typical DDR line is ~28 bytes


def lines_for(n: int) -> list[bytes]:
    return [format_line(DieState(i % 65536, f"px{i % 8:04X}", RollState.ROLLED, i % 6)) for i in range(n)]


class Collector:
    def __init__(self, n: int):
        self.received = [0.0] * n
        self.count = 0
        self.done = threading.Event()
        self.n = n

    def __call__(self, event) -> None:
        now = time.perf_counter()
        # the seq is the line's index here (n < 65536 in the latency runs; burst checks only counts)
        self.received[event.message.seq % self.n] = now
        self.count += 1
        if self.count >= self.n:
            self.done.set()


def pty_pair():
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    os.close(slave)
    return master, path


def latency_run(kind: str, n: int, rate: float) -> list[float]:
    lines = lines_for(n)
    sent = [0.0] * n
    collector = Collector(n)
    if kind == "pty":
        master, url = pty_pair()

        def write(data: bytes) -> None:
            os.write(master, data)

        closer = lambda: os.close(master)  # noqa: E731
    else:
        server = socket.create_server(("127.0.0.1", 0))
        url = f"socket://127.0.0.1:{server.getsockname()[1]}"
        conn_box: list[socket.socket] = []
        acceptor = threading.Thread(target=lambda: conn_box.append(server.accept()[0]), daemon=True)
        acceptor.start()

        def write(data: bytes) -> None:
            conn_box[0].sendall(data)

        def closer() -> None:
            conn_box[0].close()
            server.close()

    link = BridgeLink(url, on_event=collector, use_queue=False).start()
    try:
        if not link.wait_connected(5):
            sys.exit(f"bench: cannot open {url}")
        if kind == "socket":
            acceptor.join(5)
            conn_box[0].setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        time.sleep(0.2)
        period = 1.0 / rate
        start = time.perf_counter()
        for i in tqdm(range(n), desc=f"latency {kind}", unit="line", file=sys.stderr, leave=False):
            target = start + i * period
            while (now := time.perf_counter()) < target:
                time.sleep(min(0.002, target - now))
            sent[i] = time.perf_counter()
            write(lines[i])
        if not collector.done.wait(10):
            sys.exit(f"bench: {kind}: only {collector.count} of {n} lines arrived")
    finally:
        link.close()
        closer()
    return [(collector.received[i] - sent[i]) * 1000.0 for i in range(n)]


def burst_run(n: int) -> float:
    lines = lines_for(n)
    collector = Collector(n)
    master, url = pty_pair()
    link = BridgeLink(url, on_event=collector, use_queue=False).start()
    try:
        link.wait_connected(5)
        time.sleep(0.2)
        blob = b"".join(lines)
        # seq wraps at 65536 and the window drops repeats of the last 64: keep n below the wrap
        start = time.perf_counter()
        view = memoryview(blob)
        while view:
            written = os.write(master, view[:4096])
            view = view[written:]
        if not collector.done.wait(60):
            sys.exit(f"bench: burst: only {collector.count} of {n} lines arrived")
        elapsed = time.perf_counter() - start
        counts = link.stats().counts
        if counts.accepted_total != n or counts.dropped_total:
            sys.exit(f"bench: burst: {counts.as_dict()}")
    finally:
        link.close()
        os.close(master)
    return n / elapsed


def intake_rate(n: int) -> float:
    lines = lines_for(n)
    intake = LineIntake()
    start = time.perf_counter()
    for line in lines:
        intake.feed(line)
    return n / (time.perf_counter() - start)


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--burst", type=int, default=50000)
    args = parser.parse_args()
    if args.burst >= 65536:
        parser.error("--burst must stay below 65536 (one seq wrap)")

    print(f"serial link bench: {args.lines} lines at {args.rate:g} lines/s; burst of {args.burst}")
    for kind in ("pty", "socket"):
        lat = latency_run(kind, args.lines, args.rate)
        p50, p95, p99 = pct(lat, 50), pct(lat, 95), pct(lat, 99)
        verdict = "meets" if p95 <= GOAL_P95_MS else "MISSES"
        print(f"  {kind:6s} line-to-event latency: p50 {p50:.3f} ms  p95 {p95:.3f} ms  p99 {p99:.3f} ms  "
              f"max {max(lat):.3f} ms  (p95 / goal {p95 / GOAL_P95_MS:.3f}: {verdict} the 20 ms goal)")
    burst = burst_run(args.burst)
    print(f"  pty burst: {burst:,.0f} lines/s through the link "
          f"({burst / WIRE_LINES_PER_S:.0f}x what 115200 baud can carry, ~{WIRE_LINES_PER_S:.0f} lines/s)")
    rate = intake_rate(args.burst)
    print(f"  intake alone (decode + duplicate window, no transport): {rate:,.0f} lines/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
