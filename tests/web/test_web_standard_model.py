"""The standard-dice model of a server (``serve --standard-model``) and of ``watch``.

A Battle Dice roll (standard dice d4..d20) that the camera or the phone sees is read with the numeral
bundle the server was started with, not always the shipped ``polyhedral``; ``watch --standard-model``
reads standard dice with it too.  A name that is no standard-dice model stops the command at start-up,
naming it, before any file or server exists.

The bundle fixture ``gated`` is the shipped ``polyhedral`` with a confidence gate no reading passes
(``min_face_confidence`` 1.01): it finds the same dice and reads none of them, where the default reads
the rendered frame's dice -- so a test passes only if the configured bundle is the one that reads.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from web_helpers import battle_dice_app

from companion.cli import main
from companion.vision import DEFAULT_STANDARD_MODEL

TOKEN = "standard-model-host-token-0123"
HOST = {"X-Companion-Token": TOKEN}


@pytest.fixture(scope="module")
def gated(tmp_path_factory) -> Path:
    """A numeral bundle folder (a copy of ``polyhedral``) whose gate leaves every die unread."""
    from companion.vision.reader import models_dir

    folder = tmp_path_factory.mktemp("bundles") / "gated-standard"
    shutil.copytree(
        models_dir() / "polyhedral", folder, ignore=shutil.ignore_patterns("*.pt", "*.png", "*.md")
    )
    meta = json.loads((folder / "model.json").read_text())
    meta.update(name="gated-standard", min_face_confidence=1.01)
    (folder / "model.json").write_text(json.dumps(meta))
    return folder


def _battle_dice_app(tmp_path: Path, **config):
    app, client, pending = battle_dice_app(tmp_path, TOKEN, **config)
    assert pending["kind"] == "roll"
    assert {d["die"] for d in pending["dice"]} - {"d6"}, "a roll of d6 only is read by the d6 model"
    return app, client, pending


def _frame(pending: dict, seed: int = 4) -> np.ndarray:
    from companion.vision.synth.numerals import random_die, render_standard_scene

    rng = np.random.default_rng(seed)
    dice = [random_die(rng, d["die"]) for d in pending["dice"]]
    frame, _, _ = render_standard_scene(rng, dice, ppm=3.4, tilt_deg=0.0, clutter=False, photo=False)
    return frame


def _png(frame: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", frame)
    assert ok
    return buf.tobytes()


def _post_photo(client, frame: np.ndarray) -> dict:
    """Send FRAME as the host's phone photo of the roll; it must be read.  The reading the state then shows."""
    r = client.post(
        "/api/camera/frames?photo=1", data=_png(frame), headers={**HOST, "Content-Type": "image/png"}
    )
    assert r.status_code == 200 and r.json["read"] is True, r.json
    return client.get("/api/state").json["reading"]


def test_a_phone_photo_of_a_battle_dice_roll_is_read_with_the_configured_standard_model(tmp_path, gated):
    readings = {}
    # the frames here are drawn from straight above: ``polyhedral`` (not the oblique default) reads them
    for label, config in (
        ("default", {"STANDARD_MODEL": "polyhedral"}),
        ("gated", {"STANDARD_MODEL": str(gated)}),
    ):
        app, client, pending = _battle_dice_app(tmp_path / label, **config)
        try:
            readings[label] = _post_photo(client, _frame(pending))
        finally:
            app.extensions["game_store"].close()
    # the same frame: polyhedral reads most dice, the gated bundle finds them and reads none
    assert len(readings["default"]["faces"]) >= len(pending["dice"]) // 2
    gated_reading = readings["gated"]
    assert gated_reading["source"] == "camera" and gated_reading["faces"] == {}
    assert len(gated_reading["boxes"]) == 0 and len(gated_reading["unread"]) == len(pending["dice"])
    assert not gated_reading["corrected"]  # nothing is made up or labelled a player's correction


