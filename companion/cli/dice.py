"""``companion dice listen|simulate|pair``: smart dice on a serial bridge.

* ``listen --port URL --jsonl [--registry FILE] [--stats]`` prints one JSON object per accepted
  ``rolled`` or ``crooked`` message (keys ``die``, ``state``, ``face_index``, ``seq``; with a
  registry also what the face means), flushed at once.  Dropped lines print nothing; their counts
  by reason go to the log (stderr) and, with ``--stats``, to a ``{"stats": ...}`` line on stderr
  (every ``--stats-every`` seconds and at exit).
* ``simulate --port URL --dice N [--seed S]`` plays a bridge with N dice on a new pty (``pty``,
  ``pty:PATH`` or a PATH for a symlink to it) or a TCP server (``socket://127.0.0.1:PORT``).
* ``pair --port URL --registry FILE`` waits for a die that is not registered yet, blinks it and asks
  which die it is (a catalogue name such as ``Amazons/Charioteer``, or ``d4``..``d20``).
"""

from __future__ import annotations

import argparse
import sys

from ._argtypes import non_negative, positive, whole


def register(subparsers: argparse._SubParsersAction) -> None:
    dice = subparsers.add_parser("dice", help="smart dice on a serial bridge: listen, simulate, pair")
    sub = dice.add_subparsers(dest="dice_command", metavar="ACTION", required=True)

    listen = sub.add_parser("listen", help="print finished rolls from a bridge")
    listen.add_argument(
        "--port", required=True, help="pyserial URL or device: /dev/ttyACM0, socket://h:p, loop://"
    )
    listen.add_argument("--jsonl", action="store_true", help="one JSON object per line (for programs)")
    listen.add_argument("--registry", help="die registry JSON file: adds what each face means")
    listen.add_argument("--stats", action="store_true", help="print line counters as JSON on stderr")
    listen.add_argument(
        "--stats-every",
        type=positive,
        default=10.0,
        metavar="S",
        help="log drop counts (and print --stats) every S seconds (default 10)",
    )
    listen.add_argument(
        "--count", type=whole(0), default=0, metavar="N", help="exit after N readings (0: no limit)"
    )
    listen.add_argument(
        "--duration", type=non_negative, default=0.0, metavar="S", help="exit after S seconds (0: no limit)"
    )
    listen.set_defaults(func=_listen)

    sim = sub.add_parser("simulate", help="play a bridge with simulated dice on a pty or socket")
    sim.add_argument(
        "--port", default="pty", help="pty | pty:PATH | PATH (symlink) | socket://127.0.0.1:PORT"
    )
    sim.add_argument("--dice", type=int, default=3, metavar="N", help="number of dice (1..64)")
    sim.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the simulated rolls: the same seed gives the same rolls (default: random)",
    )
    sim.add_argument("--faces", type=int, default=6, help="faces per die (default 6)")
    sim.add_argument("--speed", type=positive, default=1.0, help="time runs this many times faster")
    sim.add_argument(
        "--duration", type=non_negative, default=0.0, metavar="S", help="stop after S seconds (0: no limit)"
    )
    sim.add_argument("--clean", action="store_true", help="no garbage lines and no repeats")
    sim.set_defaults(func=_simulate)

    pair = sub.add_parser("pair", help="register dice: roll one, it blinks, say which die it is")
    pair.add_argument(
        "--port", required=True, help="the bridge: pyserial URL or device (/dev/ttyACM0, socket://h:p)"
    )
    pair.add_argument("--registry", required=True, help="registry JSON file (created if missing)")
    pair.add_argument("--as", dest="as_name", metavar="NAME", help="register the first new die as NAME")
    pair.add_argument("--count", type=whole(1), default=1, help="how many dice to register (default 1)")
    pair.add_argument("--timeout", type=positive, default=120.0, help="seconds to wait for each die")
    pair.set_defaults(func=_pair)


def _setup_logging() -> None:
    import logging

    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )


def _install_sigterm() -> None:
    import signal

    def _raise(signum, frame):  # noqa: ARG001
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _raise)


def _human(reading) -> str:
    text = f"{reading.die_id} {reading.state.value} face {reading.face_index} (seq {reading.seq})"
    if reading.meaning is not None:
        text += f": {reading.meaning.name} {reading.meaning.face_text}"
    if reading.problem is not None:
        text += f" [{reading.problem}]"
    return text


def _listen(args: argparse.Namespace) -> int:
    import json
    import logging
    import queue
    import time

    from firmware_bridge.link import BridgeLink, url_problem
    from firmware_bridge.registry import DieRegistry, RegistryError
    from firmware_bridge.rolls import DiceFeed

    _setup_logging()
    log = logging.getLogger("companion.dice")
    bad = url_problem(args.port)
    if bad:
        print(f"companion dice listen: --port {args.port}: {bad}", file=sys.stderr)
        return 2
    registry = None
    if args.registry:
        try:
            registry = DieRegistry.load(args.registry)
        except (RegistryError, OSError) as exc:
            print(f"companion dice listen: {exc}", file=sys.stderr)
            return 2
    feed = DiceFeed(BridgeLink(args.port, use_queue=False), registry)
    _install_sigterm()

    logged_drops: dict = {}

    def report_stats(final: bool = False) -> None:
        stats = feed.stats().as_dict()
        if stats["dropped"] and (final or stats["dropped"] != logged_drops):
            log.info(
                "dropped lines by reason: %s", ", ".join(f"{k}={v}" for k, v in stats["dropped"].items())
            )
            logged_drops.clear()
            logged_drops.update(stats["dropped"])
        if args.stats:
            print(json.dumps({"stats": stats}), file=sys.stderr, flush=True)

    start = time.monotonic()
    last_report = start
    printed = 0
    feed.start()
    try:
        if not feed.link.wait_connected(1.0):
            log.warning("waiting for %s (%s)", args.port, feed.link.last_error or "not open yet")
        while True:
            now = time.monotonic()
            if args.duration and now - start >= args.duration:
                break
            if now - last_report >= args.stats_every:
                report_stats()
                last_report = now
            try:
                reading = feed.readings.get(timeout=0.1)
            except queue.Empty:
                continue
            line = json.dumps(reading.as_dict()) if args.jsonl else _human(reading)
            print(line, flush=True)
            printed += 1
            if args.count and printed >= args.count:
                break
    except KeyboardInterrupt:
        pass
    finally:
        feed.close()
        report_stats(final=True)
    return 0


