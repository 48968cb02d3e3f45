"""The simulated bridge: Pixels-like state sequences, noise, commands, and unplug/replug end to end."""

from __future__ import annotations

import time

import pytest

from firmware_bridge.intake import Accepted, LineIntake
from firmware_bridge.link import Backoff, BridgeLink
from firmware_bridge.protocol import (
    HOST_TYPES,
    Blink,
    DieState,
    Fault,
    Hello,
    ListDice,
    Ping,
    RollState,
    format_line,
    is_valid_line,
    parse_line,
)
from firmware_bridge.sim_ports import PtyEndpoint, SimulatorRunner, TcpEndpoint
from firmware_bridge.simulator import SETTLE_S, BridgeSimulator, NoiseRates


def run_for(sim: BridgeSimulator, seconds: float, step: float = 0.05) -> list[bytes]:
    out = sim.start(0.0)
    t = 0.0
    while t < seconds:
        t += step
        out += sim.advance(t)
    return out


def test_same_seed_same_lines():
    a = run_for(BridgeSimulator.with_dice(4, seed=11), 60)
    b = run_for(BridgeSimulator.with_dice(4, seed=11), 60)
    c = run_for(BridgeSimulator.with_dice(4, seed=12), 60)
    assert a == b
    assert a != c


def test_clean_simulator_sends_only_valid_lines_in_sequence():
    sim = BridgeSimulator.with_dice(5, seed=3, noise=NoiseRates.none())
    lines = run_for(sim, 120)
    assert lines[0] == b"R,17,px0000,rol\n"  # the partial line of a restart comes first
    messages = [parse_line(line) for line in lines[1:]]
    assert isinstance(messages[0], Hello) and messages[0].seq == 0
    assert [m.seq for m in messages] == list(range(len(messages)))
    assert messages == sim.emitted


def test_die_state_sequences_are_pixels_like():
    sim = BridgeSimulator.with_dice(4, seed=5, noise=NoiseRates.none())
    run_for(sim, 300)
    per_die: dict[str, list[DieState]] = {}
    for m in sim.emitted:
        if isinstance(m, DieState):
            per_die.setdefault(m.die_id, []).append(m)
    rolls = onface = 0
    for states in per_die.values():
        for prev, cur in zip(states, states[1:], strict=False):
            if cur.state is RollState.ROLLED:
                assert prev.state is RollState.ROLLING  # only a tumble ends in a roll
                assert 0 <= cur.face_index < 6
                rolls += 1
            if cur.state is RollState.CROOKED:
                assert prev.state is RollState.ROLLING and cur.face_index == -1
            if cur.state is RollState.ONFACE:
                assert prev.state is RollState.HANDLING  # handling then put down: not a roll
                onface += 1
            if cur.state in (RollState.ROLLING, RollState.HANDLING):
                assert cur.face_index == -1
    assert rolls > 20 and onface > 0


def test_roll_timing_is_realistic():
    sim = BridgeSimulator.with_dice(1, seed=8, auto=False, noise=NoiseRates.none())
    sim.start(0.0)
    die = sim.dice[0].die_id
    end = sim.roll(die, 1.0, handled=False)
    times = {}
    t = 1.0
    while t < end + 0.1:
        for line in sim.advance(t):
            times.setdefault(parse_line(line).state, t)
        t += 0.01
    tumble = (
        times[RollState.ROLLED if RollState.ROLLED in times else RollState.CROOKED] - times[RollState.ROLLING]
    )
    assert 0.6 + SETTLE_S - 0.02 <= tumble <= 1.6 + SETTLE_S + 0.02


def test_noise_is_garbage_and_repeats_only():
    sim = BridgeSimulator.with_dice(4, seed=9, noise=NoiseRates(garbage=0.2, duplicate=0.2))
    lines = run_for(sim, 120)
    intake = LineIntake()
    accepted = [r.message for r in map(intake.feed, lines) if isinstance(r, Accepted)]
    assert accepted == sim.emitted  # every message once, in order, whatever the noise
    dropped = intake.counts().dropped
    assert dropped["duplicate"] > 10
    assert sum(dropped.values()) - dropped["duplicate"] > 10
    assert len(set(dropped)) >= 4


