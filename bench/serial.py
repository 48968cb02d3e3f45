"""Smart-dice serial link: line-to-event latency and lines per second (goal: p95 <= 20 ms).

    python bench/serial.py [--lines 2000] [--rate 200] [--burst 50000] [--plot latency.png]

Latency: a bridge process writes ``DDR`` lines, paced at ``--rate`` lines/s (a busy table sends a
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
import multiprocessing  # noqa: E402
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
        now = time.monotonic()
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


def _paced_writer(fd: int, lines: list[bytes], rate: float, label: str, results) -> None:
    """The bridge, in its own process (as a real bridge is): write each line at its time."""
    sent = [0.0] * len(lines)
    period = 1.0 / rate
    start = time.monotonic()
    for i in tqdm(range(len(lines)), desc=f"latency {label}", unit="line", file=sys.stderr, leave=False):
        target = start + i * period
        while (now := time.monotonic()) < target:
            time.sleep(min(0.002, target - now))
        sent[i] = time.monotonic()  # CLOCK_MONOTONIC: the same clock in both processes
        os.write(fd, lines[i])
    results.send(sent)


def latency_run(kind: str, n: int, rate: float) -> list[float]:
    lines = lines_for(n)
    collector = Collector(n)
    server = conn = None
    if kind == "pty":
        master, url = pty_pair()
        fd = master
    else:
        server = socket.create_server(("127.0.0.1", 0))
        url = f"socket://127.0.0.1:{server.getsockname()[1]}"
    link = BridgeLink(url, on_event=collector, use_queue=False).start()
    try:
        if not link.wait_connected(5):
            sys.exit(f"bench: cannot open {url}")
        if server is not None:
            conn = server.accept()[0]
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            fd = conn.fileno()
        time.sleep(0.2)  # pyserial flushes its input while it opens the port
        ctx = multiprocessing.get_context("fork")
        parent_end, child_end = ctx.Pipe(duplex=False)
        writer = ctx.Process(target=_paced_writer, args=(fd, lines, rate, kind, child_end))
        writer.start()
        sent = parent_end.recv()
        writer.join(10)
        if not collector.done.wait(10):
            sys.exit(f"bench: {kind}: only {collector.count} of {n} lines arrived")
    finally:
        link.close()
        if conn is not None:
            conn.close()
            server.close()
        else:
            os.close(master)
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


def plot(latencies: dict[str, list[float]], path: str) -> None:
    """Cumulative latency distribution per transport, with the goal marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for kind, values in latencies.items():
        ordered = sorted(values)
        ax.plot(ordered, [(i + 1) / len(ordered) for i in range(len(ordered))], label=kind)
    ax.axvline(GOAL_P95_MS, color="red", linestyle="--", label="goal: p95 20 ms")
    ax.axhline(0.95, color="grey", linestyle=":")
    ax.set_xscale("log")
    ax.set_xlabel("line-to-event latency (ms, log scale)")
    ax.set_ylabel("fraction of lines")
    ax.set_title("Smart-dice serial link latency")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"  latency plot written to {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--burst", type=int, default=50000)
    parser.add_argument("--plot", metavar="PNG", help="also write the latency distribution as an image")
    args = parser.parse_args()
    if args.burst >= 65536:
        parser.error("--burst must stay below 65536 (one seq wrap)")

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"serial link bench: {args.lines} lines at {args.rate:g} lines/s; burst of {args.burst}; "
        f"{os.cpu_count()} CPUs, load average {load:.1f} (latency tails grow with CPU contention)"
    )
    latencies: dict[str, list[float]] = {}
    for kind in ("pty", "socket"):
        lat = latencies[kind] = latency_run(kind, args.lines, args.rate)
        p50, p95, p99 = pct(lat, 50), pct(lat, 95), pct(lat, 99)
        verdict = "meets" if p95 <= GOAL_P95_MS else "MISSES"
        print(
            f"  {kind:6s} line-to-event latency: p50 {p50:.3f} ms  p95 {p95:.3f} ms  p99 {p99:.3f} ms  "
            f"max {max(lat):.3f} ms  (p95 / goal {p95 / GOAL_P95_MS:.3f}: {verdict} the 20 ms goal)"
        )
    burst = burst_run(args.burst)
    print(
        f"  pty burst: {burst:,.0f} lines/s through the link "
        f"({burst / WIRE_LINES_PER_S:.0f}x what 115200 baud can carry, ~{WIRE_LINES_PER_S:.0f} lines/s)"
    )
    rate = intake_rate(args.burst)
    print(f"  intake alone (decode + duplicate window, no transport): {rate:,.0f} lines/s")
    if args.plot:
        plot(latencies, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