def _simulate(args: argparse.Namespace) -> int:
    import time

    from firmware_bridge.sim_ports import SimulatorRunner, open_endpoint
    from firmware_bridge.simulator import BridgeSimulator, NoiseRates

    if not 1 <= args.dice <= 64:
        print("companion dice simulate: --dice must be 1..64", file=sys.stderr)
        return 2
    if not 2 <= args.faces <= 20:
        print("companion dice simulate: --faces must be 2..20", file=sys.stderr)
        return 2
    try:
        endpoint = open_endpoint(args.port)
    except (ValueError, OSError) as exc:
        print(f"companion dice simulate: cannot serve {args.port}: {exc}", file=sys.stderr)
        return 2
    sim = BridgeSimulator.with_dice(
        args.dice, seed=args.seed, faces=args.faces, noise=NoiseRates.none() if args.clean else NoiseRates()
    )
    runner = SimulatorRunner(sim, endpoint, speed=args.speed)
    _install_sigterm()
    print(f"simulating {args.dice} dice on {runner.url}", flush=True)
    print("dice: " + " ".join(d.die_id for d in sim.dice), flush=True)
    runner.start()
    start = time.monotonic()
    try:
        while not args.duration or time.monotonic() - start < args.duration:
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass
    finally:
        runner.stop()
    rolls = sim.finished_rolls()
    print(
        f"sent {len(sim.emitted)} messages ({len(rolls)} finished rolls) in {runner.lines_written} lines",
        file=sys.stderr,
    )
    return 0


def _pair(args: argparse.Namespace) -> int:
    import queue
    import time

    from firmware_bridge.link import BridgeLink, LinkClosed, url_problem
    from firmware_bridge.protocol import DieState, RollState
    from firmware_bridge.registry import DieRegistry, RegistryError

    bad = url_problem(args.port)
    if bad:
        print(f"companion dice pair: --port {args.port}: {bad}", file=sys.stderr)
        return 2
    try:
        registry = DieRegistry.load_or_empty(args.registry)
        if args.as_name:  # a name no die can have is refused before anyone rolls a die
            registry.entry_for(args.as_name)
    except RegistryError as exc:
        print(f"companion dice pair: {'--as: ' if args.as_name else ''}{exc}", file=sys.stderr)
        return 2
    link = BridgeLink(args.port)
    _install_sigterm()
    link.start()
    skipped: set[str] = set()
    paired = 0
    told_closed = False
    try:
        while paired < args.count:
            print("Pick up and roll the die to register...", flush=True)
            deadline = time.monotonic() + args.timeout
            die_id = None
            while die_id is None:
                left = deadline - time.monotonic()
                if not told_closed and not link.connected and link.last_error:
                    # the port may still be plugged in (the link keeps trying), but say why nothing comes
                    told_closed = True
                    print(
                        f"--port {args.port} is not open ({link.last_error}); still trying it until the timeout",
                        file=sys.stderr,
                        flush=True,
                    )
                if left <= 0:
                    why = (
                        f": --port {args.port} never opened ({link.last_error})"
                        if not link.connected and link.connects == 0 and link.last_error
                        else ""
                    )
                    print(f"no new die seen in {args.timeout:g} s{why}", file=sys.stderr)
                    return 1
                try:
                    message = link.events.get(timeout=min(left, 0.2))
                except queue.Empty:
                    continue
                # the die a player picks up or rolls; not just any die that reports its battery
                msg = message.message
                if isinstance(msg, DieState) and msg.state is not RollState.ONFACE:
                    if msg.die_id not in registry and msg.die_id not in skipped:
                        die_id = msg.die_id
            try:
                link.blink(die_id, count=5, color="00FF00")
            except LinkClosed as exc:
                print(f"could not blink {die_id}: {exc}", file=sys.stderr)
            print(f"Die {die_id} is blinking green.", flush=True)
            while True:
                if args.as_name:
                    answer = args.as_name
                else:
                    print(
                        "Which die is it? (catalogue name such as 'Amazons/Charioteer', or d4..d20; "
                        "empty to skip)",
                        flush=True,
                    )
                    answer = sys.stdin.readline()
                    if not answer:
                        print("no answer (end of input)", file=sys.stderr)
                        return 1
                    answer = answer.strip()
                if not answer:
                    skipped.add(die_id)
                    print(f"skipped {die_id}", flush=True)
                    break
                try:
                    entry = registry.register(die_id, answer)
                except RegistryError as exc:
                    print(f"not registered: {exc}", flush=True)
                    if args.as_name:
                        return 2
                    hint = answer.split("/")[-1]
                    names = [
                        d.name for d in registry.catalogue.search(hint) if hint.lower() in d.name.lower()
                    ]
                    if names:
                        print("  did you mean: " + ", ".join(names[:6]), flush=True)
                    continue
                registry.save(args.registry)
                paired += 1
                print(f"registered {die_id} as {entry.name} in {args.registry}", flush=True)
                break
            args.as_name = None if paired else args.as_name
    except KeyboardInterrupt:
        return 130
    finally:
        link.close()
    return 0
