"""Issue 21: with the smart-dice bridge lost, the page must not list the last dice and batteries as
if they were live.  A real ``companion serve`` on a pty where the bridge simulator runs; the host's
page lists the dice live, then, with the bridge unplugged, says it is lost and since when and dims
the dice, then shows them live again when it is back."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from firmware_bridge.registry import DieRegistry
from firmware_bridge.sim_ports import PtyEndpoint, SimulatorRunner
from firmware_bridge.simulator import BridgeSimulator, NoiseRates, SimDie

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _stale_flags(page) -> list[str]:
    return [el.get_attribute("data-stale") for el in page.query_selector_all("#smart-dice .row[data-die]")]


def _wait(check, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_lost_bridge_is_not_shown_as_live(browser, serve, tmp_path):
    sim = BridgeSimulator([SimDie("px1", 6, 0, 90)], seed=3, noise=NoiseRates.none())
    runner = SimulatorRunner(sim, PtyEndpoint(), speed=8.0).start()
    try:
        registry = DieRegistry()
        registry.register_catalogue("px1", "Dwarves/Mammoth Rider")
        registry.save(tmp_path / "dice.json")
        server = serve(
            extra=("--serial", runner.url, "--registry", str(tmp_path / "dice.json"), "--host", "127.0.0.1")
        )
        token = server.host_url.split("token=")[1]
        req = urllib.request.Request(
            server.url + "/api/games",
            method="POST",
            data=json.dumps({"players": ["Ann", "Bob"], "quick": True}).encode(),
            headers={"Content-Type": "application/json", "X-Companion-Token": token},
        )
        urllib.request.urlopen(req, timeout=20).read()
        runner.roll("px1")  # the die speaks: the bridge now lists it with its battery
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(server.host_url.replace("/?token=", "/host?token="))
        page.wait_for_selector("#smart-dice .row[data-die=px1]", timeout=60_000)
        # the die may speak a moment before the source reports the bridge connected: wait for live
        _wait(lambda: _stale_flags(page) == ["0"], "the dice shown live")
        assert page.query_selector("#smart-dice-lost") is None
        assert "battery 90%" in page.inner_text("#smart-dice")

        runner.unplug()  # the USB cable is pulled
        page.wait_for_selector("#smart-dice-lost", timeout=60_000)
        text = page.inner_text("#smart-dice-lost")
        assert "Bridge lost" in text and "not live" in text and "ago" in text
        assert _stale_flags(page) == ["1"]
        assert "last seen" in page.inner_text("#smart-dice .row[data-die=px1]")
        assert (
            float(
                page.eval_on_selector("#smart-dice .row[data-die=px1]", "el => getComputedStyle(el).opacity")
            )
            < 0.9
        )
        page.screenshot(path=str(tmp_path / "smart-dice-lost.png"))

        runner.replug()  # plugged back: live again by itself
        _wait(
            lambda: page.query_selector("#smart-dice-lost") is None and _stale_flags(page) == ["0"],
            "the dice shown live again",
        )
    finally:
        runner.stop()
