"""Dice sources beside the page: a camera that comes and goes, a smart-dice bridge on a real pty
(the firmware_bridge simulator) whose rolls fill the pending roll, unplugged and plugged back."""

from __future__ import annotations

import time

import cv2
import numpy as np

from firmware_bridge.registry import DieRegistry
from firmware_bridge.sim_ports import PtyEndpoint, SimulatorRunner
from firmware_bridge.simulator import BridgeSimulator, NoiseRates, SimDie


def wait_for(check, timeout: float = 15.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def write_video(path, frames: int = 40) -> None:
    """A clip in which something moves for a few frames, then the table stays still."""
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (160, 120))
    for i in range(frames):
        img = np.full((120, 160, 3), 60, np.uint8)
        x = 10 + 12 * min(i, 8)
        cv2.rectangle(img, (x, 40), (x + 20, 60), (230, 230, 230), -1)
        out.write(img)
    out.release()


def test_camera_lost_is_reported_and_comes_back_by_itself(tmp_path):
    from web import create_app

    video = tmp_path / "camera.avi"
    app = create_app({"DB_PATH": str(tmp_path / "g.sqlite"), "CAMERA": str(video), "HOST_TOKEN": "h"})
    sources = app.extensions["sources"]
    store = app.extensions["game_store"]
    client = app.test_client()
    client.post(
        "/api/games", json={"players": ["Ann", "Bob"], "quick": True}, headers={"X-Companion-Token": "h"}
    )
    try:
        wait_for(lambda: sources.camera.state == "lost", timeout=30, what="camera lost")
        cam = {s["kind"]: s for s in client.get("/api/state").json["sources"]}["camera"]
        assert cam["state"] == "lost" and "retrying" in cam["message"]
        assert any(n["kind"] == "source" and n["data"]["state"] == "lost" for n in store.notices_since(0))
        write_video(video)  # the camera is plugged in
        wait_for(lambda: sources.camera.frames > 0, timeout=30, what="frames")
        assert client.get("/api/frame.jpg").data[:2] == b"\xff\xd8"
        # the dice came to rest with a roll pending: the frame is read once (or, with no dice model
        # shipped, the page is told that only frames are shown)
        wait_for(
            lambda: sources.camera.reads or sources.camera.read_error, timeout=30, what="a settled frame"
        )
        if sources.camera.read_error:
            cam = {s["kind"]: s for s in client.get("/api/state").json["sources"]}["camera"]
            assert "frames only" in cam["message"]
        else:
            reading = client.get("/api/state").json["reading"]
            assert reading["source"] == "camera"
            frames = {r["frame"] for r in reading["readings"].values()}  # each die's reading names its frame
            assert len(frames) == 1 and 0 < frames.pop() <= sources.camera.frames
        # the clip ends (the camera goes away again) and is reopened by itself
        seen = sources.camera.frames
        wait_for(lambda: sources.camera.frames > seen + 40, timeout=30, what="frames after reconnecting")
    finally:
        sources.stop()


def test_smart_dice_rolls_fill_the_pending_roll(tmp_path):
    from web import create_app

    sim = BridgeSimulator([SimDie("px1", 6, 0, 90)], seed=3, noise=NoiseRates.none())
    runner = SimulatorRunner(sim, PtyEndpoint(), speed=8.0).start()
    app = None
    try:
        client_app = create_app(
            {"DB_PATH": str(tmp_path / "g.sqlite"), "HOST_TOKEN": "h", "START_SOURCES": False}
        )
        client = client_app.test_client()
        client.post(
            "/api/games", json={"players": ["Ann", "Bob"], "quick": True}, headers={"X-Companion-Token": "h"}
        )
        first = client.get("/api/state").json["pending"]["dice"][0]
        registry = DieRegistry()
        registry.register_catalogue("px1", first["die"])
        registry.save(tmp_path / "dice.json")
        client_app.extensions["game_store"].close()

        app = create_app(
            {
                "DB_PATH": str(tmp_path / "g.sqlite"),
                "SERIAL": runner.url,
                "DICE_REGISTRY": str(tmp_path / "dice.json"),
            }
        )
        client = app.test_client()
        serial = app.extensions["sources"].serial
        wait_for(lambda: serial.state == "connected", what="bridge connected")
        runner.roll("px1")
        reading = wait_for(lambda: client.get("/api/state").json["reading"], what="a reading from the die")
        assert reading["source"] == "serial"
        assert reading["faces"][first["uid"]] in first["faces"]
        status = {s["kind"]: s for s in client.get("/api/state").json["sources"]}["serial"]
        assert [d["die"] for d in status["dice"]] == ["px1"]
        # USB unplugged: shown on the page; plugged back: connected again by itself
        runner.unplug()
        wait_for(lambda: serial.state == "lost", what="bridge lost")
        runner.replug()
        wait_for(lambda: serial.state == "connected", timeout=30, what="bridge back")
    finally:
        if app is not None:
            app.extensions["sources"].stop()
        runner.stop()
