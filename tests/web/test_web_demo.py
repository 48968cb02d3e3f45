"""``companion demo``: a real server process on a fresh SQLite game, a scripted opening played through
the same path as real rolls, stopped by ``--seconds``."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from companion.session import GameSession


def run_demo(
    *extra: str, seconds: float = 25, stop_when_done: bool = False
) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """Run the demo; with stop_when_done, Ctrl-C it once the scripted opening is over (--seconds is
    then only a cap), else let --seconds stop it."""
    cmd = [
        sys.executable,
        "-m",
        "companion",
        "demo",
        "--seconds",
        str(seconds),
        "--port",
        "0",
        "--pace",
        "0.05",
        *extra,
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    seen_states: list[dict] = []
    url = None
    t0 = time.monotonic()
    for line in proc.stdout:
        lines.append(line)
        m = re.search(r"serving at (http://\S+)", line)
        if m:
            url = m.group(1)
        if url and "[demo]" in line and len(seen_states) < 3:
            with urllib.request.urlopen(url + "/api/state", timeout=5) as r:
                seen_states.append(json.loads(r.read()))
        if stop_when_done and "scripted opening finished" in line:
            proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    took = time.monotonic() - t0
    assert took < seconds + 20, "--seconds makes the demo stop by itself"
    if not stop_when_done:
        assert took > seconds - 5, "it served until --seconds had passed"
    return subprocess.CompletedProcess(cmd, proc.returncode, "".join(lines)), seen_states


def check_opening(out: str) -> None:
    assert re.search(r"\?token=\S{20,}", out), "the host URL carries its token"
    # the demo listens on this machine only: no QR code a tablet could not reach, but how to pair
    assert "Tablets" in out and "Ctrl-C" in out
    for shown in ("setup", "maneuver", "melee", "saves", "magic"):
        assert f"shown: {shown}" in out, shown


def events_of(out: str) -> list[dict]:
    db = re.search(r"game in (\S+\.sqlite)", out).group(1)
    with GameSession.open(db) as s:
        return s.events(0)


@pytest.mark.slow
def test_demo_stops_by_itself_after_its_seconds():
    done, _ = run_demo(seconds=8)
    assert done.returncode == 0, done.stdout
    assert "serving at http://" in done.stdout


@pytest.mark.slow
def test_demo_plays_the_scripted_opening_with_typed_faces(tmp_path):
    # stopped once the opening is over: on a loaded machine the opening takes longer than usual;
    # --db keeps the game file (without it the demo removes its temporary folder on exit)
    done, states = run_demo(
        "--dice", "typed", "--db", str(tmp_path / "demo.sqlite"), seconds=240, stop_when_done=True
    )
    assert done.returncode == 0, done.stdout
    check_opening(done.stdout)
    assert states and all(s["game_id"] and s["role"] == "viewer" for s in states), "the page shows the game"
    events = events_of(done.stdout)
    assert events[0]["type"] == "create" and events[0]["by"] == {"role": "demo"}, "the demo started the game"
    rolls = [e for e in events if e["type"] == "roll"]
    assert {e["player"] for e in rolls} == {"p1", "p2"}
    assert any(e["type"] == "cast" and e["action"]["spells"] for e in events), "a spell is cast"
    assert any(e["type"] == "allocate" for e in events) or any("melee" in " ".join(e["log"]) for e in events)


@pytest.mark.slow
def test_demo_rolls_through_the_smart_dice_simulator(tmp_path):
    done, _ = run_demo(
        "--dice", "simulated", "--db", str(tmp_path / "demo.sqlite"), seconds=240, stop_when_done=True
    )
    assert done.returncode == 0, done.stdout
    assert "smart-dice simulator" in done.stdout
    check_opening(done.stdout)
    assert len([e for e in events_of(done.stdout) if e["type"] == "roll"]) >= 6


@pytest.mark.slow
def test_demo_camera_rolls_need_a_shipped_model():
    from web.demo import vision_available

    if vision_available():
        done, _ = run_demo("--dice", "camera", seconds=240, stop_when_done=True)
        assert done.returncode == 0, done.stdout
        assert "rendered camera frames" in done.stdout
        check_opening(done.stdout)
    else:
        done = subprocess.run(
            [sys.executable, "-m", "companion", "demo", "--dice", "camera", "--seconds", "5", "--port", "0"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2 and "shipped model" in done.stderr


def test_serve_refuses_a_file_that_is_not_a_game(tmp_path):
    bad = tmp_path / "notes.sqlite"
    bad.write_bytes(b"this is not a database at all" * 100)
    done = subprocess.run(
        [sys.executable, "-m", "companion", "serve", "--db", str(bad), "--port", "0", "--seconds", "3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "not a game database" in done.stderr and "Traceback" not in done.stderr
    assert bad.read_bytes().startswith(b"this is not a database"), "the file is left as it was"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite"], "nothing is written beside it"
