"""``companion demo --model NAME|BUNDLE`` (issue 20: a bundle works wherever a model name does): the
camera demo reads its rendered rolls with the named model, the server's camera is given the same
model, and an unknown name or a broken bundle is refused (exit 2, naming it) before anything is made.

The named bundle here is a copy of the shipped ``dragon-dice`` model whose die finder's score gate
(``conf`` in ``model.json``) is above any score, so it reads no die (the roster assignment reads faces
past ``min_face_confidence``, so that gate alone would not do): every die of a camera roll is then
typed by the demo script and marked so, where the shipped model reads them."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from web_helpers import demo_args

from companion.session import GameSession

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "dragon-dice"


def gated_copy(folder: Path) -> Path:
    """The shipped dragon-dice bundle with a die-finder gate no box passes (its networks linked, not copied)."""
    folder.mkdir()
    for name in ("detector.onnx", "face.onnx"):
        os.symlink(SHIPPED / name, folder / name)
    meta = json.loads((SHIPPED / "model.json").read_text())
    meta["conf"] = 1.01  # the die finder's score gate: no box passes, so no die is seen
    (folder / "model.json").write_text(json.dumps(meta))
    return folder


def demo(*extra: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--seconds", "3", "--port", "0", *extra],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def pending_roll(tmp_path):
    """The first roll of a fresh demo game (its dice, as the director hands them to the roller)."""
    from web import create_app
    from web.play import build_setup

    app = create_app(
        {
            "DB_PATH": str(tmp_path / "g.sqlite"),
            "HOST_TOKEN": "demo-host-token-0123456789",
            "START_SOURCES": False,
            "RULES_INDEX": str(tmp_path / "none.sqlite"),
        }
    )
    store = app.extensions["game_store"]
    store.create(build_setup({"players": ["Ann", "Bob"], "quick": True, "force_size": 24}), {"role": "demo"})
    yield store.session.pending()
    store.close()


def test_the_gated_bundle_reads_nothing_where_the_shipped_model_reads_the_same_frame(tmp_path, pending_roll):
    """The control for the next test: the same seed renders the same first frame; the shipped model
    reads some of its dice, the gated copy none."""
    from web.demo import VisionRoller

    shipped = VisionRoller(seed=7).read(pending_roll)
    gated = VisionRoller(seed=7, model=str(gated_copy(tmp_path / "gated"))).read(pending_roll)
    assert shipped["known"] == gated["known"], "the same seed renders the same faces"
    assert shipped["faces"], "the shipped model reads dice of this frame"
    assert gated["faces"] == {} and set(gated["problems"]) == {d["uid"] for d in pending_roll["dice"]}


@pytest.mark.slow
def test_the_camera_demo_reads_with_the_named_bundle(tmp_path):
    bundle = gated_copy(tmp_path / "gated")
    db = tmp_path / "demo.sqlite"
    cmd = [sys.executable, "-m", "companion", "demo", "--dice", "camera", "--model", str(bundle)]
    cmd += ["--db", str(db), "--seconds", "180", "--port", "0", "--pace", "0.05"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    t0 = time.monotonic()
    for line in proc.stdout:
        lines.append(line)
        if "scripted opening finished" in line:
            proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    out = "".join(lines)
    assert time.monotonic() - t0 < 170 and proc.returncode == 0, out
    assert f"read by the vision pipeline with the model {bundle}" in out
    assert "the demo script typed the face it rolled" in out, out
    # no roll has a camera reading: every face is the script's, marked typed, none a player's correction
    with GameSession.open(str(db)) as s:
        rolls = [e for e in s.events(0) if e["type"] == "roll"]
    assert len(rolls) >= 4, out
    for event in rolls:
        assert event["by"] == {"role": "demo", "source": "camera"}
        assert {r["source"] for r in event["action"]["readings"]} == {"typed"}, event["action"]["readings"]


def test_the_demo_server_s_camera_is_given_the_named_model(tmp_path, monkeypatch, capsys):
    """--dice typed with --model is fine: the model is then what the server's camera would use."""
    import web
    from companion.cli import serve

    bundle = gated_copy(tmp_path / "gated")
    given = []
    real = web.create_app

    def create_app(config=None):
        given.append(dict(config or {}))
        return real(config)

    monkeypatch.setattr(web, "create_app", create_app)
    args = demo_args(tmp_path / "demo.sqlite", "typed", 1.0, model=str(bundle))
    assert serve._demo(args) == 0
    assert [c["CAMERA_MODEL"] for c in given] == [str(bundle)]
    assert "faces typed by the demo script" in capsys.readouterr().out


def test_an_unknown_model_is_refused_naming_it_before_anything_starts(tmp_path):
    db = tmp_path / "demo.sqlite"
    for dice in ("camera", "typed"):
        done = demo("--dice", dice, "--model", "no-such-model", "--db", str(db))
        assert done.returncode == 2, done.stdout + done.stderr
        assert "--model" in done.stderr and "no-such-model" in done.stderr and "Traceback" not in done.stderr
        assert "serving at" not in done.stdout
    assert list(tmp_path.iterdir()) == [], "no game file, nothing beside it"


def test_a_broken_bundle_is_refused_naming_it(tmp_path):
    broken = gated_copy(tmp_path / "broken")
    (broken / "face.onnx").unlink()  # a bundle folder without its face reader
    db = tmp_path / "demo.sqlite"
    done = demo("--dice", "simulated", "--model", str(broken), "--db", str(db))
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(broken) in done.stderr and "face.onnx" in done.stderr and "Traceback" not in done.stderr
    assert not db.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["broken"]


def test_demo_help_names_the_model_option():
    done = subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--help"], capture_output=True, text=True, timeout=60
    )
    text = " ".join(done.stdout.split())
    assert done.returncode == 0 and re.search(r"--model NAME\|BUNDLE", text)
    assert "companion vision enroll" in text
