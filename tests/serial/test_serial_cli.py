"""``companion dice listen|simulate|pair`` as a user runs them: real processes on real ports."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from firmware_bridge.link import BridgeLink
from firmware_bridge.protocol import DieState, Hello, RollState
from firmware_bridge.registry import DieRegistry
from firmware_bridge.sim_ports import PtyEndpoint, SimulatorRunner
from firmware_bridge.simulator import BridgeSimulator

COMPANION = [sys.executable, "-m", "companion"]


def test_listen_prints_one_json_line_per_finished_roll(tmp_path):
    sim = BridgeSimulator.with_dice(4, seed=31, mean_gap_s=0.5)
    runner = SimulatorRunner(sim, PtyEndpoint(tmp_path / "ttyDICE"), speed=10).start()
    a, b = sim.dice[0].die_id, sim.dice[1].die_id
    registry = tmp_path / "dice.json"
    registry.write_text(
        json.dumps({"version": 1, "dice": {a: {"catalogue": "Amazons/Charioteer"}, b: {"standard": "d6"}}})
    )
    try:
        proc = subprocess.run(
            [
                *COMPANION,
                "dice",
                "listen",
                "--port",
                runner.url,
                "--jsonl",
                "--registry",
                str(registry),
                "--stats",
                "--count",
                "12",
                "--duration",
                "30",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        runner.stop()
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == 12
    truth = {m.seq: m for m in sim.finished_rolls()}
    reg = DieRegistry.load(registry)
    for row in rows:
        sent = truth[row["seq"]]  # every printed roll is one the bridge sent: same die, state and face
        assert (row["die"], row["state"], row["face_index"]) == (
            sent.die_id,
            sent.state.value,
            sent.face_index,
        )
        if row["die"] in (a, b):
            assert row["registered"] is True
            if row["state"] == "rolled":
                assert row["face_text"] == reg.interpret(row["die"], row["face_index"]).face_text
            else:
                assert row["needs_reroll"] is True
        else:
            assert row["registered"] is False and "not registered" in row["problem"]
    assert len({row["seq"] for row in rows}) == 12  # no roll printed twice
    # printed rolls are consecutive in the bridge's order: none skipped in between
    order = [m.seq for m in sim.finished_rolls()]
    first = order.index(rows[0]["seq"])
    assert [row["seq"] for row in rows] == order[first : first + 12]
    stats = json.loads([ln for ln in proc.stderr.splitlines() if ln.startswith('{"stats"')][-1])["stats"]
    assert stats["lines"] == stats["accepted_total"] + stats["dropped_total"]
    assert stats["accepted"]["DDR"] >= 12


def test_listen_with_a_bad_registry_says_why(tmp_path):
    registry = tmp_path / "dice.json"
    registry.write_text(json.dumps({"dice": {"pxA": {"catalogue": "Amazons/Nobody"}}}))
    proc = subprocess.run(
        [*COMPANION, "dice", "listen", "--port", "loop://", "--jsonl", "--registry", str(registry)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "Amazons/Nobody" in proc.stderr and "not a die of the catalogue" in proc.stderr
    assert proc.stdout == ""


def test_simulate_serves_a_pty_a_link_can_read(tmp_path):
    port = tmp_path / "ttySIM"
    proc = subprocess.Popen(
        [
            *COMPANION,
            "dice",
            "simulate",
            "--port",
            str(port),
            "--dice",
            "3",
            "--seed",
            "5",
            "--speed",
            "10",
            "--duration",
            "20",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == f"simulating 3 dice on {port}"
        ids = proc.stdout.readline().split()[1:]
        assert len(ids) == 3
        with BridgeLink(str(port)) as link:
            assert link.wait_connected(5)
            seen = []
            deadline = time.monotonic() + 15
            while (
                time.monotonic() < deadline
                and sum(isinstance(m, DieState) and m.state is RollState.ROLLED for m in seen) < 3
            ):
                seen.append(link.events.get(timeout=15).message)
        assert isinstance(seen[0], Hello)
        assert {m.die_id for m in seen if isinstance(m, DieState)} <= set(ids)
    finally:
        proc.terminate()
        proc.wait(10)
    assert proc.returncode == 0
    assert "finished rolls" in proc.stderr.read()


def test_simulate_rejects_bad_arguments():
    proc = subprocess.run(
        [*COMPANION, "dice", "simulate", "--dice", "0"], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2 and "--dice must be 1..64" in proc.stderr
    proc = subprocess.run(
        [*COMPANION, "dice", "simulate", "--port", "loop://"], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2 and "loop://" in proc.stderr


def test_pair_blinks_the_die_and_registers_the_answer(tmp_path):
    sim = BridgeSimulator.with_dice(2, seed=41, auto=False)
    runner = SimulatorRunner(sim, PtyEndpoint(tmp_path / "ttyPAIR"), speed=10).start()
    registry = tmp_path / "dice.json"
    target = sim.dice[1].die_id
    DieRegistry().save(registry)
    reg = DieRegistry.load(registry)
    reg.register(sim.dice[0].die_id, "d6")  # already known: pair must not ask about it
    reg.save(registry)
    proc = subprocess.Popen(
        [*COMPANION, "dice", "pair", "--port", runner.url, "--registry", str(registry), "--timeout", "20"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().startswith("Pick up and roll")
        time.sleep(1.0)  # the link opens; a roll of the known die, then of the new one
        runner.roll(sim.dice[0].die_id)
        time.sleep(0.5)
        runner.roll(target)
        out, err = proc.communicate("Amazons/Nobody\nAmazons/Chariot\nAmazons/Charioteer\n", timeout=30)
    finally:
        runner.stop()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert f"Die {target} is blinking green." in out
    assert "not registered: 'Amazons/Nobody' is not a die of the catalogue" in out
    assert "did you mean: Amazons/Charioteer" in out  # a near miss gets suggestions
    assert f"registered {target} as Amazons/Charioteer" in out
    assert [b.die_id for b in sim.blinks] == [target]
    saved = DieRegistry.load(registry)
    assert list(saved) == sorted([sim.dice[0].die_id, target])
    assert saved.get(target).name == "Amazons/Charioteer"


def test_listen_waits_for_a_missing_port_and_reports_it(tmp_path):
    port = tmp_path / "ttyNOTYET"
    proc = subprocess.run(
        [*COMPANION, "dice", "listen", "--port", str(port), "--jsonl", "--stats", "--duration", "1.5"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert f"waiting for {port}" in proc.stderr
    stats = json.loads([ln for ln in proc.stderr.splitlines() if ln.startswith('{"stats"')][-1])["stats"]
    assert stats["connected"] is False and stats["failed_opens"] >= 2 and stats["lines"] == 0


def test_listen_without_jsonl_prints_readable_lines(tmp_path):
    sim = BridgeSimulator.with_dice(2, seed=51, auto=False)
    runner = SimulatorRunner(sim, PtyEndpoint(tmp_path / "ttyHUMAN"), speed=10).start()
    registry = tmp_path / "dice.json"
    reg = DieRegistry()
    reg.register(sim.dice[0].die_id, "d6")
    reg.save(registry)
    proc = subprocess.Popen(
        [
            *COMPANION,
            "dice",
            "listen",
            "--port",
            runner.url,
            "--registry",
            str(registry),
            "--count",
            "2",
            "--duration",
            "30",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(1.0)
        runner.roll(sim.dice[0].die_id, handled=False)
        runner.roll(sim.dice[1].die_id, handled=False)
        out, err = proc.communicate(timeout=30)
    finally:
        runner.stop()
    assert proc.returncode == 0, err
    lines = out.splitlines()
    by_die = {line.split()[0]: line for line in lines}
    sent = {m.die_id: m for m in sim.finished_rolls()}
    assert len(sent) == 2
    for die_id, m in sent.items():
        assert f"{die_id} {m.state.value} face {m.face_index} (seq {m.seq})" in by_die[die_id]
    known, stranger = sim.dice[0].die_id, sim.dice[1].die_id
    if sent[known].state is RollState.ROLLED:
        assert by_die[known].endswith(f": d6 {sent[known].face_index + 1}")
    assert by_die[stranger].endswith(f"[die {stranger} is not registered]")


def test_simulate_never_replaces_a_file_or_folder_at_its_port_path(tmp_path):
    kept = tmp_path / "notes.txt"
    kept.write_text("keep me")
    for port in (f"pty:{kept}", str(kept), str(tmp_path)):
        proc = subprocess.run(
            [*COMPANION, "dice", "simulate", "--port", port, "--duration", "0.2"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert proc.returncode == 2, proc.stderr
        assert "not a link to a pty" in proc.stderr and "Traceback" not in proc.stderr
    assert kept.read_text() == "keep me" and not kept.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_simulate_refuses_a_tcp_port_out_of_range_and_a_missing_folder(tmp_path):
    for port, says in (
        ("socket://127.0.0.1:99999", "99999 is not a port"),
        (str(tmp_path / "no" / "tty"), "does not exist"),
    ):
        proc = subprocess.run(
            [*COMPANION, "dice", "simulate", "--port", port, "--duration", "0.2"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr


def test_dice_options_out_of_range_are_refused_by_name():
    cases = [
        (["simulate", "--speed", "0"], "--speed"),
        (["simulate", "--speed", "nan"], "--speed"),
        (["simulate", "--duration", "-1"], "--duration"),
        (["listen", "--port", "loop://", "--count", "-1"], "--count"),
        (["listen", "--port", "loop://", "--duration", "nan"], "--duration"),
        (["listen", "--port", "loop://", "--stats-every", "0"], "--stats-every"),
        (["pair", "--port", "loop://", "--registry", "r.json", "--count", "0"], "--count"),
        (["pair", "--port", "loop://", "--registry", "r.json", "--timeout", "-1"], "--timeout"),
    ]
    for argv, option in cases:
        proc = subprocess.run([*COMPANION, "dice", *argv], capture_output=True, text=True, timeout=30)
        assert proc.returncode == 2, argv
        assert f"argument {option}" in proc.stderr and "Traceback" not in proc.stderr, argv


def test_a_port_no_bridge_can_ever_have_and_a_bad_pair_name_are_refused_at_once(tmp_path):
    registry = tmp_path / "dice.json"
    for argv, says in (
        (["listen", "--port", "foo://x", "--duration", "20"], "--port foo://x: invalid URL, protocol 'foo'"),
        (["pair", "--port", "foo://x", "--registry", str(registry)], "--port foo://x: invalid URL"),
        (
            ["pair", "--port", "loop://", "--registry", str(registry), "--as", "Amazons/Nobody"],
            "--as: 'Amazons/Nobody' is not a die of the catalogue",
        ),
    ):
        started = time.monotonic()
        proc = subprocess.run([*COMPANION, "dice", *argv], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert "roll the die" not in proc.stdout  # refused before waiting for a die
        assert time.monotonic() - started < 15
    assert not registry.exists()


def test_serve_refuses_a_bad_serial_url_or_registry_before_anything_starts(tmp_path):
    bad = tmp_path / "dice.json"
    bad.write_text(json.dumps({"dice": {"pxA": {"catalogue": 5}}}))
    db = tmp_path / "game.sqlite"
    for extra, says in (
        (["--serial", "foo://x"], "error: --serial foo://x: invalid URL, protocol 'foo' not known"),
        (["--registry", str(bad)], "error: --registry: "),
    ):
        proc = subprocess.run(
            [
                *COMPANION,
                "serve",
                "--db",
                str(db),
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--seconds",
                "5",
                *extra,
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert "'catalogue' must be a die's name" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dice.json"]  # no game file, lock or token


def test_pair_on_a_missing_device_says_the_port_never_opened_and_why(tmp_path):
    # a device path missing now may be plugged in later, so pair keeps trying until its timeout; but
    # the player is told at once that the port is not open, and the timeout names the port's error
    registry = tmp_path / "dice.json"
    missing = tmp_path / "ttyNOPE"
    proc = subprocess.run(
        [*COMPANION, "dice", "pair", "--port", str(missing), "--registry", str(registry), "--timeout", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    first, last = proc.stderr.strip().splitlines()[0], proc.stderr.strip().splitlines()[-1]
    assert first.startswith(f"--port {missing} is not open (") and "still trying" in first
    assert last.startswith(f"no new die seen in 2 s: --port {missing} never opened (")
    assert "No such file or directory" in last
    assert not registry.exists() and not missing.exists()