def test_commands():
    sim = BridgeSimulator.with_dice(3, seed=1, noise=NoiseRates.none())
    sim.start(0.0)
    hello = parse_line(sim.command(format_line(Ping()), 1.0)[0])
    assert isinstance(hello, Hello) and hello.bridge_name == "simbridge"
    listed = [parse_line(line) for line in sim.command(format_line(ListDice()), 1.0)]
    assert [m.die_id for m in listed] == [d.die_id for d in sim.dice]
    assert sim.command(format_line(Blink(sim.dice[1].die_id, 2, "0000FF")), 1.0) == []
    assert sim.blinks == [Blink(sim.dice[1].die_id, 2, "0000FF")]
    fault = parse_line(sim.command(format_line(Blink("nosuch")), 1.0)[0])
    assert isinstance(fault, Fault) and "nosuch" in fault.text
    assert sim.command(b"$DDC,JUMP*00\n", 1.0) == [] and sim.bad_commands == 1
    assert all(is_valid_line(line, HOST_TYPES) is False for line in sim.command(format_line(Ping()), 1.0))


@pytest.mark.parametrize("kind,cycles,pause", [("pty", 3, 0.6), ("socket", 3, 0.6), ("pty", 10, 0.2)])
def test_unplug_replug_loses_no_roll_and_repeats_none(kind, cycles, pause, tmp_path):
    endpoint = PtyEndpoint(tmp_path / "ttyDICE") if kind == "pty" else TcpEndpoint()
    sim = BridgeSimulator.with_dice(6, seed=21, mean_gap_s=0.3)
    runner = SimulatorRunner(sim, endpoint, speed=20.0).start()
    link = BridgeLink(runner.url, backoff=Backoff(0.01, 0.1)).start()
    try:
        assert link.wait_connected(3)
        for _ in range(cycles):
            time.sleep(pause)
            runner.unplug()
            time.sleep(0.3)  # rolls go on while the cable is out
            runner.replug()
        time.sleep(0.6)
        sim.auto = False
        time.sleep(0.5)  # the rolls under way settle (3.5 simulated seconds at most)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not (runner.idle() and link.events.qsize() >= len(sim.emitted)):
            time.sleep(0.05)
        time.sleep(0.2)
    finally:
        link.close()
        runner.stop()
    got = []
    while not link.events.empty():
        got.append(link.events.get().message)
    truth = sim.finished_rolls()
    rolls = [m for m in got if isinstance(m, DieState) and m.state in (RollState.ROLLED, RollState.CROOKED)]
    assert len(truth) > 20
    assert rolls == truth  # nothing lost, nothing twice, in order
    stats = link.stats()
    assert stats.connects == cycles + 1 and stats.disconnects >= cycles
    assert stats.counts.dropped.get("duplicate", 0) > 0  # the bridge's repeats after replug were caught
    assert stats.counts.accepted["DDH"] == 1


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)
    return predicate()


def test_replug_right_after_the_hello_does_not_repeat_it(tmp_path):
    """The bridge repeats its last lines after a replug, but never its hello: a repeated hello would
    reopen the host's duplicate window and let the repeated rolls through a second time."""
    sim = BridgeSimulator.with_dice(3, seed=23, auto=False)
    runner = SimulatorRunner(sim, PtyEndpoint(tmp_path / "ttyHELLO"), speed=20.0).start()
    link = BridgeLink(runner.url, backoff=Backoff(0.01, 0.1)).start()
    die = sim.dice[0].die_id
    try:
        assert link.wait_connected(3)
        assert wait_for(lambda: link.stats().counts.accepted.get("DDB", 0) == 3)
        runner.roll(die, handled=False)
        assert wait_for(lambda: len(sim.finished_rolls()) == 1 and runner.idle())
        time.sleep(0.1)
        runner.unplug()  # the hello is among the last lines sent
        runner.replug()
        assert wait_for(lambda: link.connects == 2)
        runner.roll(die, handled=False)
        assert wait_for(lambda: len(sim.finished_rolls()) == 2 and runner.idle())
        time.sleep(0.2)
    finally:
        link.close()
        runner.stop()
    got = [link.events.get().message for _ in range(link.events.qsize())]
    rolls = [m for m in got if isinstance(m, DieState) and m.state in (RollState.ROLLED, RollState.CROOKED)]
    assert rolls == sim.finished_rolls()
    assert sum(isinstance(m, Hello) for m in got) == 1
    assert link.stats().counts.dropped.get("duplicate", 0) >= 4  # battery reports and the first roll again
