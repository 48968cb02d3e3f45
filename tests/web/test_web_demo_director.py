"""The demo's director never invents a reading (issue 22): a die its dice source could not read
either stays unread on the Roll page, the demo saying so and waiting for the players, or, when the
script knows the face it rolled (a rendered camera frame), gets that face marked as typed by the
demo script, never as a player's correction.  Also: the real reason the camera is not used, plain
sentences instead of action dicts, the --help text, and no temporary folder left behind."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from web_helpers import demo_args

HOST = {"X-Companion-Token": "demo-host-token-0123456789"}


@pytest.fixture
def demo_app(tmp_path):
    from web import create_app

    app = create_app(
        {
            "DB_PATH": str(tmp_path / "g.sqlite"),
            "HOST_TOKEN": HOST["X-Companion-Token"],
            "START_SOURCES": False,
            "RULES_INDEX": str(tmp_path / "none.sqlite"),
        }
    )
    client = app.test_client()
    assert (
        client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True}, headers=HOST).status_code
        == 201
    )
    yield app
    app.extensions["game_store"].close()


class HalfRoller:
    """Reads every die but the first; ``known`` says whether it tells the face it rolled."""

    source = "camera"

    def __init__(self, known: bool):
        self.known = known

    def start(self, store) -> None:
        pass

    def read(self, pending, timeout=10.0):
        dice = pending["dice"]
        out = {
            "faces": {d["uid"]: d["faces"][1] for d in dice[1:]},
            "problems": {dice[0]["uid"]: "not read: tap its face"},
        }
        if self.known:
            out["known"] = {d["uid"]: d["faces"][-1] for d in dice}
        return out

    def close(self) -> None:
        pass


def wait_for(check, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    raise AssertionError("timed out")


def test_an_unread_die_stays_unread_and_the_demo_waits_for_a_player(demo_app):
    from web.demo import Director

    store = demo_app.extensions["game_store"]
    client = demo_app.test_client()
    pending = store.session.pending()
    first = pending["dice"][0]
    out = io.StringIO()
    director = Director(store, HalfRoller(known=False), pace=0.01, out=out)
    seq = store.last_seq
    worker = threading.Thread(target=director.step, args=(pending,), daemon=True)
    worker.start()
    wait_for(lambda: "nothing is made up" in out.getvalue())
    reading = client.get("/api/state").json["reading"]
    assert (
        first["uid"] not in reading["faces"]
        and reading["corrected"] == []
        and reading["typed_by_script"] == []
    )
    assert any(first["uid"] in p for p in reading["problems"])
    time.sleep(0.3)
    assert store.last_seq == seq and worker.is_alive(), "the roll is not confirmed without the missing face"
    # a player taps the face and confirms: the director goes on
    faces = dict(reading["faces"], **{first["uid"]: first["faces"][0]})
    assert client.post("/api/rolls", json={"faces": faces}, headers=HOST).status_code == 200
    worker.join(5)
    assert not worker.is_alive() and store.last_seq > seq


def test_a_face_the_script_rolled_is_typed_and_labelled_as_the_script_s(demo_app):
    from web.demo import Director

    store = demo_app.extensions["game_store"]
    pending = store.session.pending()
    first = pending["dice"][0]
    out = io.StringIO()
    seq = store.last_seq
    staged = []
    real_submit = store.submit_readings

    def submit_readings(readings, *args, **kwargs):
        staged.append(dict(store.reading))
        return real_submit(readings, *args, **kwargs)

    store.submit_readings = submit_readings
    Director(store, HalfRoller(known=True), pace=0.01, out=out).step(pending)
    assert store.last_seq > seq, "the roll was confirmed"
    (reading,) = staged
    assert reading["faces"][first["uid"]] == first["faces"][-1]
    assert reading["typed_by_script"] == [first["uid"]] and reading["corrected"] == []
    assert "typed the face it rolled" in out.getvalue()
    event = store.session.events(seq)[0]
    assert event["action"]["faces"][0] == first["faces"][-1]
    assert event["by"] == {"role": "demo", "source": "camera"}  # the judge sees the demo script made it
    logged = {r["die"]: r for r in event["action"]["readings"]}
    assert logged[first["uid"]]["source"] == "typed"  # the face the script typed is no camera reading


def test_the_director_speaks_in_sentences():
    from web.demo import describe

    pending = {"player_name": "Ann", "choices": [{"value": "p1@frontier", "label": "March with Ann's army"}]}
    assert describe(pending, {"type": "choose", "choice": "p1@frontier"}) == "Ann: March with Ann's army"
    text = describe(
        {"player_name": "Bob"},
        {"type": "cast", "spells": [{"spell": "Stone Skin", "element": "Earth", "target": "p2@home"}]},
    )
    assert text == "Bob casts Stone Skin (Earth) on p2@home" and "{" not in text


def test_why_the_camera_is_not_used_is_the_real_reason(monkeypatch):
    import companion.vision.reader as reader
    from web import demo

    def broken(model):
        raise RuntimeError(f"weights of {model} are truncated")

    monkeypatch.setattr(reader, "load_model", broken)
    assert demo.vision_problem() == "RuntimeError: weights of dragon-dice are truncated"
    assert demo.vision_available() is False


def test_demo_help_says_what_it_does_and_how_to_stop():
    done = subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--help"], capture_output=True, text=True, timeout=60
    )
    text = " ".join(done.stdout.split())
    assert done.returncode == 0
    for words in (
        "opening by script",
        "Ctrl-C",
        "temporary folder",
        "--seed",
        "same faces",
        "never given a made-up face",
    ):
        assert words in text, words


@pytest.mark.slow
def test_demo_says_what_to_open_and_removes_its_temporary_folder():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            "demo",
            "--dice",
            "typed",
            "--seconds",
            "6",
            "--port",
            "0",
            "--pace",
            "0.05",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "Press Ctrl-C to stop the demo" in out and "Open the host URL" in out
    assert not re.search(r"\{'type'", out), "no raw action dicts"
    db = Path(re.search(r"game in (\S+\.sqlite)", out).group(1))
    assert not db.parent.exists(), "the temporary folder is removed on exit"
    assert "was removed" in out


def test_auto_dice_say_why_the_camera_is_not_used(monkeypatch, capsys, tmp_path):
    """--dice auto falls back to typed faces only with the real reason printed (not 'no model')."""
    from companion.cli import serve
    from web import demo

    monkeypatch.setattr(
        demo, "vision_problem", lambda model="dragon-dice": "OSError: models/x.onnx is unreadable"
    )
    args = demo_args(tmp_path / "demo.sqlite", "auto", 1.5)
    assert serve._demo(args) == 0
    out = capsys.readouterr().out
    assert "faces typed by the demo script" in out
    assert "The camera pipeline is not used: OSError: models/x.onnx is unreadable." in out
