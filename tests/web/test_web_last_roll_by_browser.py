"""In Chromium: the Roll page says who made the last roll ("by kitchen tablet") beside it, live on the
host's page when a paired tablet rolls, against a real ``companion serve`` process."""

from __future__ import annotations

import time

from web_helpers import api as _api

HOST = {"width": 1280, "height": 800}


def _wait_text(page, selector: str, text: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.query_selector(selector) and page.inner_text(selector) == text:
            return
        time.sleep(0.1)
    raise AssertionError(f"{selector} never showed {text!r}")


def test_the_roll_page_says_who_made_the_last_roll(browser, serve):
    server = serve()
    host_token = server.host_url.split("token=")[1]
    _api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, host_token)
    code = _api(server, "GET", "/api/pairing", token=host_token)["code"]
    tablet = _api(server, "POST", "/api/pair", {"code": code, "name": "kitchen tablet"})["token"]
    ctx = browser.new_context(viewport=HOST)
    ctx.set_default_timeout(90_000)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.host_url)
    page.wait_for_selector("#role.host")
    page.click(".rail a[data-view=roll]")
    page.wait_for_selector("#view-roll.active")
    assert page.query_selector("#last-roll-by") is None  # no roll yet
    _api(server, "POST", "/api/decisions", {"action": {"type": "roll_for_me", "seed": 2}}, tablet)
    _wait_text(page, "#last-roll-by", "by kitchen tablet")  # the host's page follows live
    _api(server, "POST", "/api/decisions", {"action": {"type": "roll_for_me", "seed": 5}}, host_token)
    _wait_text(page, "#last-roll-by", "by the host")
    assert not errors, errors
    ctx.close()