def test_the_camera_source_reads_a_battle_dice_roll_with_the_configured_standard_model(tmp_path, monkeypatch):
    """``--camera`` frames: the settled frame goes to ``read_standard_roll`` with the server's model."""
    import companion.vision.numerals as numerals

    asked = []

    def recording(frame, slots, model="polyhedral", turn_check=None):
        asked.append((model, list(slots)))
        return numerals.assign_standard([], slots)  # nothing found: every die left to tap

    monkeypatch.setattr(numerals, "read_standard_roll", recording)
    app, client, pending = _battle_dice_app(tmp_path, STANDARD_MODEL="my-standard-dice")
    try:
        camera = app.extensions["sources"].camera
        assert camera.standard_model == "my-standard-dice"
        assert app.extensions["sources"].phone.standard_model == "my-standard-dice"
        clock = [0.0]
        camera._clock = lambda: clock[0]
        rng = np.random.default_rng(1)
        still = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
        for k in range(14):  # the dice tumble for a while, then lie still
            camera._maybe_read(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8) if k < 4 else still)
            clock[0] += 0.05
        assert asked == [("my-standard-dice", [d["die"] for d in pending["dice"]])]
        assert camera.reads == 1 and camera.read_error is None
        reading = client.get("/api/state").json["reading"]
        assert reading["source"] == "camera" and len(reading["unread"]) == len(pending["dice"])
    finally:
        app.extensions["game_store"].close()


def test_serve_carries_the_standard_model_to_the_camera_and_the_phone(tmp_path, monkeypatch, capsys):
    import web

    made = []
    real = web.create_app

    def recording(config=None):
        app = real(dict(config or {}, START_SOURCES=False))
        made.append(app)
        return app

    monkeypatch.setattr(web, "create_app", recording)
    db = tmp_path / "game.sqlite"
    argv = [
        "serve",
        "--db",
        str(db),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--token",
        TOKEN,
        "--seconds",
        "0.2",
    ]
    assert main([*argv, "--standard-model", "polyhedral"]) == 0  # not the default: the option is what sets it
    sources = made[0].extensions["sources"]
    assert sources.camera.standard_model == "polyhedral" == sources.phone.standard_model
    assert DEFAULT_STANDARD_MODEL != "polyhedral"
    made[0].extensions["game_store"].close()
    assert main(argv) == 0  # without the option: the shipped default, as before
    assert made[1].extensions["sources"].camera.standard_model == DEFAULT_STANDARD_MODEL
    made[1].extensions["game_store"].close()


@pytest.mark.parametrize(
    "name, needle",
    [
        ("no-such-dice", "unknown standard-dice model 'no-such-dice'"),
        ("dragon-dice", "'dragon-dice' (%s) is not a standard-dice model"),
        ("{tmp}/empty-folder", "unknown standard-dice model '{tmp}/empty-folder'"),
    ],
)
def test_serve_refuses_a_bad_standard_model_at_start_up_naming_it(tmp_path, capsys, name, needle):
    from companion.vision.reader import models_dir

    (tmp_path / "empty-folder").mkdir()
    name = name.format(tmp=tmp_path)
    needle = needle.format(tmp=tmp_path).replace("%s", str(models_dir() / "dragon-dice"))
    db = tmp_path / "game.sqlite"
    rc = main(["serve", "--db", str(db), "--host", "127.0.0.1", "--port", "0", "--standard-model", name])
    assert rc == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --standard-model: ") and needle in err, err
    assert "polyhedral-oblique" in err  # what it could have been
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty-folder"]  # no game file, lock or certificate


def test_a_broken_standard_bundle_is_refused_at_start_up(tmp_path, capsys, gated):
    broken = tmp_path / "broken"
    shutil.copytree(gated, broken)
    (broken / "face.onnx").unlink()
    rc = main(["serve", "--db", str(tmp_path / "g.sqlite"), "--port", "0", "--standard-model", str(broken)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "--standard-model" in err and f"{broken.resolve()} lacks face.onnx" in err, err
    assert not (tmp_path / "g.sqlite").exists()


# -- companion watch --------------------------------------------------------------------------------


def _roll_folder(folder: Path, frame: np.ndarray) -> Path:
    """Frames of a roll: the dice tumble (noise) for a few frames, then lie still."""
    folder.mkdir()
    rng = np.random.default_rng(0)
    for k in range(4):
        cv2.imwrite(str(folder / f"f{k:02d}.png"), rng.integers(0, 255, frame.shape, dtype=np.uint8))
    for k in range(4, 14):
        cv2.imwrite(str(folder / f"f{k:02d}.png"), frame)
    return folder


def test_watch_reads_standard_dice_with_the_standard_model(tmp_path, capsys, gated):
    from companion.vision.synth.numerals import random_die, render_standard_scene

    slots = ["d4", "d8", "d10", "d12", "d20", "d20"]
    rng = np.random.default_rng(4)
    frame, _, _ = render_standard_scene(
        rng, [random_die(rng, s) for s in slots], ppm=3.4, tilt_deg=0.0, clutter=False, photo=False
    )
    source = _roll_folder(tmp_path / "roll", frame)
    roster = tmp_path / "roster.json"
    roster.write_text(json.dumps(slots))
    events = {}
    for label, model in (("default", "polyhedral"), ("gated", str(gated))):
        argv = ["watch", "--source", str(source), "--standard-model", model, "--roster", str(roster)]
        assert main([*argv, "--max-events", "1"]) == 0
        out = capsys.readouterr().out.strip().splitlines()
        assert len(out) == 1, out
        events[label] = json.loads(out[0])
    read = [u for u in events["default"]["units"] if u["face_index"] is not None]
    assert len(read) >= len(slots) // 2 and all(d["cocked"] is False for d in events["default"]["dice"])
    assert [u["unit"] for u in events["default"]["units"]] == [f"{s}#{i}" for i, s in enumerate(slots)]
    gated_event = events["gated"]
    assert gated_event["dice"] and all(d["unreadable"] and d["value"] is None for d in gated_event["dice"])
    assert all(u["face_index"] is None for u in gated_event["units"])
    assert gated_event["flagged"] == list(range(len(gated_event["dice"])))


def test_watch_refuses_a_bad_standard_model_or_roster_before_opening_the_source(tmp_path, capsys):
    rc = main(["watch", "--source", str(tmp_path / "no-such-source"), "--standard-model", "no-such-dice"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "--standard-model: unknown standard-dice model 'no-such-dice'" in err and "source" not in err, err
    roster = tmp_path / "roster.json"
    roster.write_text(json.dumps(["d20", "Dwarves/Sergeant"]))
    argv = ["watch", "--source", str(tmp_path), "--standard-model", "polyhedral", "--roster", str(roster)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "'Dwarves/Sergeant'" in err and "standard dice" in err, err


def test_watch_refuses_fps_still_ms_and_max_events_out_of_range_by_name(tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "f0.png"), np.zeros((64, 64, 3), np.uint8))  # a folder source to read
    for option, value in (("--fps", "0"), ("--fps", "-1"), ("--still-ms", "-5"), ("--max-events", "0")):
        with pytest.raises(SystemExit) as exc:
            main(["watch", "--source", str(tmp_path), option, value])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert f"argument {option}" in err and "Traceback" not in err, err


# -- the tablet's corrections of standard dice: what enrolment reads, and a bundle to serve --------------


def test_a_fixed_battle_dice_reading_is_saved_for_enrolment_and_the_bundle_serves(tmp_path):
    """A tap that fixes a camera-read standard die, confirmed, saves the frame and the standard-dice record
    (``{"box", "kind": "d20", "value": 17}``) that ``companion vision enroll --corrections`` reads;
    confirming the roll teaches the table profile nothing (it holds Dragon Dice faces) and reports no
    problem; the bundle enrolled from the corrections is accepted as ``--standard-model`` and reads."""
    from companion.cli._standard_model import check_standard_model
    from companion.vision.enroll import enroll, read_corrections

    app, client, pending = _battle_dice_app(
        tmp_path / "table", STANDARD_MODEL="polyhedral"
    )  # frames from above
    store = app.extensions["game_store"]
    try:
        frame = _frame(pending)
        reading = _post_photo(client, frame)
        die = next(d for d in pending["dice"] if d["die"] == "d20" and d["uid"] in reading["faces"])
        fixed = "20" if reading["faces"][die["uid"]] != "20" else "19"
        r = client.post("/api/corrections", json={"uid": die["uid"], "face": fixed}, headers=HOST)
        assert r.status_code == 200, r.json
        faces = client.get("/api/state").json["reading"]["faces"]
        assert faces[die["uid"]] == fixed
        before = max((n["nid"] for n in store.notices_since(0)), default=0)
        r = client.post("/api/rolls/confirm", json={}, headers=HOST)
        assert r.status_code == 200 and r.json["learnt"] == 0, r.json
        assert not [n for n in store.notices_since(before) if n["kind"] == "profile_problem"]
        assert not app.extensions["table_vision"].path.exists()  # no Dragon Dice profile made from them
        saved = Path(r.json["record"])
        record = json.loads(saved.with_suffix(".json").read_text())
        kinds = {d["uid"]: d["die"] for d in pending["dice"]}
        assert record == {
            "dice": [
                {"box": reading["boxes"][u], "kind": kinds[u], "value": int(faces[u])}
                for u in (d["uid"] for d in pending["dice"])
                if u in faces and u in reading["boxes"]
            ]
        }
        sightings = read_corrections(saved.parent)  # what enrolment reads: the fixed value included
        assert ("d20", "value", int(fixed)) in {
            (s.label.kind, s.label.icon, s.label.count) for s in sightings
        }
    finally:
        store.close()

    bundle = tmp_path / "our-standard-dice"
    figures = enroll("polyhedral-oblique", bundle, read_corrections(saved.parent))
    assert figures["crops"] == len(record["dice"])
    assert check_standard_model(str(bundle)).profile is not None  # the enrolled profile is what reads
    app, client, pending = _battle_dice_app(tmp_path / "next-game", STANDARD_MODEL=str(bundle))
    try:
        assert _post_photo(client, _frame(pending))["source"] == "camera"
    finally:
        app.extensions["game_store"].close()


@pytest.mark.parametrize("how", ["model.json", "face.onnx"])
def test_serve_and_watch_refuse_a_broken_bundle_naming_the_bad_file(tmp_path, capsys, gated, how):
    """A bundle with a model.json that is not an object or a damaged network, given to ``serve --model``,
    ``serve --standard-model``, ``watch --model`` or ``watch --standard-model``, is loaded at once and
    refused naming the file (exit 2, no traceback, no game file)."""
    from companion.vision.reader import models_dir

    made = {}
    for name, src in (("dice", models_dir() / "dragon-dice"), ("standard", gated)):
        made[name] = folder = tmp_path / name
        folder.mkdir()
        for f in src.glob("*.json"):
            shutil.copyfile(f, folder / f.name)
        for f in src.glob("*.onnx"):
            shutil.copyfile(f, folder / f.name)
        if how == "model.json":
            meta = json.loads((folder / "model.json").read_text())
            (folder / "model.json").write_text(json.dumps({"form": meta["form"], "face_heads": []}))
        else:
            (folder / "face.onnx").write_bytes((folder / "face.onnx").read_bytes()[:3000])
    db = tmp_path / "g.sqlite"
    source = tmp_path / "no-such-source"
    for option, bundle, argv in (
        ("--model", made["dice"], ["serve", "--db", str(db), "--port", "0", "--seconds", "1"]),
        ("--standard-model", made["standard"], ["serve", "--db", str(db), "--port", "0", "--seconds", "1"]),
        ("--model", made["dice"], ["watch", "--source", str(source)]),
        ("--standard-model", made["standard"], ["watch", "--source", str(source)]),
    ):
        assert main([*argv, option, str(bundle)]) == 2, (argv, option)
        err = capsys.readouterr().err
        assert str(bundle / how) in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dice", "standard"]
